package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

func newService(t *testing.T, opts ...worker.Option) *worker.Service {
	t.Helper()
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	svc := worker.NewService(impl, false, opts...)
	t.Cleanup(func() { svc.Close() })
	return svc
}

type taskPage struct {
	RequestHash    string            `json:"request_hash"`
	PlanHash       string            `json:"plan_hash"`
	CollectionHash string            `json:"collection_hash"`
	CapsuleHash    string            `json:"capsule_hash"`
	Plan           json.RawMessage   `json:"plan"`
	PlanOmitted    bool              `json:"plan_omitted"`
	Items          []json.RawMessage `json:"items"`
	Omissions      []struct {
		Position int    `json:"position"`
		NodeID   string `json:"node_id"`
		Hash     string `json:"entry_hash"`
		Reason   string `json:"reason"`
	} `json:"response_omissions"`
	PageGaps []struct {
		Kind, Limit string
	} `json:"page_gaps"`
	Pagination struct {
		Returned, Total, Position int
		HasMore                   bool   `json:"has_more"`
		NextCursor                string `json:"next_cursor"`
	} `json:"pagination"`
}

// callTask calls docforge_get_task_context and decodes its page, or returns the error code.
func callTask(t *testing.T, svc *worker.Service, b protocol.Binding, args map[string]any) (*taskPage, problem.Code, int) {
	t.Helper()
	raw, _ := json.Marshal(args)
	return callTool[*taskPage](t, svc, b, "docforge_get_task_context", raw)
}

// callTool calls a tool and decodes its result into R, or returns its error code; n is the
// length of the whole protocol.Envelope.
func callTool[R any](t *testing.T, svc *worker.Service, b protocol.Binding, tool string, args []byte) (result R, code problem.Code, n int) {
	t.Helper()
	out, err := svc.Call(context.Background(), b, tool, args)
	var env struct {
		Result R `json:"result"`
		Error  *struct {
			Code problem.Code `json:"code"`
		} `json:"error"`
	}
	if jerr := json.Unmarshal(out, &env); jerr != nil {
		t.Fatalf("%v: %s", jerr, out)
	}
	if env.Error != nil {
		return result, env.Error.Code, len(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return env.Result, "", len(out)
}

// Paging with a small limit reassembles exactly the unpaged stream, and every page carries
// the same four hashes.
func TestTaskContextPagesReassembleTheStream(t *testing.T) {
	root := worker.CopyExample(t, nil)
	svc := newService(t)
	b := protocol.Binding{ProjectRoot: root}
	args := map[string]any{"kind": "change", "task": "reorder late events in the store", "budget": 20000}
	whole, code, _ := callTask(t, svc, b, args)
	if code != "" || whole.Pagination.HasMore || len(whole.Items) < 10 {
		t.Fatalf("unpaged: code %q, %+v", code, whole)
	}
	var got []json.RawMessage
	args["limit"] = 3
	pages := 0
	for {
		p, code, _ := callTask(t, svc, b, args)
		if code != "" {
			t.Fatalf("page %d: %s", pages, code)
		}
		if p.RequestHash != whole.RequestHash || p.PlanHash != whole.PlanHash || p.CollectionHash != whole.CollectionHash || p.CapsuleHash != whole.CapsuleHash {
			t.Fatalf("page %d changed a hash: %s %s %s %s, want %s %s %s %s", pages, p.RequestHash, p.PlanHash, p.CollectionHash, p.CapsuleHash, whole.RequestHash, whole.PlanHash, whole.CollectionHash, whole.CapsuleHash)
		}
		if len(p.Items) > 3 || len(p.Omissions) != 0 {
			t.Fatalf("page %d: %d items, %d omissions", pages, len(p.Items), len(p.Omissions))
		}
		got = append(got, p.Items...)
		pages++
		if !p.Pagination.HasMore {
			break
		}
		args["cursor"] = p.Pagination.NextCursor
	}
	if pages < 4 || len(got) != len(whole.Items) {
		t.Fatalf("%d pages with %d items, want the %d unpaged items", pages, len(got), len(whole.Items))
	}
	for i := range got {
		if !bytes.Equal(got[i], whole.Items[i]) {
			t.Fatalf("item %d differs:\n%s\n%s", i, got[i], whole.Items[i])
		}
	}
}

// A capsule is laid out for the response limit: a focus whose whole source could not fit a
// 6,000-character page comes as an item all the same (with what of its source fits), every
// page fits, and paging consumes the whole stream. (An entry that still could not fit would
// advance as a hash-identified response_limit omission, which the page would say in its
// own gaps.)
func TestTaskContextLaidOutForTheResponseLimit(t *testing.T) {
	root := worker.CopyExample(t, func(root string) {
		desc := filepath.Join(root, "docforge.toml")
		data, err := os.ReadFile(desc)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Replace(data, []byte("max_response_chars = 65536"), []byte("max_response_chars = 6000"), 1)
		// A focus function whose quoted source cannot fit any 6,000-character page.
		long := "package store\n\n// Long is long.\nfunc Long() {\n" +
			strings.Repeat("\t_ = \"a long line of the function body that quotes the storage design at length, again and again\"\n", 50) + "}\n"
		if err := os.WriteFile(desc, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "code", "store", "long.go"), []byte(long), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	svc := newService(t)
	b := protocol.Binding{ProjectRoot: root}
	args := map[string]any{"kind": "change", "task": "change the long function", "focus_node_id": "go:example.com/courier/store.Long", "budget": 20000}
	var positions []int
	seen, focusItem := 0, false
	for pages := 0; ; pages++ {
		p, code, size := callTask(t, svc, b, args)
		if code != "" {
			t.Fatalf("page %d: %s", pages, code)
		}
		if size > 6000 {
			t.Fatalf("page %d is %d chars, over max_response_chars", pages, size)
		}
		for _, o := range p.Omissions {
			if o.Reason != "response_limit" || !strings.HasPrefix(o.Hash, "sha256:") || o.NodeID != "go:example.com/courier/store.Long" {
				t.Errorf("omission: %+v", o)
			}
			positions = append(positions, o.Position)
			if len(p.PageGaps) != 1 || p.PageGaps[0].Limit != "response" {
				t.Errorf("a page with an omission says so in page_gaps: %+v", p.PageGaps)
			}
		}
		for _, it := range p.Items {
			focusItem = focusItem || strings.Contains(string(it), `"node_id":"go:example.com/courier/store.Long"`)
		}
		seen += len(p.Items) + len(p.Omissions)
		if !p.Pagination.HasMore {
			if seen != p.Pagination.Total {
				t.Fatalf("consumed %d of %d entries", seen, p.Pagination.Total)
			}
			break
		}
		if pages > 50 {
			t.Fatal("paging does not terminate")
		}
		args["cursor"] = p.Pagination.NextCursor
	}
	if len(positions) != 0 || !focusItem {
		t.Fatalf("the long focus is an item (%v), not an omission (%v)", focusItem, positions)
	}
}

// A cursor is stale after an edit (new generation), under another effective policy, and for
// another request; a tampered cursor is invalid.
func TestTaskContextStaleCursor(t *testing.T) {
	root := worker.CopyExample(t, nil)
	svc := newService(t)
	b := protocol.Binding{ProjectRoot: root}
	args := map[string]any{"kind": "change", "task": "reorder late events", "limit": 2}
	p, code, _ := callTask(t, svc, b, args)
	if code != "" || !p.Pagination.HasMore {
		t.Fatalf("first page: %q %+v", code, p)
	}
	cur := p.Pagination.NextCursor
	args["cursor"] = cur

	if _, code, _ := callTask(t, svc, protocol.Binding{ProjectRoot: root, Diagnostics: true}, args); code != problem.StaleCursor {
		t.Errorf("another effective policy: got %q, want stale_cursor", code)
	}
	other := map[string]any{"kind": "failure", "task": "reorder late events", "limit": 2, "cursor": cur}
	if _, code, _ := callTask(t, svc, b, other); code != problem.StaleCursor {
		t.Errorf("another request: got %q, want stale_cursor", code)
	}
	tampered := map[string]any{"kind": "change", "task": "reorder late events", "limit": 2, "cursor": cur[:len(cur)-2] + "AA"}
	if _, code, _ := callTask(t, svc, b, tampered); code != problem.InvalidCursor {
		t.Errorf("a tampered cursor: got %q, want invalid_cursor", code)
	}
	if _, code, _ := callTask(t, svc, b, args); code != "" {
		t.Fatalf("the cursor still works before the edit: %q", code)
	}
	store := filepath.Join(root, "docs", "architecture", "store.md")
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store, append(data, []byte("\nLate events are reordered.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code, _ := callTask(t, svc, b, args); code != problem.StaleCursor {
		t.Errorf("after an edit: got %q, want stale_cursor", code)
	}
}

// A server with a custom context provider answers docforge_get_context from it and refuses
// the task planner without synchronizing anything.
func TestCustomContextProviderHasNoTaskPlanner(t *testing.T) {
	root := worker.CopyExample(t, nil)
	asked := 0
	provider := func(ctx context.Context, snap *index.Snapshot, req worker.ContextRequest) ([]worker.ContextSelection, error) {
		asked++
		return []worker.ContextSelection{{NodeID: "arch.api", Reason: "the provider's choice for " + req.Query}}, nil
	}
	svc := newService(t, worker.WithContextProvider(provider))
	b := protocol.Binding{ProjectRoot: root}
	if _, code, _ := callTask(t, svc, b, map[string]any{"kind": "change", "task": "anything"}); code != problem.TaskContextUnavailable {
		t.Fatalf("got %q, want task_context_unavailable", code)
	}
	if _, err := os.Stat(filepath.Join(root, ".docforge")); !os.IsNotExist(err) {
		t.Fatalf("the refusal synchronized the project: %v", err)
	}
	if asked != 0 {
		t.Fatal("the refusal consulted the provider")
	}
	out, err := svc.Call(context.Background(), b, "docforge_get_context", json.RawMessage(`{"query":"store"}`))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if asked != 1 || !bytes.Contains(out, []byte(`"node_id":"arch.api"`)) || !bytes.Contains(out, []byte("the provider's choice for store")) {
		t.Fatalf("docforge_get_context did not answer from the provider: %s", out)
	}
}

// The budget covers the whole response an agent receives: protocol.Envelope, capsule header, plan,
// gaps, evidence and omissions, at a small, a middle and the default budget, with and without
// diagnostics in the protocol.Envelope.
func TestTaskContextBudgetCoversTheWholeResponse(t *testing.T) {
	root := worker.CopyExample(t, nil)
	svc := newService(t)
	for _, diagnostics := range []bool{false, true} {
		b := protocol.Binding{ProjectRoot: root, Diagnostics: diagnostics}
		for _, budget := range []int{500, 2000, 8000} {
			p, code, size := callTask(t, svc, b, map[string]any{"kind": "change", "task": "late carrier events must be stored in time order", "budget": budget})
			if code != "" {
				raw, _ := json.Marshal(map[string]any{"kind": "change", "task": "late carrier events must be stored in time order", "budget": budget})
				out, _ := svc.Call(context.Background(), b, "docforge_get_task_context", raw)
				t.Fatalf("budget %d: %s: %s", budget, code, out)
			}
			if tokens := (size + 3) / 4; tokens > budget {
				t.Errorf("budget %d (diagnostics %v): the response is %d bytes, %d tokens", budget, diagnostics, size, tokens)
			}
			if budget == 8000 && len(p.Items) < 10 {
				t.Errorf("the default budget holds only %d entries", len(p.Items))
			}
		}
	}
}
