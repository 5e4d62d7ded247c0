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
	focus, err := c.contextFocus(a)
	if err != nil {
		return nil, err
	}
	st := &contextStream{c: c, at: map[string]int{}, omitted: map[string]bool{}}
	for _, id := range focus {
		if err := st.add(id, "focus"); err != nil {
			return nil, err
		}
	}
	// Every neighbour is either an entry or an omission: the lists are read past max_results
	// (up to the evidence ceiling and one more), and what lies past even that is one omission
	// that says how to see the rest.
	for _, id := range focus {
		for _, outgoing := range []bool{true, false} {
			if err := st.neighbours(id, outgoing); err != nil {
				return nil, err
			}
		}
	}
	return c.contextPage(focus, append(st.items, st.omissions...), []any{a.NodeID, a.Query, a.Limit}, a.pageArgs)
}

// contextFocus is the node the context starts from, or the best hits of its query.
func (c *call) contextFocus(a contextInput) ([]string, error) {
	switch {
	case a.NodeID != "" && a.Query != "":
		return nil, problem.Errorf(problem.InvalidArgument, "give node_id or query, not both")
	case a.NodeID != "":
		return []string{a.NodeID}, nil
	case a.Query != "":
		hits, err := c.snap.Search(c.ctx, a.Query, maxContextFocus)
		if err != nil {
			return nil, err
		}
		var focus []string
		for _, h := range hits.Hits {
			focus = append(focus, h.ID)
		}
		return focus, nil
	}
	return nil, problem.Errorf(problem.InvalidArgument, "node_id or query is required")
}

// contextStream gathers a context's entries, each node once with every reason it is there,
// up to the evidence ceiling, and the omissions past it.
type contextStream struct {
	c         *call
	items     []contextItem
	at        map[string]int // node ID -> index in items
	omitted   map[string]bool
	omissions []contextItem
}

// add makes id an entry for reason, adds the reason to its entry, or records its omission.
func (st *contextStream) add(id, reason string) error {
	if i, ok := st.at[id]; ok {
		st.items[i].Reasons = append(st.items[i].Reasons, reason)
		return nil
	}
	if len(st.items) >= maxEvidence {
		if !st.omitted[id] {
			st.omitted[id] = true
			st.omissions = append(st.omissions, contextItem{Type: "omission", NodeID: id, Reasons: []string{reason}, Omitted: "evidence limit"})
		}
		return nil
	}
	v, err := st.c.snap.Get(st.c.ctx, id)
	if err != nil {
		return err
	}
	st.at[id] = len(st.items)
	st.items = append(st.items, contextItem{Type: "entry", NodeID: id, Title: v.Title, Kind: v.Kind, Family: v.Family, SourcePath: v.SourcePath,
		Anchor: v.Anchor, ContentHash: v.ContentHash, Reasons: []string{reason}, Body: v.Body})
	return nil
}

// neighbours adds id's neighbours one way, and an omission naming the tool that lists the
// rest when there are more than the ceiling.
func (st *contextStream) neighbours(id string, outgoing bool) error {
	links, err := st.c.snap.Neighbours(st.c.ctx, id, outgoing, maxEvidence+1)
	if err != nil {
		return err
	}
	for _, l := range links.Links {
		reason := "incoming " + l.Relation + " to " + id
		if outgoing {
			reason = "outgoing " + l.Relation + " from " + id
		}
		if err := st.add(l.NodeID, reason); err != nil {
			return err
		}
	}
	if links.Truncated {
		tool := "docforge_backlinks"
		if outgoing {
			tool = "docforge_dependencies"
		}
		st.omissions = append(st.omissions, contextItem{Type: "omission", NodeID: id, Omitted: "evidence limit",
			Reasons: []string{fmt.Sprintf("more than %d relations of %s that way; list them with %s", maxEvidence, id, tool)}})
	}
	return nil
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
