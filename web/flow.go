package web

import (
	"context"
	"net/http"
	"slices"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/index"
)

// Flow and Web bounds.
const (
	defaultFlowDepth = 3
	maxFlowDepth     = 6
	maxFlowNodes     = 300
	flowEdgeBudget   = 20000
)

// flowsForward reports whether a relation's meaning runs from its stored source to its
// stored target: a container into its members, a caller into its callee, a writer into the
// data, a requirement into what it governs. The others run backwards: a dependency flows into
// its dependent (A depends_on B: B into A), a specification into its implementation (B
// implements A: A into B), data into its reader, a test into its subject (A tested_by T).
// Relations outside the alias map keep their stored direction.
func flowsForward(relation string) bool {
	switch relation {
	case "defined_in", "depends_on", "imports", "implements", "inherits", "inherits_from", "reads", "tested_by":
		return false
	}
	return true
}

// FlowEdge is an edge oriented by meaning: From flows into To. Stored says whether that is
// also its stored direction.
type FlowEdge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Relation string `json:"relation"`
	Category string `json:"category"`
	Stored   bool   `json:"stored_direction"`
	// Review is "suspect" when the target changed since a person confirmed the relation,
	// "confirmed" when it has not, empty when it was never reviewed.
	Review string `json:"review,omitempty"`
}

// FlowResult is the bounded answer of Flow and Web.
type FlowResult struct {
	Focus       string     `json:"focus"`
	View        string     `json:"view"`
	Nodes       []Card     `json:"nodes"`
	Edges       []FlowEdge `json:"edges"`
	Depth       int        `json:"depth"`
	Truncated   bool       `json:"truncated"`
	TruncatedBy string     `json:"truncated_by,omitempty"` // "node_limit" or "work_budget"
}

// webCategories are what Web follows into the focus.
func webCategories() []string {
	return []string{graph.Structure, graph.Dependency, graph.Execution, graph.Evidence, graph.Context}
}

// contributors walks from the focus against the flow: level by level, the nodes that flow
// into the nodes already reached, over relations of the given categories (all when nil).
func contributors(ctx context.Context, snap *index.Snapshot, focus string, categories []string, depth int, view string) (*FlowResult, error) {
	refs, err := snap.Resolve(ctx, []string{focus})
	if err != nil {
		return nil, err
	}
	vocab, err := snap.RelationNames(ctx)
	if err != nil {
		return nil, err
	}
	category, rels := flowRelations(vocab, categories)
	out := &FlowResult{Focus: focus, View: view, Edges: []FlowEdge{}, Depth: depth}
	nodes, depths, branches := []index.NodeRef{refs[0]}, []int{0}, []bool{false}
	seen := map[int64]bool{refs[0].Key: true}
	edges := map[FlowEdge]bool{}
	addEdge := func(h index.Hop) {
		e := FlowEdge{From: h.To.ID, To: h.From.ID, Relation: h.Relation, Category: category[h.Relation], Stored: !h.Outgoing, Review: h.Review}
		if h.Outgoing == flowsForward(h.Relation) { // the far end is downstream: flip
			e.From, e.To, e.Stored = h.From.ID, h.To.ID, h.Outgoing
		}
		if !edges[e] {
			edges[e] = true
			out.Edges = append(out.Edges, e)
		}
	}
	examined := 0
	level := refs
walk:
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []index.NodeRef
		for _, outgoing := range []bool{true, false} {
			exp, err := snap.Expand(ctx, level, outgoing, rels, flowEdgeBudget-examined)
			if err != nil {
				return nil, err
			}
			examined += exp.Examined
			for _, h := range exp.Hops {
				joins, branch := contributes(h, category[h.Relation], view, d)
				if !joins {
					continue
				}
				if !seen[h.To.Key] {
					if len(nodes) == maxFlowNodes {
						out.Truncated, out.TruncatedBy = true, "node_limit"
						break walk
					}
					seen[h.To.Key] = true
					nodes, depths, branches = append(nodes, h.To), append(depths, d), append(branches, branch)
					if !branch {
						next = append(next, h.To)
					}
				}
				addEdge(h)
			}
			if exp.Exhausted {
				out.Truncated, out.TruncatedBy = true, "work_budget"
				break walk
			}
		}
		level = next
	}
	if out.Nodes, err = cards(ctx, snap, nodes, depths, branches); err != nil {
		return nil, err
	}
	return out, nil
}

// flowRelations are the vocabulary's relations of the given categories (all when nil), and
// the category of each relation, found once: Category builds the alias map per call.
func flowRelations(vocab, categories []string) (map[string]string, []string) {
	category := map[string]string{}
	var rels []string
	for _, r := range vocab {
		category[r] = graph.Category(r)
		if categories == nil || slices.Contains(categories, category[r]) {
			rels = append(rels, r)
		}
	}
	return category, rels
}

// contributes reports whether a hop's far end joins the flow at depth d: when meaning flows
// from it into the near end; and, in Web, the focus's own members and callees, shown beside
// it as branches that are not expanded.
func contributes(h index.Hop, category, view string, d int) (joins, branch bool) {
	if flowsForward(h.Relation) != h.Outgoing {
		return true, false
	}
	branch = view == "web" && d == 1 && (category == graph.Structure || category == graph.Execution)
	return branch, branch
}

func (v *Viewer) flow(view string) func(r *http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		depth, err := depthParam(r, defaultFlowDepth, maxFlowDepth)
		if err != nil {
			return nil, err
		}
		var cats []string
		if view == "web" {
			cats = webCategories()
		}
		return contributors(r.Context(), v.snap, r.URL.Query().Get("id"), cats, depth, view)
	}
}
