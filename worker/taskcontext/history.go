package taskcontext

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/history"
)

// History constants (docs/task-context.md, "History").
const (
	// historyCommits is how many commits, best first, the task's words choose by message.
	historyCommits = 30
	// historyFiles is how many files, best first by their commits, may bring nodes the words
	// and the graph did not reach into the collection; historyNodes is how many of a file's.
	historyFiles = 20
	historyNodes = 3
	// historyWeight is the weight of a file's history relevance in an item's score, beside
	// the focus score (1), graph proximity and file relevance.
	historyWeight = 0.5
	// itemCommits is how many commits an item names as provenance; the items of the first
	// commitFiles files in rank order are given them (the files whose source is quoted: every
	// commit cited costs room another file's content could have).
	itemCommits = 2
	commitFiles = quotedFiles
)

// historyFocus scores files by the commits whose messages best match the task's terms: a
// commit weighs its relevance (scaled to the best) squared, divided among what it touched, a
// commit of many files saying less of each. Of the best historyFiles files holding nodes, the
// declarations the commits changed (else the file's first node) join the collection.
func (c *collection) historyFocus(ctx context.Context, snap *index.Snapshot, hist *history.Store, terms []string, byKey map[int64]*found) error {
	commits, err := hist.Relevant(ctx, terms, historyCommits)
	if err != nil || len(commits) == 0 {
		return err
	}
	c.hist = map[string]float64{}
	c.relevant = map[string]float64{}
	seqs := make([]int64, len(commits))
	for i, cm := range commits {
		seqs[i] = cm.Seq
	}
	touched, err := hist.Touched(ctx, seqs)
	if err != nil {
		return err
	}
	spans := map[string][]history.Touch{}
	best := commits[0].Score
	for _, cm := range commits {
		w := cm.Score / best
		c.relevant[cm.Hash] = w
		w *= w // the best commits say much more than the thirtieth
		w /= 1 + math.Log(float64(max(cm.Files, 1)))
		seen := map[string]bool{}
		for _, t := range touched[cm.Seq] {
			spans[t.Path] = append(spans[t.Path], t)
			if !seen[t.Path] {
				seen[t.Path] = true
				c.hist[t.Path] += w
			}
		}
	}
	files := make([]string, 0, len(c.hist))
	for p := range c.hist {
		files = append(files, p)
	}
	slices.SortFunc(files, func(a, b string) int {
		if d := c.hist[b] - c.hist[a]; d != 0 {
			return int(math.Copysign(1, d))
		}
		return strings.Compare(a, b)
	})
	added := 0
	for _, p := range files {
		if added == historyFiles {
			break
		}
		nodes, err := snap.NodesAt(ctx, p)
		if err != nil {
			return err
		}
		if len(nodes) == 0 {
			continue // not in the graph: removed since, or outside its roots
		}
		added++
		for _, n := range changedNodes(nodes, spans[p]) {
			if _, ok := byKey[n.Key]; ok {
				continue
			}
			f := &found{ref: n.NodeRef, focus: -1, match: "history", step: 1}
			c.items, byKey[n.Key] = append(c.items, f), f
		}
	}
	return nil
}

// changedNodes are the declarations of a file (nodes in line order) that the spans changed,
// most changed first, at most historyNodes; failing any, the file's first node.
func changedNodes(nodes []index.Span, spans []history.Touch) []index.Span {
	hits := map[int]int{}
	for i, n := range nodes {
		if n.EndLine == 0 {
			continue
		}
		for _, t := range spans {
			if t.First > 0 && t.First <= n.EndLine && t.Last >= n.Line {
				hits[i]++
			}
		}
	}
	var out []int
	for i := range hits {
		out = append(out, i)
	}
	// The innermost first among equals: a method before the type holding it.
	slices.SortFunc(out, func(a, b int) int {
		if hits[a] != hits[b] {
			return hits[b] - hits[a]
		}
		return (nodes[a].EndLine - nodes[a].Line) - (nodes[b].EndLine - nodes[b].Line)
	})
	if len(out) == 0 {
		return nodes[:1]
	}
	var res []index.Span
	for _, i := range out[:min(len(out), historyNodes)] {
		res = append(res, nodes[i])
	}
	return res
}

// attachCommits gives the items of the first files the commits that changed them as
// provenance: those the task's words chose first, then the newest.
func (c *collection) attachCommits(ctx context.Context, hist *history.Store) error {
	var paths []string
	var top []*found
	for _, f := range c.items {
		p := f.rec.SourcePath
		if p == "" {
			continue
		}
		if !slices.Contains(paths, p) {
			if len(paths) == commitFiles {
				continue
			}
			paths = append(paths, p)
		}
		top = append(top, f)
	}
	changes, err := hist.Changes(ctx, paths)
	if err != nil {
		return err
	}
	for _, f := range top {
		var cs []history.Commit
		for _, ch := range changes[f.rec.SourcePath] {
			// A declaration: the commits that changed its lines; a file or a document: any.
			hit := f.rec.EndLine == 0 || ch.First == 0 || ch.First <= f.rec.EndLine && ch.Last >= f.rec.Line
			if hit && (len(cs) == 0 || cs[len(cs)-1].Hash != ch.Hash) {
				cs = append(cs, ch.Commit)
			}
		}
		slices.SortStableFunc(cs, func(a, b history.Commit) int {
			ra, rb := c.relevant[a.Hash], c.relevant[b.Hash]
			switch {
			case ra > rb:
				return -1
			case ra < rb:
				return 1
			}
			return 0
		})
		f.commits = cs[:min(len(cs), itemCommits)]
	}
	return nil
}
