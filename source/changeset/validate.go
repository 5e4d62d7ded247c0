package changeset

import (
	"encoding/json"
	"path"
	"slices"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
)

// Report is the result of checking one changeset against the current sources.
type Report struct {
	ChangesetID string      `json:"changeset_id"`
	Hash        string      `json:"changeset_hash"`
	Status      string      `json:"status"`
	Valid       bool        `json:"valid"`
	Errors      int         `json:"errors"`
	Warnings    int         `json:"warnings"`
	Stale       []StaleNode `json:"stale"`
	Conflicts   []Conflict  `json:"conflicts"`
	// Problems are the operations' own problems, then the problems the projected graph has
	// that the current one does not.
	Problems []problem.Problem `json:"problems"`
	// BaseErrors counts errors the project already has without the changeset.
	BaseErrors int      `json:"base_errors"`
	Paths      []string `json:"paths"`
}

// Conflict is another open changeset touching the same nodes or files.
type Conflict struct {
	ChangesetID string   `json:"changeset_id"`
	Status      string   `json:"status"`
	Nodes       []string `json:"nodes,omitempty"`
	Paths       []string `json:"paths,omitempty"`
}

// Checked is a changeset projected and validated: the report plus what diff and preview need.
type Checked struct {
	Report     *Report
	Projection *Projection
	Changeset  *Changeset // the checked document (with captured hashes when capturing)
	after      map[string]*graph.Fragment
}

// Check projects cs onto the sources and validates the result; others are the stored
// changesets, for conflicts. cs is not modified unless capture is set.
func (s *Sources) Check(cs *Changeset, others []*Record, capture bool) *Checked {
	if !capture {
		cs = clone(cs)
	}
	proj := s.Project(cs, capture)
	after := map[string]*graph.Fragment{}
	for _, rel := range proj.Paths {
		after[rel] = nil
		if data, ok := proj.Overlay.Files[rel]; ok {
			format, _ := source.ContentFormat(s.d, rel)
			after[rel] = source.Parse(s.d, rel, format, data)
		}
	}
	rep := &Report{ChangesetID: cs.ID, Stale: proj.Stale, Paths: proj.Paths, BaseErrors: s.Errors(),
		Problems: slices.Clone(proj.Problems), Conflicts: []Conflict{}}
	if rep.Stale == nil {
		rep.Stale = []StaleNode{}
	}
	rep.Problems = append(rep.Problems, subtract(s.check(after), s.problems)...)
	for _, p := range rep.Problems {
		if p.Severity == problem.SeverityError {
			rep.Errors++
		} else {
			rep.Warnings++
		}
	}
	mine := s.touches(cs)
	for _, o := range others {
		if o.Changeset.ID == cs.ID || !Open(o.Status) {
			continue
		}
		theirs := s.touches(o.Changeset)
		c := Conflict{ChangesetID: o.Changeset.ID, Status: o.Status, Nodes: intersect(mine.nodes, theirs.nodes), Paths: intersect(mine.paths, theirs.paths)}
		if len(c.Nodes)+len(c.Paths) > 0 {
			rep.Conflicts = append(rep.Conflicts, c)
		}
	}
	rep.Valid = rep.Errors == 0 && len(rep.Stale) == 0 && len(rep.Conflicts) == 0
	return &Checked{Report: rep, Projection: proj, Changeset: cs, after: after}
}

func clone(cs *Changeset) *Changeset {
	data, _ := json.Marshal(cs)
	var c Changeset
	_ = json.Unmarshal(data, &c)
	return &c
}

// touched is what a changeset claims: its nodes, and the Markdown files it writes (a record
// file holds many nodes, so two changesets may edit different records of one file).
type touched struct{ nodes, paths []string }

func (s *Sources) touches(cs *Changeset) touched {
	t := touched{nodes: cs.Touches()}
	for _, op := range cs.Operations {
		if path.Ext(op.Path) == ".md" {
			t.paths = append(t.paths, op.Path)
		}
		if at, ok := s.nodes[op.NodeID]; ok && path.Ext(at.path) == ".md" {
			t.paths = append(t.paths, at.path)
		}
	}
	slices.Sort(t.paths)
	t.paths = slices.Compact(t.paths)
	return t
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

// subtract returns the problems of all that base does not have (as a multiset).
func subtract(all, base []problem.Problem) []problem.Problem {
	seen := map[string]int{}
	for _, p := range base {
		seen[p.String()+"\x00"+p.NodeID]++
	}
	var out []problem.Problem
	for _, p := range all {
		k := p.String() + "\x00" + p.NodeID
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, p)
	}
	return out
}
