package web

import (
	"context"
	"net/http"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/index"
)

// Neighborhood bounds: the page lays out at most maxFlowNodes nodes at once.
const (
	defaultNeighborhoodDepth = 1
	maxNeighborhoodDepth     = 3
)

// Card is what the page draws for a node: enough to label, colour and group it without
// another request. The full node (body, every relation) comes from /api/node.
type Card struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Kind       string   `json:"kind"`
	Family     string   `json:"family"`
	Status     string   `json:"status,omitempty"`
	Language   string   `json:"language,omitempty"`
	Tags       []string `json:"tags"`
	SourcePath string   `json:"source_path"`
	Anchor     string   `json:"anchor,omitempty"`
	Line       int      `json:"line,omitempty"`
	Depth      int      `json:"depth"`
	// Branch marks a direct member or execution dependency of the focus in Web: shown next to
	// the focus, never expanded.
	Branch bool `json:"branch,omitempty"`
}

// GraphEdge is one stored relation between two listed nodes, in its stored direction.
type GraphEdge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Relation string `json:"relation"`
	Category string `json:"category"`
	// Review is the relation's review state, as in FlowEdge.
	Review string `json:"review,omitempty"`
}

// NeighborhoodResult is the bounded breadth-first neighbourhood of a focus node, both ways
// over every relation.
type NeighborhoodResult struct {
	Focus       string      `json:"focus"`
	Nodes       []Card      `json:"nodes"`
	Edges       []GraphEdge `json:"edges"`
	Depth       int         `json:"depth"`
	Examined    int         `json:"examined_edges"`
	Truncated   bool        `json:"truncated"`
	TruncatedBy string      `json:"truncated_by,omitempty"` // "node_limit" or "work_budget"
}

// cards hydrates refs into cards, in order; depth[i] and branch[i] are copied through.
func cards(ctx context.Context, snap *index.Snapshot, refs []index.NodeRef, depth []int, branch []bool) ([]Card, error) {
	hs, err := snap.Hydrate(ctx, refs, func(int) int { return 0 })
	if err != nil {
		return nil, err
	}
	out := make([]Card, len(hs))
	for i, h := range hs {
		tags := h.Tags
		if tags == nil {
			tags = []string{}
		}
		out[i] = Card{ID: h.ID, Title: h.Title, Kind: h.Kind, Family: h.Family, Status: h.Status, Language: h.Language, Tags: tags,
			SourcePath: h.SourcePath, Anchor: h.Anchor, Line: h.Line, Depth: depth[i], Branch: branch != nil && branch[i]}
	}
	return out, nil
}

// neighborhood walks out from the focus level by level over every relation, both ways, until
// depth, maxFlowNodes nodes or the edge budget. Edges are those met while expanding, between
// listed nodes, so the last level's edges among themselves are not drawn.
func neighborhood(ctx context.Context, snap *index.Snapshot, focus string, depth, limit int) (*NeighborhoodResult, error) {
	refs, err := snap.Resolve(ctx, []string{focus})
	if err != nil {
		return nil, err
	}
	vocab, err := snap.RelationNames(ctx)
	if err != nil {
		return nil, err
	}
	out := &NeighborhoodResult{Focus: focus, Edges: []GraphEdge{}, Depth: depth}
	nodes, depths := []index.NodeRef{refs[0]}, []int{0}
	seen := map[int64]bool{refs[0].Key: true}
	type key struct {
		from, to int64
		rel      string
	}
	drawn := map[key]bool{}
	var pending []index.Hop // hops whose far end may still be admitted
	level := refs
	category := map[string]string{}
walk:
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []index.NodeRef
		for _, outgoing := range []bool{true, false} {
			exp, err := snap.Expand(ctx, level, outgoing, vocab, flowEdgeBudget-out.Examined)
			if err != nil {
				return nil, err
			}
			out.Examined += exp.Examined
			for _, h := range exp.Hops {
				if !seen[h.To.Key] {
					if len(nodes) == limit {
						out.Truncated, out.TruncatedBy = true, "node_limit"
						break walk
					}
					seen[h.To.Key] = true
					nodes, depths = append(nodes, h.To), append(depths, d)
					next = append(next, h.To)
				}
				pending = append(pending, h)
			}
			if exp.Exhausted {
				out.Truncated, out.TruncatedBy = true, "work_budget"
				break walk
			}
		}
		level = next
	}
	for _, h := range pending {
		if !seen[h.To.Key] {
			continue
		}
		e := GraphEdge{From: h.From.ID, To: h.To.ID, Relation: h.Relation, Review: h.Review}
		k := key{h.From.Key, h.To.Key, h.Relation}
		if !h.Outgoing {
			e.From, e.To = e.To, e.From
			k.from, k.to = k.to, k.from
		}
		if drawn[k] {
			continue // met from both ends
		}
		drawn[k] = true
		if _, ok := category[h.Relation]; !ok {
			category[h.Relation] = graph.Category(h.Relation)
		}
		e.Category = category[h.Relation]
		out.Edges = append(out.Edges, e)
	}
	if out.Nodes, err = cards(ctx, snap, nodes, depths, nil); err != nil {
		return nil, err
	}
	return out, nil
}

func (v *Viewer) neighborhood(r *http.Request) (any, error) {
	depth, err := depthParam(r, defaultNeighborhoodDepth, maxNeighborhoodDepth)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit")
	if err != nil {
		return nil, err
	}
	if limit == 0 || limit > maxFlowNodes {
		limit = maxFlowNodes
	}
	return neighborhood(r.Context(), v.snap, r.URL.Query().Get("id"), depth, limit)
}
