package worker

import (
	"encoding/json"
	"fmt"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/worker/protocol"
)

// Context evidence bounds. The stream holds at most maxEvidence entries; the neighbours past
// that become omission evidence, so the answer says what it left out.
const (
	maxContextFocus = 10
	maxEvidence     = 200
)

// contextItem is one element of a context stream: selected evidence ("entry") or explicit
// omission evidence ("omission").
type contextItem struct {
	Type        string   `json:"type"`
	NodeID      string   `json:"node_id"`
	Title       string   `json:"title,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Family      string   `json:"family,omitempty"`
	SourcePath  string   `json:"source_path,omitempty"`
	Anchor      string   `json:"anchor,omitempty"`
	ContentHash string   `json:"content_hash,omitempty"`
	Reasons     []string `json:"reasons"`
	Body        string   `json:"body,omitempty"`
	Omitted     string   `json:"omitted,omitempty"` // why an omission item was left out
}

type contextPage struct {
	Focus      []string          `json:"focus"`
	Items      []json.RawMessage `json:"items"`
	Omissions  []Omission        `json:"response_omissions"`
	Pagination Pagination        `json:"pagination"`
}

type contextInput struct {
	NodeID string `json:"node_id,omitempty" jsonschema:"the exact node ID, for example arch.store or go:example.com/m/pkg.Func"`
	Query  string `json:"query,omitempty" jsonschema:"lexical query choosing the focus nodes instead of node_id"`
	pageArgs
}

func runContext(c *call, a contextInput) (any, error) {
	if c.svc.provider != nil {
		return c.providedContext(a.NodeID, a.Query, a.pageArgs)
	}
	var focus []string
	switch {
	case a.NodeID != "" && a.Query != "":
		return nil, problem.Errorf(problem.InvalidArgument, "give node_id or query, not both")
	case a.NodeID != "":
		focus = []string{a.NodeID}
	case a.Query != "":
		hits, err := c.snap.Search(c.ctx, a.Query, maxContextFocus)
		if err != nil {
			return nil, err
		}
		for _, h := range hits.Hits {
			focus = append(focus, h.ID)
		}
	default:
		return nil, problem.Errorf(problem.InvalidArgument, "node_id or query is required")
	}

	var items []contextItem
	at := map[string]int{} // node ID -> index in items
	omitted := map[string]bool{}
	var omissions []contextItem
	add := func(id, reason string) error {
		if i, ok := at[id]; ok {
			items[i].Reasons = append(items[i].Reasons, reason)
			return nil
		}
		if len(items) >= maxEvidence {
			if !omitted[id] {
				omitted[id] = true
				omissions = append(omissions, contextItem{Type: "omission", NodeID: id, Reasons: []string{reason}, Omitted: "evidence limit"})
			}
			return nil
		}
		v, err := c.snap.Get(c.ctx, id)
		if err != nil {
			return err
		}
		at[id] = len(items)
		items = append(items, contextItem{Type: "entry", NodeID: id, Title: v.Title, Kind: v.Kind, Family: v.Family, SourcePath: v.SourcePath,
			Anchor: v.Anchor, ContentHash: v.ContentHash, Reasons: []string{reason}, Body: v.Body})
		return nil
	}
	for _, id := range focus {
		if err := add(id, "focus"); err != nil {
			return nil, err
		}
	}
	// Every neighbour is either an entry or an omission: the lists are read past max_results
	// (up to the evidence ceiling and one more), and what lies past even that is one omission
	// that says how to see the rest.
	for _, id := range focus {
		for _, outgoing := range []bool{true, false} {
			links, err := c.snap.Neighbours(c.ctx, id, outgoing, maxEvidence+1)
			if err != nil {
				return nil, err
			}
			for _, l := range links.Links {
				reason := "incoming " + l.Relation + " to " + id
				if outgoing {
					reason = "outgoing " + l.Relation + " from " + id
				}
				if err := add(l.NodeID, reason); err != nil {
					return nil, err
				}
			}
			if links.Truncated {
				tool := "docforge_backlinks"
				if outgoing {
					tool = "docforge_dependencies"
				}
				omissions = append(omissions, contextItem{Type: "omission", NodeID: id, Omitted: "evidence limit",
					Reasons: []string{fmt.Sprintf("more than %d relations of %s that way; list them with %s", maxEvidence, id, tool)}})
			}
		}
	}
	items = append(items, omissions...)
	return c.contextPage(focus, items, []any{a.NodeID, a.Query, a.Limit}, a.pageArgs)
}

// contextPage pages one context stream: entries first, omission evidence second.
func (c *call) contextPage(focus []string, items []contextItem, params []any, pa pageArgs) (any, error) {
	stream := make([]json.RawMessage, len(items))
	ids := make([]string, len(items))
	keys := make([][2]string, len(items))
	for i, it := range items {
		stream[i], ids[i], keys[i] = protocol.Marshal(it), it.NodeID, [2]string{it.NodeID, it.ContentHash}
	}
	want := c.cursorOf("docforge_get_context", c.env.Revision, pa.Limit, params, hashJSON("context", keys))
	pos, err := resumeAt(pa.Cursor, want)
	if err != nil {
		return nil, err
	}
	if pos > len(stream) {
		return nil, problem.Errorf(problem.InvalidCursor, "cursor position %d is past the %d evidence items", pos, len(stream))
	}
	page := &contextPage{Focus: focus, Items: []json.RawMessage{}, Omissions: []Omission{}}
	p := pack(stream, ids, pos, c.pageLimit(pa.Limit), c.pageBudget(page), omittedForSize)
	page.Items = append(page.Items, p.entries...)
	page.Omissions = append(page.Omissions, p.omissions...)
	page.Pagination = pagination(want, p, len(stream), pos)
	return page, nil
}

// providedContext answers docforge_get_context from the custom context provider's selection.
func (c *call) providedContext(nodeID, query string, pa pageArgs) (any, error) {
	sel, err := c.svc.provider(c.ctx, c.snap, ContextRequest{NodeID: nodeID, Query: query})
	if err != nil {
		return nil, err
	}
	var focus []string
	items := make([]contextItem, 0, len(sel))
	for _, s := range sel {
		v, err := c.snap.Get(c.ctx, s.NodeID)
		if err != nil {
			return nil, fmt.Errorf("context provider chose %s: %w", s.NodeID, err)
		}
		focus = append(focus, s.NodeID)
		items = append(items, contextItem{Type: "entry", NodeID: v.ID, Title: v.Title, Kind: v.Kind, Family: v.Family, SourcePath: v.SourcePath,
			Anchor: v.Anchor, ContentHash: v.ContentHash, Reasons: []string{s.Reason}, Body: v.Body})
	}
	return c.contextPage(focus, items, []any{"provider", nodeID, query, pa.Limit}, pa)
}
