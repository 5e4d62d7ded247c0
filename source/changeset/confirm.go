package changeset

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
)

// ConfirmOptions say which stamps a confirmation writes. Relations never reviewed are always
// stamped.
type ConfirmOptions struct {
	// Suspect re-stamps relations whose target changed since their stamp (a person's review
	// of the node); without it they stay suspect.
	Suspect bool
	// Drop removes stamps that name no relation of their node.
	Drop bool
	// DryRun plans and checks the edit but writes nothing.
	DryRun bool
}

// Confirmation is what a confirmation did (or, dry, would do) to one node's stamps.
type Confirmation struct {
	NodeID string `json:"node_id"`
	Path   string `json:"path"`
	// Stamped are the targets stamped now: never reviewed before, suspect, or moved.
	Stamped []string `json:"stamped"`
	// Unchanged counts the stamps that already matched their target.
	Unchanged int `json:"unchanged"`
	// Suspect are stamped targets that changed and were left suspect (without Suspect).
	Suspect []string `json:"suspect,omitempty"`
	// Dropped are stamps naming no relation of the node, removed (with Drop).
	Dropped []string `json:"dropped,omitempty"`
	// Dangling are relation targets that do not exist: nothing to confirm.
	Dangling []string `json:"dangling,omitempty"`
	// Unstampable says why the node was left unstamped: a Markdown file without front
	// matter has no place for stamps, and stamping it would rewrite it into one (a README
	// that GitHub would then show with a metadata block).
	Unstampable string `json:"unstampable,omitempty"`
}

// Changed reports whether the confirmation rewrites the node's stamps.
func (c Confirmation) Changed() bool { return len(c.Stamped)+len(c.Dropped) > 0 }

// Confirm stamps the relations of the nodes ids (every document node with relations or
// stamps when ids is empty) with their targets as they are now, and writes each changed file
// atomically under the store lock, so it never interleaves with an applied changeset.
func (k *Desk) Confirm(ctx context.Context, ids []string, opt ConfirmOptions) ([]Confirmation, error) {
	var out []Confirmation
	err := k.locked(ctx, func(src *Sources, _ []*Record) error {
		var err error
		out, err = src.confirm(ids, opt)
		return err
	})
	return out, err
}

func (s *Sources) confirm(ids []string, opt ConfirmOptions) ([]Confirmation, error) {
	targets := s.relationTargets()
	explicit := len(ids) > 0
	if len(ids) == 0 {
		ids = s.reviewable(targets)
	}
	var out []Confirmation
	byPath := map[string]map[string][]graph.Stamp{}
	var paths []string
	for _, id := range ids {
		at, ok := s.nodes[id]
		switch {
		case !ok:
			return nil, problem.Errorf(problem.NodeNotFound, "no node %q exists; check the ID with 'docforge search'", id)
		case graph.IsCode(id):
			return nil, problem.Errorf(problem.InvalidArgument, "%s is a code node: its relations come from the code and carry no stamps; review the documents that point at it ('docforge backlinks %s')", id, id)
		}
		if !s.hasFrontMatter(at.path) {
			if explicit {
				return nil, problem.Errorf(problem.InvalidArgument, "%s (%s) has no front matter to hold review stamps; add a +++ block (its TOML keys may be empty) and review it again", id, at.path)
			}
			out = append(out, Confirmation{NodeID: id, Path: at.path, Stamped: []string{}, Unstampable: "no front matter"})
			continue
		}
		stamps, c := s.confirmNode(at.node, targets[id], opt)
		c.Path = at.path
		out = append(out, c)
		if !c.Changed() {
			continue
		}
		if byPath[at.path] == nil {
			byPath[at.path] = map[string][]graph.Stamp{}
			paths = append(paths, at.path)
		}
		byPath[at.path][id] = stamps
	}
	var writes []stampWrite
	for _, rel := range paths {
		w, err := s.stampedFile(rel, byPath[rel])
		if err != nil {
			return nil, err
		}
		writes = append(writes, w)
	}
	if opt.DryRun {
		return out, nil
	}
	for _, w := range writes {
		if err := s.writeStamped(w.rel, w.before, w.after); err != nil {
			return out, err
		}
	}
	return out, nil
}

// reviewable are the documents a confirmation of everything reviews: those with relations
// or stamps, in source order, each at its own file.
func (s *Sources) reviewable(targets map[string][]string) []string {
	var ids []string
	for _, rel := range s.order {
		for _, n := range s.frags[rel].Nodes {
			if !graph.IsCode(n.ID) && (len(targets[n.ID]) > 0 || len(n.Stamps) > 0) && s.nodes[n.ID].path == rel {
				ids = append(ids, n.ID)
			}
		}
	}
	return ids
}

// stampWrite is one file's text before and after its stamps change.
type stampWrite struct{ rel, before, after string }

// stampedFile is the file at rel with its nodes' stamps set, checked to change nothing else.
func (s *Sources) stampedFile(rel string, stamps map[string][]graph.Stamp) (stampWrite, error) {
	before, ok, err := s.readFile(rel)
	if err != nil {
		return stampWrite{}, err
	}
	if !ok {
		return stampWrite{}, problem.Errorf(problem.NodeNotFound, "%s no longer exists; run the command again", rel)
	}
	after := before
	for _, id := range sortedKeys(stamps) {
		if after, err = setStamps(rel, after, id, stamps[id]); err != nil {
			return stampWrite{}, err
		}
	}
	// The loaded fragment is before's parse; were the file changed since, the check would
	// see other nodes or hashes and refuse.
	if err := s.checkStampEdit(rel, before, after, s.frags[rel], stamps); err != nil {
		return stampWrite{}, err
	}
	return stampWrite{rel, before, after}, nil
}

// hasFrontMatter reports whether the file at rel can hold stamps: a record file always, a
// Markdown file when it opens with a +++ or --- block.
func (s *Sources) hasFrontMatter(rel string) bool {
	if ext := strings.ToLower(path.Ext(rel)); ext != ".md" && ext != ".markdown" {
		return true
	}
	text, ok, err := s.readFile(rel)
	if err != nil || !ok {
		return true // the write reports it
	}
	text = strings.TrimPrefix(text, "\uFEFF")
	return strings.HasPrefix(text, "+++") || strings.HasPrefix(text, "---")
}

// writeStamped replaces one content file, unless it changed since it was read: a person's
// edit in between wins, and the command says to run again.
func (s *Sources) writeStamped(rel, before, after string) error {
	abs, err := s.contentPath(rel)
	if err != nil {
		return err
	}
	now, err := readLimited(abs, s.d.Limits.MaxFileBytes)
	if err != nil {
		return fmt.Errorf("stamp %s: %w", rel, err)
	}
	if string(now) != before {
		return problem.Errorf(problem.SourceChanged, "%s changed while its stamps were being written; nothing was written to it: run the command again", rel)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("stamp %s: %w", rel, err)
	}
	if err := safefile.WriteFile(abs, []byte(after), info.Mode().Perm()); err != nil {
		return fmt.Errorf("stamp %s: %w", rel, err)
	}
	return nil
}

// confirmNode decides n's stamps: one per existing target of its relations.
func (s *Sources) confirmNode(n *graph.Node, targets []string, opt ConfirmOptions) ([]graph.Stamp, Confirmation) {
	c := Confirmation{NodeID: n.ID, Stamped: []string{}}
	old := map[string]graph.Stamp{}
	for _, st := range n.Stamps {
		old[st.Target] = st
	}
	var stamps []graph.Stamp
	for _, t := range targets {
		at, ok := s.nodes[t]
		if !ok {
			c.Dangling = append(c.Dangling, t)
			if st, had := old[t]; had {
				stamps = append(stamps, st) // it says what the target was; the dangling error quotes it
			}
			continue
		}
		now := graph.StampOf(at.node)
		st, had := old[t]
		switch {
		case had && st.Text() == now.Text():
			c.Unchanged++
			stamps = append(stamps, st)
		case had && st.Hash != now.Hash && !opt.Suspect:
			c.Suspect = append(c.Suspect, t)
			stamps = append(stamps, st)
		default:
			c.Stamped = append(c.Stamped, t)
			stamps = append(stamps, now)
		}
	}
	for _, st := range n.Stamps {
		if slices.Contains(targets, st.Target) {
			continue
		}
		if opt.Drop {
			c.Dropped = append(c.Dropped, st.Target)
		} else {
			stamps = append(stamps, st)
		}
	}
	return stamps, c
}

// relationTargets lists, per source node, the distinct targets of its relations, declared
// and made by links, in order.
func (s *Sources) relationTargets() map[string][]string {
	out := map[string][]string{}
	for _, e := range s.edges {
		if !slices.Contains(out[e.Source], e.Target) {
			out[e.Source] = append(out[e.Source], e.Target)
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}
