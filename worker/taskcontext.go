package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker/protocol"
	"github.com/docforge/docforge/worker/taskcontext"
)

// ContextRequest is what docforge_get_context asks a custom context provider.
type ContextRequest struct {
	NodeID string `json:"node_id,omitempty"`
	Query  string `json:"query,omitempty"`
}

// ContextSelection is one node a context provider chose, with why.
type ContextSelection struct {
	NodeID string
	Reason string
}

// ContextProvider is a project integration's own context policy: given the snapshot of the
// call and its request, it returns the ordered nodes docforge_get_context answers with.
// Pagination is applied after the selection, so providers never page.
type ContextProvider func(ctx context.Context, snap *index.Snapshot, req ContextRequest) ([]ContextSelection, error)

// taskPage is one page of a task-context capsule: the capsule header (identical on every
// page), this page's part of the stream, and the page's own omissions.
type taskPage struct {
	*taskcontext.Capsule
	// Plan shadows the capsule's plan so that a page too small for it can carry plan_hash
	// alone (PlanOmitted says so); every page carries it when it fits the page and the budget.
	Plan        *taskcontext.Plan `json:"plan,omitempty"`
	PlanOmitted bool              `json:"plan_omitted,omitempty"`
	Items       []json.RawMessage `json:"items"`
	Omissions   []Omission        `json:"response_omissions,omitempty"`
	PageGaps    []taskcontext.Gap `json:"page_gaps,omitempty"`
	Pagination  Pagination        `json:"pagination"`
}

// minTaskPageChars is the room for entries below which a page drops the plan body.
const minTaskPageChars = 2048

// omittedForResponse is the omission reason the contract names for task-context pages.
const omittedForResponse = "response_limit"

// taskContextInput is docforge_get_task_context's input. Its bounds are taskcontext's
// (Kinds, MaxTaskChars, MaxBudget, DefaultBudget); TestInputBoundsFollowTheirConstants
// checks the literals here against them.
type taskContextInput struct {
	Kind        string `json:"kind" jsonschema:"the task kind: decides which relation categories are followed" bounds:"enum=change|implementation|failure|ownership|test|operation|release"`
	Task        string `json:"task" jsonschema:"the task in a sentence, for example \"rename the index publisher\"; its words choose the focus when focus_node_id is absent" bounds:"maxLength=10000"`
	FocusNodeID string `json:"focus_node_id,omitempty" jsonschema:"the exact node ID to start from instead of a lexical match of the task"`
	Budget      int    `json:"budget,omitempty" jsonschema:"tokens of the whole response (default 8000; estimator: a token per 4 bytes of compact JSON)" bounds:"min=1,max=1000000"`
	Limit       int    `json:"limit,omitempty" jsonschema:"items per page (default and cap: the project's max_results)" bounds:"min=1"`
	Cursor      string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page"`
}

func runTaskContext(c *call, a taskContextInput) (any, error) {
	if a.Limit < 0 {
		return nil, problem.Errorf(problem.InvalidArgument, "limit must be positive")
	}
	req, err := taskcontext.Normalize(taskcontext.Request{Kind: a.Kind, Task: a.Task, FocusNodeID: a.FocusNodeID, Budget: a.Budget})
	if err != nil {
		return nil, err
	}
	policyHash := hashJSON("docforge.policy.v1", PolicyOf(c.b))
	hist, note, err := c.svc.history(c.ctx, c.svc.liveFor(c.b, c.d), c.d)
	if err != nil {
		return nil, err
	}
	if note != "" {
		c.env.Warnings = append(c.env.Warnings, note)
	}
	if hist != nil {
		defer hist.Close()
	}
	col, err := taskcontext.Collect(c.ctx, c.snap, hist, req, policyHash)
	if err != nil {
		return nil, err
	}
	limit := c.d.Limits.MaxResults
	if a.Limit > 0 {
		limit = min(a.Limit, limit)
	}
	capsule, cursorRoom, err := c.layOutTask(col, req.Budget)
	if err != nil {
		return nil, err
	}
	// The cursor binds the request, the effective policy and the plan (params), the page
	// limit, and the collection and capsule (collection); the generation is bound on its own.
	id := capsule.Identity
	want := c.cursorOf("docforge_get_task_context", id.Binding.Generation, a.Limit, []string{id.RequestHash, policyHash, id.PlanHash},
		hashJSON("docforge.task.cursor.collection", []string{id.CollectionHash, capsule.CapsuleHash}))
	pos, err := resumeAt(a.Cursor, want)
	if err != nil {
		return nil, err
	}
	if pos > len(capsule.Stream) {
		return nil, problem.Errorf(problem.InvalidCursor, "cursor position %d is past the %d stream entries", pos, len(capsule.Stream))
	}
	page, p := c.taskPageAt(capsule, pos, limit, cursorRoom)
	page.Pagination = pagination(want, p, len(capsule.Stream), pos)
	c.counts["task_edges_examined"] = int64(col.Examined())
	return page, nil
}

// taskPageAt cuts the page of a capsule that starts at stream position pos: at most limit
// entries, within one response less cursorRoom.
func (c *call) taskPageAt(capsule *taskcontext.Capsule, pos, limit, cursorRoom int) (*taskPage, packed) {
	page := &taskPage{Capsule: capsule, Plan: capsule.Plan, PlanOmitted: capsule.PlanOmitted, Items: []json.RawMessage{}, Omissions: []Omission{}, PageGaps: []taskcontext.Gap{}}
	// pageBudget keeps room for a cursor; a capsule laid out for one page needs none.
	budget := c.pageBudget(page) + c.cursorChars() - cursorRoom
	if budget < minTaskPageChars {
		page.Plan, page.PlanOmitted = nil, true
		budget = c.pageBudget(page) + c.cursorChars() - cursorRoom
	}
	p := pack(capsule.Stream, capsule.IDs, pos, limit, budget, omittedForResponse)
	page.Items = append(page.Items, p.entries...)
	page.Omissions = append(page.Omissions, p.omissions...)
	if len(p.omissions) > 0 {
		page.PageGaps = append(page.PageGaps, taskcontext.Gap{Kind: taskcontext.GapIncomplete, Limit: taskcontext.LimitResponse, Count: len(p.omissions),
			Detail: fmt.Sprintf("%d stream entries are larger than a whole response may be (max_response_chars %d); they are listed by hash in response_omissions and consumed; fetch one with docforge_get_node", len(p.omissions), c.d.Limits.MaxResponseChars)})
	}
	return page, p
}

// layOutTask lays a collection out for this call's response limit, the same way whichever
// page this call asks for, and whatever its page limit: so that a cursor one page hands out
// finds the same capsule on the next, and a capsule read in pages of a few entries is the one
// read whole. Room for a cursor is kept only when the capsule laid out without it does not fit
// one response whole. Diagnostics never take the place of evidence: the capsule is laid out
// without them, and they are added only when the whole response stays within the budget
// (fit then keeps it within max_response_chars, dropping them first).
func (c *call) layOutTask(col *taskcontext.Collected, budget int) (capsule *taskcontext.Capsule, cursorRoom int, err error) {
	frame := c.taskFrame()
	if capsule, err = col.Layout(c.ctx, frame, c.d.Limits.MaxResponseChars); err != nil {
		return nil, 0, err
	}
	if _, whole := c.taskPageAt(capsule, 0, len(capsule.Stream), 0); whole.next < len(capsule.Stream) {
		cursorRoom = c.cursorChars()
		if capsule, err = col.Layout(c.ctx, frame, c.d.Limits.MaxResponseChars-cursorRoom); err != nil {
			return nil, 0, err
		}
	}
	if c.b.Diagnostics && capsule.Budget.Used*4+c.diagnosticsChars() > budget*4 {
		c.noDiagnostics = true
	}
	return capsule, cursorRoom, nil
}

// taskFrame is what a task-context response adds around the capsule, in bytes: the
// protocol.Envelope and the page fields, measured with an empty capsule, with room for the
// page counters as pageBudget keeps it (so that what the capsule lays out for one page, the
// page holds). The capsule keeps the whole response within its token budget with it.
func (c *call) taskFrame() int {
	empty := &taskcontext.Capsule{}
	c.env.Result = &taskPage{Capsule: empty, Items: []json.RawMessage{}, Omissions: []Omission{}, PageGaps: []taskcontext.Gap{}}
	all := len(protocol.Marshal(c.env))
	c.env.Result = nil
	return all - len(protocol.Marshal(empty)) + pageCounterChars
}

// diagnosticsChars is the most a diagnostics aggregate adds to an answer: its fixed keys, each
// at its widest value.
func (c *call) diagnosticsChars() int {
	d := c.diagnostics()
	for k := range d.StagesMs {
		d.StagesMs[k] = 99999.999
	}
	for k := range d.Counters {
		d.Counters[k] = 9999999
	}
	return len(protocol.Marshal(d)) + len(`,"diagnostics":`)
}

// cursorChars is the room a page's next_cursor takes at most (of this call's tool): a
// capsule laid out for one page leaves it, in case the page's entry count still cuts it.
func (c *call) cursorChars() int {
	hash := "sha256:" + strings.Repeat("0", 64)
	// The widest values a cursor of this call can hold: the next generations, and a position
	// within any stream a page can cut (far below 100,000 entries).
	gen := int64(1 << 20)
	if c.snap != nil {
		gen = c.snap.Info().Generation * 10
	}
	return len(`,"next_cursor":""`) + len(cursor{Project: c.d.Project.ID, Adapter: c.env.Adapter, Generation: gen, Operation: c.tool,
		Params: hash, Collection: hash, Position: 99999}.encode())
}
