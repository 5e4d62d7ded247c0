package source

import (
	"slices"

	"github.com/docforge/docforge/index/graph"
	"github.com/docforge/docforge/index/problem"
)

// Checker applies the cross-file rules to fragments fed to it in any order: node IDs are
// unique, and every relation target exists. It keeps only IDs and edges, never bodies, so a
// large project can stream through it.
type Checker struct {
	ids   map[string]problem.Location // first definition of each ID
	dups  map[string][]problem.Location
	edges []graph.EdgeAt
	// External reports whether an ID not defined by any fragment exists elsewhere (for
	// example in an index the fragments are a delta against). It may be nil.
	External func(id string) bool
}

// NewChecker returns an empty checker.
func NewChecker() *Checker {
	return &Checker{ids: map[string]problem.Location{}, dups: map[string][]problem.Location{}}
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
	}
	c.edges = append(c.edges, f.Edges...)
}

// Edges returns every edge added, in the order of addition.
func (c *Checker) Edges() []graph.EdgeAt { return c.edges }

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
	for _, e := range c.edges {
		if c.Has(e.Target) || (c.External != nil && c.External(e.Target)) {
			continue
		}
		p := problem.New(problem.DanglingTarget, e.At, "node %s: %s target %q does not exist", e.Source, e.Relation, e.Target)
		if len(e.Target) > len(graph.CodePrefix) && e.Target[:len(graph.CodePrefix)] == graph.CodePrefix {
			p.Remediation = "code nodes exist only for Go declarations under [sources].code_roots; check the import path and name, or declare the code root"
		}
		p.NodeID = e.Source
		out = append(out, p)
	}
	return out
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
