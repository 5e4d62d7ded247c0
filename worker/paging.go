package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker/protocol"
)

// defaultPage is the page size when a paged tool is called without a limit.
const defaultPage = 50

// omittedForSize is the omission reason of an entry too large for any page.
const omittedForSize = "response size limit"

// pageArgs are the paging arguments shared by paged tools.
type pageArgs struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"entries per page (default 50, capped by max_results)" bounds:"min=1"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

// Pagination is the one pagination object of a page.
type Pagination struct {
	Returned   int    `json:"returned"`
	Total      int    `json:"total"`
	Position   int    `json:"position"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// Omission is an entry left out of a page: hash-identified, so a client can tell which one,
// and counted as consumed, so paging never loops on it.
type Omission struct {
	Position int    `json:"position"`
	NodeID   string `json:"node_id,omitempty"`
	Hash     string `json:"entry_hash"`
	Chars    int    `json:"chars"`
	Reason   string `json:"reason"`
}

// packed is one page cut from an ordered stream of JSON entries.
type packed struct {
	entries   []json.RawMessage
	omissions []Omission
	next      int // the position after the last consumed entry
}

// pack takes up to limit entries of stream from pos whose JSON fits budget characters in
// all. An entry that alone exceeds the budget becomes an omission with the given reason and
// is consumed; packing stops before the first entry that fits alone but not with the others.
func pack(stream []json.RawMessage, ids []string, pos, limit, budget int, reason string) packed {
	var p packed
	used := 0
	p.next = pos
	for p.next < len(stream) && len(p.entries)+len(p.omissions) < limit {
		e := stream[p.next]
		size := len(e) + 1
		if size > budget {
			sum := sha256.Sum256(e)
			o := Omission{Position: p.next, Hash: "sha256:" + hex.EncodeToString(sum[:]), Chars: len(e), Reason: reason}
			if ids != nil {
				o.NodeID = ids[p.next]
			}
			p.omissions = append(p.omissions, o)
			used += 200
			p.next++
			continue
		}
		if used+size > budget {
			break
		}
		p.entries = append(p.entries, e)
		used += size
		p.next++
	}
	return p
}

// pageBudget is what entries of a page may take: the response limit less the protocol.Envelope and
// page frame, measured, with room for the longest cursor and the page counters.
func (c *call) pageBudget(frame any) int {
	c.env.Result = frame
	frameChars := len(protocol.Marshal(c.env))
	c.env.Result = nil
	return c.d.Limits.MaxResponseChars - frameChars - c.cursorChars() - pageCounterChars
}

// pageCounterChars is room for the page counters (returned, total, position) at their
// widest, beyond what the measured empty frame holds.
const pageCounterChars = 48

func (c *call) pageLimit(requested int) int {
	if requested <= 0 {
		requested = defaultPage
	}
	return min(requested, c.d.Limits.MaxResults)
}

// resumeAt decodes a cursor for this request, or returns 0 without one.
func resumeAt(raw string, want cursor) (int, error) {
	if raw == "" {
		return 0, nil
	}
	cur, err := decodeCursor(raw)
	if err != nil {
		return 0, err
	}
	return cur.resume(want)
}

func pagination(want cursor, p packed, total, pos int) Pagination {
	pg := Pagination{Returned: len(p.entries), Total: total, Position: pos, HasMore: p.next < total}
	if pg.HasMore {
		want.Position = p.next
		pg.NextCursor = want.encode()
	}
	return pg
}

// diffPage is one page of the latest generation-diff receipt.
type diffPage struct {
	PageSchemaVersion int                        `json:"page_schema_version"`
	ReceiptState      string                     `json:"receipt_state"`
	Reason            string                     `json:"reason,omitempty"`
	Header            map[string]json.RawMessage `json:"receipt_header,omitempty"`
	Items             []json.RawMessage          `json:"items"`
	Omissions         []Omission                 `json:"omissions"`
	Pagination        *Pagination                `json:"pagination,omitempty"`
	PageHash          string                     `json:"page_hash,omitempty"`
}

func runGenerationDiff(c *call, a pageArgs) (any, error) {
	st := index.CheckDiffReceipt(c.ctx, c.d, c.b.Policy(), c.watchedIdentity(c.d))
	page := &diffPage{PageSchemaVersion: 1, ReceiptState: st.State, Reason: st.Reason, Items: []json.RawMessage{}, Omissions: []Omission{}}
	switch st.State {
	case index.ReceiptCurrent, index.ReceiptStale:
		c.env.Staleness = st.State
		c.env.Revision, c.env.SourceHash = st.Receipt.To.Generation, st.Receipt.To.SourceHash
	}
	if st.State != index.ReceiptCurrent {
		return page, nil // only a current receipt returns a page
	}
	r := st.Receipt
	// The header is every stored field except the items, plus the stored receipt's own hash:
	// each value as the receipt's JSON holds it, never through a float (an mtime in
	// nanoseconds is past what a float64 holds exactly).
	var header map[string]json.RawMessage
	headerSrc := *r
	headerSrc.Items = nil
	if err := json.Unmarshal(protocol.Marshal(headerSrc), &header); err != nil {
		return nil, err
	}
	delete(header, "items")
	header["stored_receipt_hash"] = protocol.Marshal(r.ReceiptHash)
	page.Header = header
	stream := make([]json.RawMessage, len(r.Items))
	for i, it := range r.Items {
		stream[i] = protocol.Marshal(it)
	}
	want := c.cursorOf("docforge_get_generation_diff", r.To.Generation, a.Limit, nil, r.RetainedItemsHash)
	pos, err := resumeAt(a.Cursor, want)
	if err != nil {
		return nil, err
	}
	if pos > len(stream) {
		return nil, problem.Errorf(problem.InvalidCursor, "cursor position %d is past the %d retained items", pos, len(stream))
	}
	// The frame measured as the page will be: its pagination and page hash too (the
	// counters and cursor at their widest are pageBudget's own allowance).
	page.Pagination, page.PageHash = &Pagination{}, "sha256:"+strings.Repeat("0", 64)
	p := pack(stream, nil, pos, c.pageLimit(a.Limit), c.pageBudget(page), omittedForSize)
	page.Items = append(page.Items, p.entries...)
	page.Omissions = append(page.Omissions, p.omissions...)
	pg := pagination(want, p, len(stream), pos)
	page.Pagination = &pg
	page.PageHash = hashJSON("docforge.diff.page.v1", []any{page.Header, page.Items, page.Omissions, page.ReceiptState, page.Pagination})
	return page, nil
}
