package taskcontext

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/history"
)

// Gap kinds and the limits of an incomplete proof.
const (
	GapUndeclaredCategory = "undeclared_relation_category"
	GapNoEvidence         = "no_selected_evidence"
	GapIncomplete         = "incomplete_proof"

	LimitWork     = "work"
	LimitResult   = "result"
	LimitToken    = "token"
	LimitResponse = "response"
)

// Gap is evidence the capsule could not provide, and why.
type Gap struct {
	Kind     string `json:"kind"`
	Limit    string `json:"limit,omitempty"`
	Step     int    `json:"step,omitempty"`
	Category string `json:"category,omitempty"`
	// graph.Categories are the categories of a step's no_selected_evidence gap: one gap per step.
	Categories []string `json:"categories,omitempty"`
	Count      int      `json:"count,omitempty"`
	Detail     string   `json:"detail,omitempty"`
}

// PathHop is one step of an item's graph path from the focus. The first hop is the focus
// itself (no relation). Direction is relative to the preceding node: "outgoing" when that
// node is the stored source of the relation.
type PathHop struct {
	NodeID    string `json:"node_id"`
	Relation  string `json:"relation,omitempty"`
	Category  string `json:"category,omitempty"`
	Direction string `json:"direction,omitempty"`
	// Review is "suspect" or "confirmed" when the relation carries a review stamp.
	Review string `json:"review,omitempty"`
}

// Reason is one more qualifying relation between an item and another node the plan
// reached. Direction is relative to the item: "outgoing" when the item is the stored source.
type Reason struct {
	Relation   string `json:"relation"`
	Category   string `json:"category"`
	Direction  string `json:"direction"`
	NodeID     string `json:"node_id"`
	Step       int    `json:"step"`
	Limitation string `json:"limitation,omitempty"`
}

// Fact is a provenance fact: something about an item that the graph states but cannot prove,
// or a way the item is partial.
type Fact struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Provenance fact codes.
const (
	FactLexicalFocus     = "lexical_focus"
	FactIDFocus          = "id_focus"
	FactDeclared         = "declared_relation"
	FactStatic           = "static_extraction"
	FactTransitive       = "transitive_path"
	FactUnclassified     = "unclassified_relation"
	FactExcerpt          = "body_excerpt"
	FactReasonsTruncated = "reasons_truncated"
	FactSuspect          = "suspect_relation"
	FactHistoryFocus     = "history_focus"
)

// found is one node of the collection while the plan runs.
type found struct {
	ref     index.NodeRef
	focus   int // rank among the focus nodes, or -1
	match   string
	step    int
	depth   int
	path    []PathHop
	reasons []Reason
	more    int     // reasons past maxReasons
	score   float64 // rank score (rank.go)
	// rec is the node's indexed metadata, once hydrated: ranking reads its file, title and
	// (for a document) length.
	rec index.Hydrated
	// commits changed the node, as its provenance (attachCommits).
	commits []history.Commit
}

// collection is the outcome of the focus and traverse steps.
type collection struct {
	terms    []index.TermUse // the lexical focus's terms, how common each is, which were used
	mode     string          // how the lexical focus matched text (index.Ranking.Mode)
	items    []*found
	gaps     []Gap
	examined int
	// lexical is the focus score of every node the focus ranking saw (the pool); files is
	// the score of every file holding a task term (fileCoverage).
	lexical map[int64]float64
	files   map[string]float64
	// hist is the history relevance of every file the task's commits touched, relevant the
	// relevance of each of those commits, by hash (historyFocus); nil without history.
	hist     map[string]float64
	relevant map[string]float64
	// links are the node pairs of every qualifying edge the traversal met, whether or not it
	// collected a node: the graph the ranking walks.
	links []link
}

// link is one qualifying edge the traversal met, by its ends' keys, with its category.
type link struct {
	a, b     int64
	category string
}

// collect runs the focus and traverse steps of p.
func collect(ctx context.Context, snap *index.Snapshot, hist *history.Store, p Plan, vocabulary []string) (*collection, error) {
	c := &collection{lexical: map[int64]float64{}}
	byKey := map[int64]*found{}
	focus := p.Steps[0]
	var roots []index.NodeRef
	switch focus.Mode {
	case "exact":
		refs, err := snap.Resolve(ctx, []string{focus.NodeID})
		if err != nil {
			return nil, err
		}
		roots = refs
		f := &found{ref: refs[0], focus: 0, match: "exact", step: 1}
		c.items, byKey[refs[0].Key] = append(c.items, f), f
	default:
		var err error
		if roots, err = c.lexicalFocus(ctx, snap, focus, p.Kind, byKey); err != nil {
			return nil, err
		}
		if hist != nil {
			if err := c.historyFocus(ctx, snap, hist, focus.Terms, byKey); err != nil {
				return nil, err
			}
		}
		if len(roots) == 0 {
			// No node holds the task's words; commits that say them may still have changed some.
			if len(c.items) == 0 && c.mode != "too_common" {
				c.gaps = append(c.gaps, Gap{Kind: GapNoEvidence, Step: 1, Detail: "no node's ID is a word of the task and no node matches any of its terms; name focus_node_id or use the project's own words"})
			}
			return c, nil
		}
	}

	cats := graph.CategoryMap() // once: graph.Category builds the map on every call
	categoryOf := func(rel string) string {
		if c, ok := cats[rel]; ok {
			return c
		}
		return graph.Unclassified
	}
	declared := map[string][]string{} // category -> vocabulary relations
	for _, rel := range vocabulary {
		declared[categoryOf(rel)] = append(declared[categoryOf(rel)], rel)
	}
	undeclared := map[string]bool{}
	for _, s := range p.Steps[1:] {
		if s.Op != "traverse" {
			continue
		}
		var rels []string
		for _, cat := range s.Categories {
			if len(declared[cat]) == 0 && cat != graph.Unclassified && !undeclared[cat] {
				// Once per category, at the first step that wants it: a project fact, not a step's.
				undeclared[cat] = true
				c.gaps = append(c.gaps, Gap{Kind: GapUndeclaredCategory, Step: s.Step, Category: cat,
					Detail: "declares none of " + strings.Join(graph.Aliases()[cat], ", ")})
			}
			rels = append(rels, declared[cat]...)
		}
		if len(rels) == 0 {
			continue
		}
		stop, err := c.traverse(ctx, snap, s, rels, roots, byKey, categoryOf, declared)
		if err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	return c, nil
}

// traverse runs one traverse step breadth first from the roots. It reports whether a ceiling
// stopped it, in which case no later step runs.
func (c *collection) traverse(ctx context.Context, snap *index.Snapshot, s Step, rels []string, roots []index.NodeRef,
	byKey map[int64]*found, categoryOf func(string) string, declared map[string][]string) (bool, error) {
	// Paths are per step: a node first reached by an earlier step is reached again here by
	// this step's own path, which becomes a relationship reason of that item.
	paths := map[int64][]PathHop{}
	for _, r := range roots {
		paths[r.Key] = []PathHop{{NodeID: r.ID}}
	}
	hits := map[string]int{} // category -> qualifying edges met
	level := roots
	for depth := 1; depth <= s.MaxDepth && len(level) > 0; depth++ {
		exp, err := snap.Expand(ctx, level, s.Direction == outgoing, rels, MaxExaminedEdges-c.examined)
		if err != nil {
			return false, err
		}
		c.examined += exp.Examined
		var next []index.NodeRef
		for _, h := range exp.Hops {
			cat := categoryOf(h.Relation)
			hits[cat]++
			c.links = append(c.links, link{h.From.Key, h.To.Key, cat})
			if _, seen := paths[h.To.Key]; seen {
				if f := byKey[h.To.Key]; f != nil {
					f.addReason(h, cat, s.Step)
				}
				continue
			}
			paths[h.To.Key] = append(slices.Clone(paths[h.From.Key]), PathHop{NodeID: h.To.ID, Relation: h.Relation, Category: cat, Direction: s.Direction, Review: h.Review})
			next = append(next, h.To)
			if f := byKey[h.To.Key]; f != nil {
				f.addReason(h, cat, s.Step)
				continue
			}
			if len(c.items) == MaxEvidence {
				c.gaps = append(c.gaps, Gap{Kind: GapIncomplete, Limit: LimitResult, Step: s.Step, Count: MaxEvidence,
					Detail: fmt.Sprintf("the plan reached more than %d nodes; the collection stops at that ceiling and later steps did not run; name a narrower focus_node_id", MaxEvidence)})
				return true, nil
			}
			f := &found{ref: h.To, focus: -1, step: s.Step, depth: depth, path: paths[h.To.Key]}
			c.items, byKey[h.To.Key] = append(c.items, f), f
		}
		if exp.Exhausted {
			c.gaps = append(c.gaps, Gap{Kind: GapIncomplete, Limit: LimitWork, Step: s.Step, Count: c.examined,
				Detail: fmt.Sprintf("the %d-edge work ceiling was reached at depth %d of this step; its remaining edges and later steps were not examined", MaxExaminedEdges, depth)})
			return true, nil
		}
		level = next
	}
	var empty []string
	for _, cat := range s.Categories {
		if hits[cat] == 0 && len(declared[cat]) > 0 {
			empty = append(empty, cat)
		}
	}
	if len(empty) > 0 {
		c.gaps = append(c.gaps, Gap{Kind: GapNoEvidence, Step: s.Step, Categories: empty})
	}
	return false, nil
}

// addReason records another qualifying relation of f, seen from f: the hop's far end is f,
// so f is the stored source exactly when the hop was followed incoming.
func (f *found) addReason(h index.Hop, cat string, step int) {
	dir := incoming
	if !h.Outgoing {
		dir = outgoing
	}
	r := Reason{Relation: h.Relation, Category: cat, Direction: dir, NodeID: h.From.ID, Step: step}
	if cat == graph.Unclassified {
		r.Limitation = FactUnclassified
	}
	if slices.Contains(f.reasons, r) {
		return
	}
	if len(f.reasons) == maxReasons {
		f.more++
		return
	}
	f.reasons = append(f.reasons, r)
}

// extracted reports whether the relation of path[i] (i >= 1) was extracted from code: its
// stored source, the preceding node when the hop runs outgoing, is a code node.
func extracted(path []PathHop, i int) bool {
	src := path[i].NodeID
	if path[i].Direction == outgoing {
		src = path[i-1].NodeID
	}
	return graph.IsCode(src)
}

// focusPerFile bounds the focus nodes of one file.
const focusPerFile = 8

// fileOf is the part of a code node's ID that names its file (py:a/b.py/C.m: py:a/b.py); a
// Go declaration (named by its package, which spans files) and a document are their own.
func fileOf(id string) string {
	slash := strings.LastIndexByte(id, '/')
	if slash < 0 || !graph.IsCode(id) || strings.HasPrefix(id, "go:") {
		return id
	}
	return id[:slash]
}

// lexicalFocus chooses the focus of a lexical plan: the pool of full-text matches rescored on
// coverage, its best focus.FocusNodes as the traversal's roots; it records the focus terms,
// file relevance and the gaps of step 1 but one: no roots means no node matched, which the
// caller reports once the history has been read too.
func (c *collection) lexicalFocus(ctx context.Context, snap *index.Snapshot, focus Step, kind string, byKey map[int64]*found) ([]index.NodeRef, error) {
	var roots []index.NodeRef
	// The focus ranking scores a pool wider than the focus: a node the traversal reaches
	// that also matches the task's words keeps its lexical score in the ranking.
	rk, err := snap.RankAny(ctx, focus.IDCandidates, focus.Terms, lexicalPool, lexicalScoreBudget, lexicon.IsTaskFiller)
	if err != nil {
		return nil, err
	}
	c.terms, c.mode = rk.Terms, rk.Mode
	if c.lexical, err = coverage(ctx, snap, rk.Hits, rk.Terms, kind); err != nil {
		return nil, err
	}
	if c.files, err = fileCoverage(ctx, snap, rk.Terms); err != nil {
		return nil, err
	}
	hits := slices.Clone(rk.Hits)
	slices.SortStableFunc(hits, func(a, b index.RankedHit) int {
		switch sa, sb := c.lexical[a.Key], c.lexical[b.Key]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	// At most focusPerFile focus nodes of one file: a word that names a family of methods
	// (finishes: every _finishXxx) must not make the focus one file's.
	perFile := map[string]int{}
	var chosen []index.RankedHit
	var rest []index.RankedHit
	for _, h := range hits {
		if len(chosen) == focus.FocusNodes {
			break
		}
		file := fileOf(h.ID)
		if perFile[file] >= focusPerFile {
			rest = append(rest, h)
			continue
		}
		perFile[file]++
		chosen = append(chosen, h)
	}
	chosen = append(chosen, rest[:min(len(rest), focus.FocusNodes-len(chosen))]...)
	for i, h := range chosen {
		f := &found{ref: h.NodeRef, focus: i, match: h.Match, step: 1}
		roots = append(roots, h.NodeRef)
		c.items, byKey[h.Key] = append(c.items, f), f
	}
	rk.More = rk.More || len(rk.Hits) > focus.FocusNodes
	var unused []string
	for _, t := range rk.Terms {
		if !t.Used && t.Nodes > 0 {
			unused = append(unused, t.Term)
		}
	}
	switch {
	case rk.Mode == "too_common":
		c.gaps = append(c.gaps, Gap{Kind: GapIncomplete, Limit: LimitWork, Step: 1, Count: lexicalScoreBudget,
			Detail: fmt.Sprintf("every term of the task is in more than %d nodes, and so are the nodes holding them all: too common to rank; name focus_node_id or use rarer words", lexicalScoreBudget)})
	case len(unused) > 0 && rk.Mode == "any":
		c.gaps = append(c.gaps, Gap{Kind: GapIncomplete, Limit: LimitWork, Step: 1, Count: len(unused),
			Detail: fmt.Sprintf("the focus was ranked on the task's rarer terms; %s matched too many nodes to rank within %d and were left out (focus_terms has the counts)", strings.Join(unused, ", "), lexicalScoreBudget)})
	}
	if len(rk.Hits) == 0 {
		return nil, nil // collect says why, once history had its say
	}
	if rk.More {
		c.gaps = append(c.gaps, Gap{Kind: GapIncomplete, Limit: LimitResult, Step: 1, Count: len(rk.Hits),
			Detail: fmt.Sprintf("more nodes match than the %d focus nodes; name focus_node_id to choose", focus.FocusNodes)})
	}
	return roots, nil
}
