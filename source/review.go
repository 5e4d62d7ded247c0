package source

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
)

// stampTarget is what the checker keeps of a node for comparing stamps with it.
type stampTarget struct {
	hash  string
	parts graph.Parts
	path  string
	line  int
}

type sourceStamp struct {
	source string
	graph.Stamp
}

// Review is the review state of the relations one node declares to one stamped target.
type Review struct {
	Source    string   `json:"source_id"`
	Relations []string `json:"relations"`
	Target    string   `json:"target_id"`
	// State is confirmed, suspect or dangling (graph.Confirmed, ...).
	State       string `json:"state"`
	StampedHash string `json:"stamped_hash"`
	CurrentHash string `json:"current_hash,omitempty"`
	// TargetAt is where the target is now; StampedPath the file it was in when stamped.
	TargetAt    *problem.Location `json:"target_at,omitempty"`
	StampedPath string            `json:"stamped_path,omitempty"`
	// Changes summarise what changed: "signature changed", "body changed", "moved from a to b".
	Changes []string `json:"changes,omitempty"`
	// At is where the stamp is written.
	At problem.Location `json:"at"`
}

// Reviews compares every stamp with its target, once all fragments are in. Stamps naming no
// relation of their node are left out (reviewProblems reports them); so are targets only
// External knows, which this checker cannot compare.
func (c *Checker) Reviews() []Review {
	if c.reviews != nil || len(c.stamps) == 0 {
		return c.reviews
	}
	rels := c.relationsByPair()
	out := make([]Review, 0, len(c.stamps))
	for _, st := range c.stamps {
		names := rels[[2]string{st.source, st.Target}]
		_, exists := c.nodes[st.Target]
		if len(names) == 0 && (exists || c.External != nil && c.External(st.Target)) {
			continue // a stamp without a relation, not a review
		}
		r := Review{Source: st.source, Relations: names, Target: st.Target, StampedHash: st.Hash,
			StampedPath: st.Path, At: st.At}
		now, ok := c.nodes[st.Target]
		switch {
		case ok:
			r.CurrentHash = now.hash
			r.TargetAt = &problem.Location{Path: now.path, Line: now.line}
			r.State = graph.ReviewState(st.Hash, now.hash)
			if r.State == graph.Suspect {
				n := graph.Node{Record: graph.Record{ContentHash: now.hash, SourcePath: now.path}, Parts: now.parts}
				r.Changes = st.Changes(&n, graph.IsCode(st.Target))
			}
		case c.External != nil && c.External(st.Target):
			continue
		default:
			r.State = graph.Dangling
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Review) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
	})
	c.reviews = slices.Clip(out)
	return c.reviews
}

// relationsByPair lists the relation names of every (source, target) pair, declared and
// link-made alike.
func (c *Checker) relationsByPair() map[[2]string][]string {
	if c.pairs != nil {
		return c.pairs
	}
	out := map[[2]string][]string{}
	for _, e := range c.Edges() {
		k := [2]string{e.Source, e.Target}
		if !slices.Contains(out[k], e.Relation) {
			out[k] = append(out[k], e.Relation)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	c.pairs = out
	return out
}

// reviewProblems reports suspect relations and stamps without a relation as warnings. A
// stamped relation whose target is gone is already dangling_target (or dangling_link), whose
// message names the stamp (stampedAt).
func (c *Checker) reviewProblems() []problem.Problem {
	if len(c.stamps) == 0 {
		return nil
	}
	var out []problem.Problem
	rels := c.relationsByPair()
	for _, st := range c.stamps {
		if _, exists := c.nodes[st.Target]; exists && len(rels[[2]string{st.source, st.Target}]) == 0 {
			p := problem.Warn(problem.StampWithoutRelation, st.At, "node %s stamps %q but has no relation to it", st.source, st.Target)
			p.NodeID = st.source
			out = append(out, p)
		}
	}
	for _, r := range c.Reviews() {
		if r.State != graph.Suspect {
			continue
		}
		p := problem.Warn(problem.SuspectRelation, r.At, "node %s: %s %s is suspect: %s since it was confirmed (stamped %s, now %s; the target is at %s)",
			r.Source, strings.Join(r.Relations, ", "), r.Target, strings.Join(r.Changes, "; "), ShortHash(r.StampedHash), ShortHash(r.CurrentHash), r.TargetAt)
		p.NodeID = r.Source
		p.Related = []problem.Location{*r.TargetAt}
		out = append(out, p)
	}
	return out
}

// stampedAt is the part of a dangling-target message that says the relation was reviewed.
func (c *Checker) stampedAt(source, target string) string {
	for _, st := range c.stamps {
		if st.source == source && st.Target == target {
			if st.Path != "" {
				return fmt.Sprintf("; it was confirmed (stamped %s) when it was in %s, so it was renamed or removed since", ShortHash(st.Hash), st.Path)
			}
			return fmt.Sprintf("; it was confirmed (stamped %s), so it was renamed or removed since", ShortHash(st.Hash))
		}
	}
	return ""
}

// ShortHash abbreviates a content hash for messages.
func ShortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

// Drift is one document's review standing: how many of its relations are confirmed,
// suspect, dangling or never reviewed.
type Drift struct {
	NodeID     string `json:"node_id"`
	SourcePath string `json:"source_path"`
	Relations  int    `json:"relations"`
	Confirmed  int    `json:"confirmed"`
	Suspect    int    `json:"suspect"`
	Dangling   int    `json:"dangling"`
	Unreviewed int    `json:"unreviewed"`
}

// Drift lists every node that declares relations, worst first: most suspect and dangling
// relations, then the largest share of them, then by ID.
func (c *Checker) Drift() []Drift {
	states := map[[2]string]string{}
	by := map[string]*Drift{}
	doc := func(id string) *Drift {
		d := by[id]
		if d == nil {
			d = &Drift{NodeID: id, SourcePath: c.ids[id].Path}
			by[id] = d
		}
		return d
	}
	for _, r := range c.Reviews() {
		states[[2]string{r.Source, r.Target}] = r.State
		if len(r.Relations) == 0 { // a link whose stamped target is gone: no edge left to count
			d := doc(r.Source)
			d.Relations++
			d.Dangling++
		}
	}
	for _, e := range c.Edges() {
		if graph.IsCode(e.Source) {
			continue // code relations come from the code; nobody reviews them
		}
		d := doc(e.Source)
		d.Relations++
		state := states[[2]string{e.Source, e.Target}]
		if state == "" && !c.Has(e.Target) && (c.External == nil || !c.External(e.Target)) {
			state = graph.Dangling
		}
		switch state {
		case graph.Confirmed:
			d.Confirmed++
		case graph.Suspect:
			d.Suspect++
		case graph.Dangling:
			d.Dangling++
		default:
			d.Unreviewed++
		}
	}
	out := make([]Drift, 0, len(by))
	for _, d := range by {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b Drift) int {
		badA, badB := a.Suspect+a.Dangling, b.Suspect+b.Dangling
		return cmp.Or(cmp.Compare(badB, badA), cmp.Compare(badB*a.Relations, badA*b.Relations), strings.Compare(a.NodeID, b.NodeID))
	})
	return out
}

// Unconfirmed keeps the reviews that are suspect or dangling.
func Unconfirmed(rs []Review) []Review {
	out := []Review{}
	for _, r := range rs {
		if r.State != graph.Confirmed {
			out = append(out, r)
		}
	}
	return out
}
