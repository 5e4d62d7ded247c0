package changeset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
)

// Change is what a changeset does to one node, for a reviewer.
type Change struct {
	NodeID     string `json:"node_id"`
	Change     string `json:"change"` // created, updated, moved, deleted
	PathBefore string `json:"path_before,omitempty"`
	PathAfter  string `json:"path_after,omitempty"`
	HashBefore string `json:"content_hash_before,omitempty"`
	HashAfter  string `json:"content_hash_after,omitempty"`
	// FrontMatterDiff and BodyDiff are unified diffs of the node's fields (in front-matter
	// form, relations included) and of its body.
	FrontMatterDiff  string       `json:"front_matter_diff"`
	BodyDiff         string       `json:"body_diff"`
	RelationsAdded   []graph.Edge `json:"relations_added"`
	RelationsRemoved []graph.Edge `json:"relations_removed"`
}

// Changes lists the per-node changes of a checked changeset, in the order the operations
// first touch each node.
func (s *Sources) Changes(c *Checked) []Change {
	var out []Change
	for _, id := range firstTouches(c.Changeset) {
		before, beforeEdges, pathBefore := s.baseNode(id)
		after, afterEdges, pathAfter := c.afterNode(id)
		ch := Change{NodeID: id, PathBefore: pathBefore, PathAfter: pathAfter, RelationsAdded: []graph.Edge{}, RelationsRemoved: []graph.Edge{}}
		switch {
		case before == nil && after == nil:
			continue // created and deleted again, or an operation that failed
		case before == nil:
			ch.Change = "created"
		case after == nil:
			ch.Change = "deleted"
		case pathBefore != pathAfter:
			ch.Change = "moved"
		default:
			ch.Change = "updated"
		}
		var fmBefore, fmAfter, bodyBefore, bodyAfter string
		if before != nil {
			ch.HashBefore, fmBefore, bodyBefore = before.ContentHash, fieldsText(before, beforeEdges), before.Body
		}
		if after != nil {
			ch.HashAfter, fmAfter, bodyAfter = after.ContentHash, fieldsText(after, afterEdges), after.Body
		}
		ch.FrontMatterDiff = Unified(pathBefore+" (fields)", pathAfter+" (fields)", fmBefore, fmAfter)
		ch.BodyDiff = Unified(pathBefore+" (body)", pathAfter+" (body)", bodyBefore, bodyAfter)
		for _, e := range afterEdges {
			if !slices.Contains(beforeEdges, e) {
				ch.RelationsAdded = append(ch.RelationsAdded, e)
			}
		}
		for _, e := range beforeEdges {
			if !slices.Contains(afterEdges, e) {
				ch.RelationsRemoved = append(ch.RelationsRemoved, e)
			}
		}
		out = append(out, ch)
	}
	return out
}

func firstTouches(cs *Changeset) []string {
	var ids []string
	for _, op := range cs.Operations {
		if !slices.Contains(ids, op.NodeID) {
			ids = append(ids, op.NodeID)
		}
	}
	return ids
}

func (s *Sources) baseNode(id string) (*graph.Node, []graph.Edge, string) {
	at, ok := s.nodes[id]
	if !ok {
		return nil, nil, ""
	}
	return at.node, edgesOf(s.frags[at.path], id), at.path
}

func (c *Checked) afterNode(id string) (*graph.Node, []graph.Edge, string) {
	if rel, ok := c.Projection.where[id]; ok && rel == "" {
		return nil, nil, ""
	}
	for _, rel := range c.Projection.Paths {
		f := c.after[rel]
		if f == nil {
			continue
		}
		for i := range f.Nodes {
			if f.Nodes[i].ID == id {
				return &f.Nodes[i], edgesOf(f, id), rel
			}
		}
	}
	return nil, nil, ""
}

func edgesOf(f *graph.Fragment, id string) []graph.Edge {
	var out []graph.Edge
	for _, e := range f.Edges {
		if e.Source == id {
			out = append(out, e.Edge)
		}
	}
	slices.SortFunc(out, graph.Edge.Compare)
	return slices.Compact(out)
}

// fieldsText renders a node's fields and relations in front-matter form, one per line, so
// that a diff of two versions shows exactly the fields that changed.
func fieldsText(n *graph.Node, edges []graph.Edge) string {
	var b strings.Builder
	for _, kv := range [][2]string{{"id", n.ID}, {"kind", n.Kind}, {"family", n.Family}, {"title", n.Title},
		{"status", n.Status}, {"authority", n.Authority}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], tomlString(kv[1]))
		}
	}
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, "tags = %s\n", tomlArray(n.Tags))
	}
	rels := map[string][]string{}
	for _, e := range edges {
		rels[e.Relation] = append(rels[e.Relation], e.Target)
	}
	if len(rels) > 0 {
		b.WriteString("[relations]\n")
		for _, r := range sortedKeys(rels) {
			fmt.Fprintf(&b, "%s = %s\n", r, tomlArray(rels[r]))
		}
	}
	if len(n.Stamps) > 0 {
		b.WriteString("[stamps]\n")
		for _, st := range sortedStamps(n.Stamps) {
			fmt.Fprintf(&b, "%s = %s\n", tomlString(st.Target), tomlString(st.Text()))
		}
	}
	return b.String()
}

// maxEditDistance bounds the diff search; beyond it the changed middle is shown as removed
// and added whole, which is still exact.
const maxEditDistance = 1000

// Unified returns a unified diff (three lines of context) of two texts, "" when equal.
func Unified(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	la, lb := splitLines(a), splitLines(b)
	ops := diffLines(la, lb)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aLen, bLen := 0, 0, 0, 0
		for _, o := range ops[:start] {
			if o.kind != '+' {
				aStart++
			}
			if o.kind != '-' {
				bStart++
			}
		}
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aLen++
			}
			if o.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits text into lines that keep their newline.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

type lineOp struct {
	kind byte // ' ', '-', '+'
	text string
}

// diffLines is Myers' greedy shortest edit script over the lines between the common prefix
// and suffix.
func diffLines(a, b []string) []lineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for _, l := range a[:pre] {
		ops = append(ops, lineOp{' ', l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	whole := func() []lineOp {
		var ops []lineOp
		for _, l := range a {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, lineOp{'+', l})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return whole()
	}
	limit := min(n+m, maxEditDistance)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return whole()
	}
	// Walk the trace back from (n, m).
	var rev []lineOp
	x, y := n, m
	for d := found; d > 0; d-- {
		vd := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && vd[off+k-1] < vd[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := vd[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, lineOp{' ', a[x-1]})
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, lineOp{'+', b[y-1]})
		} else {
			rev = append(rev, lineOp{'-', a[x-1]})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, lineOp{' ', a[x-1]})
		x, y = x-1, y-1
	}
	slices.Reverse(rev)
	return rev
}
