package source

import (
	"iter"
	"maps"
	"slices"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/project"
)

// Checker applies the cross-file rules to fragments fed to it in any order: node IDs are
// unique, and every relation target exists. It keeps only IDs and edges, never bodies, so a
// large project can stream through it.
type Checker struct {
	d     *project.Descriptor
	ids   map[string]problem.Location // first definition of each ID
	dups  map[string][]problem.Location
	edges runs[graph.EdgeAt]
	// files and links serve [sources.links]: the nodes of each file, and the links waiting
	// for them. resolved holds the outcome once every fragment is in.
	files    map[string][]FileNode
	links    runs[graph.Link]
	resolved *resolvedLinks
	// declared indexes the code nodes by the names a mention may use, once asked;
	// unexported holds the code nodes declared unexported.
	declared   Declarations
	unexported map[string]bool
	routes     RouteIndex
	// reviews and pairs cache Reviews and relationsByPair until the next Add: a
	// validation asks for them several times.
	reviews []Review
	pairs   map[[2]string][]string
	// nodes are what a review stamp is compared with; stamps are every node's stamps.
	nodes  map[string]stampTarget
	stamps []sourceStamp
	// External reports whether an ID not defined by any fragment exists elsewhere (for
	// example in an index the fragments are a delta against). It may be nil.
	External func(id string) bool
}

type resolvedLinks struct {
	edges    []graph.EdgeAt // the links' edges
	all      []graph.EdgeAt // declared edges, then the links' edges
	problems []problem.Problem
}

// NewChecker returns an empty checker for the project d.
func NewChecker(d *project.Descriptor) *Checker {
	return &Checker{d: d, ids: map[string]problem.Location{}, dups: map[string][]problem.Location{}, files: map[string][]FileNode{},
		nodes: map[string]stampTarget{}, unexported: map[string]bool{}}
}

// Add records a fragment's node IDs and edges.
func (c *Checker) Add(f *graph.Fragment) {
	for _, n := range f.Nodes {
		at := problem.Location{Path: f.Path, Line: n.Line, Column: 1}
		if _, dup := c.ids[n.ID]; dup {
			c.dups[n.ID] = append(c.dups[n.ID], at)
			continue
		}
		c.ids[n.ID] = at
		if IsUnexported(n) {
			c.unexported[n.ID] = true
		}
		c.nodes[n.ID] = stampTarget{hash: n.ContentHash, parts: n.Parts, path: n.SourcePath, line: n.Line}
		for _, st := range n.Stamps {
			c.stamps = append(c.stamps, sourceStamp{source: n.ID, Stamp: st})
		}
	}
	c.edges.add(f.Edges)
	if c.d.Sources.Links.On() && len(f.Nodes) > 0 {
		nodes := make([]FileNode, len(f.Nodes))
		for i, n := range f.Nodes {
			nodes[i] = FileNode{ID: n.ID, Anchor: n.Anchor}
		}
		c.files[f.Path] = nodes
		c.links.add(f.Links)
	}
	c.resolved, c.reviews, c.pairs, c.declared, c.routes = nil, nil, nil, nil, nil
}

// Declared answers a mention from the fragments added so far.
func (c *Checker) Declared(name string) []string {
	if c.declared == nil {
		c.declared = Declarations{}
		for _, id := range slices.Sorted(maps.Keys(c.ids)) {
			c.declared.Add(id)
		}
	}
	return c.declared[name]
}

// Unexported answers from the fragments added so far.
func (c *Checker) Unexported(id string) bool { return c.unexported[id] }

// IsUnexported reports whether a code node is declared unexported, by its capabilities.
func IsUnexported(n graph.Node) bool {
	return graph.IsCode(n.ID) && slices.Contains(n.Capabilities, code.CapUnexported)
}

// NodesIn and Has make the checker the link targets of its own fragments.
func (c *Checker) NodesIn(path string) []FileNode { return c.files[path] }

// Routed answers a route lookup from the fragments added so far.
func (c *Checker) Routed(name string) []string {
	if c.routes == nil {
		c.routes = NewRouteIndex(slices.Collect(maps.Keys(c.files)))
	}
	return c.routes[name]
}

// linkOutcome resolves the links once all fragments are in.
func (c *Checker) linkOutcome() *resolvedLinks {
	if c.resolved == nil {
		edges, probs := ResolveLinks(c.d, c.links.all(), c)
		c.resolved = &resolvedLinks{edges: edges, all: slices.Concat(append(slices.Clip(c.edges.parts), edges)...), problems: probs}
	}
	return c.resolved
}

// EdgeRuns returns Edges in pieces, without joining them: at 100k nodes the join was a fresh
// 48 MB copy.
func (c *Checker) EdgeRuns() [][]graph.EdgeAt {
	out := slices.Clip(c.edges.parts)
	if c.links.len() > 0 {
		out = append(out, c.linkOutcome().edges)
	}
	return out
}

// Edges returns every declared edge in the order of addition, then the edges links resolved
// to.
func (c *Checker) Edges() []graph.EdgeAt {
	if c.links.len() == 0 {
		return c.edges.all()
	}
	return c.linkOutcome().all
}

// Has reports whether a fragment defined id.
func (c *Checker) Has(id string) bool {
	_, ok := c.ids[id]
	return ok
}

// Problems returns the cross-file problems: every place of every duplicate ID (each naming the
// others), and every edge whose target does not exist.
func (c *Checker) Problems() []problem.Problem {
	var out []problem.Problem
	ids := make([]string, 0, len(c.dups))
	for id := range c.dups {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		places := append([]problem.Location{c.ids[id]}, c.dups[id]...)
		for i, at := range places {
			others := slices.Clone(places[:i])
			others = append(others, places[i+1:]...)
			p := problem.New(problem.DuplicateID, at, "node ID %q is defined %d times (also at %s)", id, len(places), joinLocations(others))
			p.NodeID, p.Related = id, others
			out = append(out, p)
		}
	}
	for e := range c.edges.each() {
		if c.Has(e.Target) || (c.External != nil && c.External(e.Target)) {
			continue
		}
		p := problem.New(problem.DanglingTarget, e.At, "node %s: %s target %q does not exist%s", e.Source, e.Relation, e.Target, c.stampedAt(e.Source, e.Target))
		if graph.IsCode(e.Target) {
			p.Remediation = "code nodes exist only for declarations and files under [sources].code_roots; check the path and name, or declare the code root"
		}
		p.NodeID = e.Source
		out = append(out, p)
	}
	if c.links.len() > 0 {
		out = append(out, c.linkOutcome().problems...)
	}
	return append(out, c.reviewProblems()...)
}

func joinLocations(ls []problem.Location) string {
	s := ""
	for i, l := range ls {
		if i > 0 {
			s += ", "
		}
		s += l.String()
	}
	return s
}

// runs gathers the slices of many fragments in chunks and joins them once asked: appending
// each to one slice copied half a million edges over and over, with the collector's write
// barriers, at 100k nodes (docs/benchmarks.md). Copying into chunks, rather than keeping the
// fragments' own slices, keeps none of their spare capacity.
type runs[T any] struct {
	parts [][]T
	n     int
}

const runChunk = 4096

func (r *runs[T]) add(s []T) {
	for len(s) > 0 {
		if k := len(r.parts); k == 0 || len(r.parts[k-1]) == cap(r.parts[k-1]) {
			r.parts = append(r.parts, make([]T, 0, runChunk))
		}
		last := &r.parts[len(r.parts)-1]
		n := min(len(s), cap(*last)-len(*last))
		*last = append(*last, s[:n]...)
		s = s[n:]
		r.n += n
	}
}

func (r *runs[T]) len() int { return r.n }

// each yields every element in the order added, without joining the chunks.
func (r *runs[T]) each() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for _, part := range r.parts {
			for i := range part {
				if !yield(&part[i]) {
					return
				}
			}
		}
	}
}

// all returns every element in the order added. The caller must not append to it.
func (r *runs[T]) all() []T {
	if len(r.parts) > 1 {
		r.parts = [][]T{slices.Concat(r.parts...)}
	}
	if len(r.parts) == 0 {
		return nil
	}
	return r.parts[0]
}
