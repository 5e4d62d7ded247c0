package mcpbridge

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// example copies the bundled example project into a temporary directory, optionally
// replacing a descriptor line.
func example(t *testing.T, replace ...string) string {
	t.Helper()
	src := filepath.Join("..", "examples", "courier")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			if e.Name() == ".docforge" || e.Name() == "site" {
				return filepath.SkipDir // state and pages a local 'make demo' left
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "docforge.toml" {
			for i := 0; i+1 < len(replace); i += 2 {
				data = []byte(strings.Replace(string(data), replace[i], replace[i+1], 1))
			}
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// connect starts the server for a binding on an in-memory transport and returns a client
// session of the go-sdk.
func connect(t *testing.T, b protocol.Binding) *mcp.ClientSession {
	t.Helper()
	if _, err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	svc := worker.NewService(impl, true)
	t.Cleanup(func() { svc.Close() })
	ss, err := NewServer(b, svc).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// result is the envelope of a tool result, as a client reads it.
type result struct {
	ContentNotice string `json:"content_notice"`
	Project       struct{ ID string }
	Revision      int64           `json:"revision"`
	SourceHash    string          `json:"source_hash"`
	Adapter       string          `json:"adapter_version"`
	Staleness     string          `json:"staleness"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Code, Message, Remediation string
	} `json:"error"`
	Diagnostics json.RawMessage `json:"diagnostics"`
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (result, bool, int) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var r result
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("%s: result is not JSON: %v\n%s", name, err, text)
	}
	return r, res.IsError, len(text)
}

func TestToolsListedInContractOrderWithReadOnlyAnnotations(t *testing.T) {
	cs := connect(t, protocol.Binding{ProjectRoot: example(t)})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	specs := map[string]worker.ToolSpec{}
	for _, spec := range worker.Tools() {
		specs[spec.Name] = spec
	}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		spec := specs[tool.Name]
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint != spec.ReadOnly || tool.Annotations.IdempotentHint == spec.Mutates() ||
			tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint {
			t.Errorf("%s annotations %+v do not match its spec (read-only %v, mutates %v)", tool.Name, tool.Annotations, spec.ReadOnly, spec.Mutates())
		}
	}
	if len(names) != 33 {
		t.Errorf("%d tools registered, want the 19 read tools and 14 proposal tools", len(names))
	}
	var want []string
	for _, spec := range worker.ToolsFor(protocol.Binding{ProjectRoot: "x", CapabilityMode: protocol.ModeProposal}) {
		want = append(want, spec.Name)
	}
	// The go-sdk lists tools by name; the contract's order is the capabilities' order.
	slices.Sort(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("tools = %v, want %v", names, want)
	}
	r, _, _ := callTool(t, cs, "docforge_bootstrap", nil)
	if !strings.Contains(string(r.Result), `"tools":["docforge_bootstrap","docforge_sync","docforge_project_info","docforge_get_contract",`) {
		t.Errorf("capabilities do not list the tools in contract order: %.400s", r.Result)
	}
}

func TestReadTools(t *testing.T) {
	cs := connect(t, protocol.Binding{ProjectRoot: example(t)})
	tests := []struct {
		tool    string
		args    map[string]any
		code    string // expected error code, or "" for success
		contain string // substring of the result payload
	}{
		{"docforge_bootstrap", nil, "", `"first_operation":"docforge_search"`},
		{"docforge_sync", map[string]any{}, "", `"build":"none"`},
		{"docforge_sync", map[string]any{"rebuild": true}, "", `"build":"cold"`},
		{"docforge_project_info", nil, "", `"code_roots":["code"]`},
		{"docforge_get_contract", nil, "", `"adapter_policy_forbids_logic"`},
		{"docforge_get_node", map[string]any{"node_id": "arch.store"}, "", `"title":"Shipment store"`},
		{"docforge_get_node", map[string]any{"node_id": "no.such"}, "node_not_found", ""},
		{"docforge_get_node", map[string]any{}, "invalid_argument", ""},
		{"docforge_get_node", map[string]any{"node_id": "arch.store", "colour": "red"}, "invalid_argument", ""},
		{"docforge_get_logic", map[string]any{"node_id": "go:example.com/courier/store.Log.State"}, "", `"kind":"condition"`},
		{"docforge_get_logic", map[string]any{"node_id": "arch.store"}, "invalid_argument", ""},
		{"docforge_search", map[string]any{"query": "late events", "limit": 3}, "", `"req.event-order"`},
		{"docforge_search", map[string]any{"query": ""}, "invalid_argument", ""},
		{"docforge_filter_nodes", map[string]any{"language": "go", "capability": "test"}, "", `TestLateEventsKeepOrder`},
		{"docforge_backlinks", map[string]any{"node_id": "go:example.com/courier/normalize.Normalize"}, "", `"relation":"implemented_by"`},
		{"docforge_dependencies", map[string]any{"node_id": "arch.api"}, "", `"relation":"implements"`},
		{"docforge_impact", map[string]any{"node_id": "arch.store", "limit": 2}, "", `"truncated_by":"result_limit"`},
		{"docforge_validate_project", nil, "", `"valid":true`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, isErr, _ := callTool(t, cs, tt.tool, tt.args)
			if r.ContentNotice != protocol.ContentNotice || r.Project.ID != "courier" || !strings.HasPrefix(r.Adapter, "docforge-core@") {
				t.Errorf("envelope: %+v", r)
			}
			if tt.code != "" {
				if !isErr || r.Error == nil || r.Error.Code != tt.code || r.Error.Remediation == "" {
					t.Fatalf("want error %s, got isError=%v %+v", tt.code, isErr, r.Error)
				}
				return
			}
			if isErr {
				t.Fatalf("error: %+v", r.Error)
			}
			if r.Revision < 1 || r.SourceHash == "" || r.Staleness != "current" {
				t.Errorf("envelope revision %d source %q staleness %q", r.Revision, r.SourceHash, r.Staleness)
			}
			if !strings.Contains(string(r.Result), tt.contain) {
				t.Errorf("result lacks %s:\n%.600s", tt.contain, r.Result)
			}
		})
	}
}

// Every normal call checks source identity first: an edit shows up in the next answer.
func TestCallsSyncFirst(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root})
	before, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
	p := filepath.Join(root, "docs/architecture/store.md")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(src), "title = \"Shipment store\"", "title = \"Shipment log store\"", 1)), 0o644)
	after, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
	if after.Revision != before.Revision+1 || !strings.Contains(string(after.Result), "Shipment log store") {
		t.Errorf("after an edit: revision %d (before %d), result %.200s", after.Revision, before.Revision, after.Result)
	}
}

// With a tiny output limit collections are cut to fit and say so; nothing exceeds the limit.
func TestOutputLimitIsEnforced(t *testing.T) {
	root := example(t, "max_response_chars = 65536", "max_response_chars = 4096")
	cs := connect(t, protocol.Binding{ProjectRoot: root, Diagnostics: true})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"docforge_filter_nodes", map[string]any{}},
		{"docforge_search", map[string]any{"query": "shipment"}},
		{"docforge_get_node", map[string]any{"node_id": "arch.overview"}},
		{"docforge_impact", map[string]any{"node_id": "arch.store"}},
	} {
		r, isErr, n := callTool(t, cs, c.tool, c.args)
		if n > 4096 {
			t.Errorf("%s: %d chars, over the 4096 limit", c.tool, n)
		}
		if isErr && r.Error.Code != "result_too_large" {
			t.Errorf("%s: %+v", c.tool, r.Error)
		}
		if !isErr && len(r.Diagnostics) > 0 && !strings.Contains(string(r.Result), "truncated") {
			t.Errorf("%s: diagnostics kept while the result was cut", c.tool)
		}
	}
	r, _, _ := callTool(t, cs, "docforge_filter_nodes", map[string]any{})
	if !strings.Contains(string(r.Result), `"truncated":true`) {
		t.Errorf("filter result not marked truncated: %s", r.Result)
	}
}

func TestDiagnosticsAreContentFree(t *testing.T) {
	cs := connect(t, protocol.Binding{ProjectRoot: example(t), Diagnostics: true})
	r, _, _ := callTool(t, cs, "docforge_search", map[string]any{"query": "late events"})
	d := string(r.Diagnostics)
	var got struct {
		Stages   map[string]float64 `json:"stages_ms"`
		Counters map[string]int64   `json:"counters"`
	}
	if err := json.Unmarshal(r.Diagnostics, &got); err != nil {
		t.Fatalf("diagnostics = %s", d)
	}
	// The fixed stages and counters, the same on every call; this first call synced and
	// parsed every source.
	for _, k := range []string{"source_parsing", "adapter_extraction", "index", "rendering", "viewer_manager", "tool", "total"} {
		if _, ok := got.Stages[k]; !ok || len(got.Stages) != 7 {
			t.Errorf("stage %s missing, or other stages: %s", k, d)
		}
	}
	if got.Counters["syncs"] != 1 || got.Counters["files_parsed"] == 0 || got.Stages["source_parsing"] <= 0 || len(got.Counters) != 5 {
		t.Errorf("diagnostics of a first call: %s", d)
	}
	r, _, _ = callTool(t, cs, "docforge_visualization_status", nil)
	var again struct {
		Stages map[string]float64 `json:"stages_ms"`
	}
	json.Unmarshal(r.Diagnostics, &again)
	if len(again.Stages) != 7 {
		t.Errorf("the stages change from call to call: %s", r.Diagnostics)
	}
	for _, leak := range []string{"late", "events", "courier", "arch.", "docs/", "SELECT"} {
		if strings.Contains(d, leak) {
			t.Errorf("diagnostics leak %q: %s", leak, d)
		}
	}
}

func TestNoASTBinding(t *testing.T) {
	cs := connect(t, protocol.Binding{ProjectRoot: example(t), NoAST: true})
	r, isErr, _ := callTool(t, cs, "docforge_get_logic", map[string]any{"node_id": "go:example.com/courier/store.Log.State"})
	if !isErr || r.Error.Code != "adapter_policy_forbids_logic" {
		t.Fatalf("get_logic under no-AST: %+v", r.Error)
	}
	r, _, _ = callTool(t, cs, "docforge_bootstrap", nil)
	for _, want := range []string{`"no_ast":true`, `"adapter_ast_upgrade"`, `"function_logic_extraction"`, `"logic_indexing":false`} {
		if !strings.Contains(string(r.Result), want) {
			t.Errorf("bootstrap lacks %s", want)
		}
	}
	init := cs.InitializeResult()
	if init == nil || !strings.Contains(init.Instructions, "no-AST") {
		t.Errorf("instructions do not state the no-AST policy: %+v", init)
	}
}

func TestBindingValidation(t *testing.T) {
	root := example(t)
	for _, c := range []struct {
		name string
		b    protocol.Binding
		want string
	}{
		{"missing_root", protocol.Binding{}, "--project-root is required"},
		{"relative_root", protocol.Binding{ProjectRoot: "examples/courier"}, "not absolute"},
		{"no_descriptor", protocol.Binding{ProjectRoot: t.TempDir()}, "docforge.toml"},
		{"unknown_writer", protocol.Binding{ProjectRoot: root, ProposalWriter: "mallory"}, `"mallory" is not declared`},
		{"unknown_applier", protocol.Binding{ProjectRoot: root, CanonicalApplier: "mallory"}, "proposals.appliers"},
		{"application_without_applier", protocol.Binding{ProjectRoot: root, CapabilityMode: "application"}, "fails closed"},
		{"bad_mode", protocol.Binding{ProjectRoot: root, CapabilityMode: "root"}, "not one of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.b.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	ok := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent", CanonicalApplier: "maintainer", CapabilityMode: "application"}
	if _, err := ok.Validate(); err != nil {
		t.Fatalf("valid binding: %v", err)
	}
}

type page struct {
	Items     []json.RawMessage `json:"items"`
	Omissions []struct {
		Position int
		NodeID   string `json:"node_id"`
		Hash     string `json:"entry_hash"`
		Reason   string
	} `json:"response_omissions"`
	Pagination struct {
		Returned, Total, Position int
		HasMore                   bool   `json:"has_more"`
		NextCursor                string `json:"next_cursor"`
	} `json:"pagination"`
	ReceiptState string         `json:"receipt_state"`
	Header       map[string]any `json:"receipt_header"`
}

func pageOf(t *testing.T, r result) page {
	t.Helper()
	var p page
	if err := json.Unmarshal(r.Result, &p); err != nil {
		t.Fatalf("page: %v\n%s", err, r.Result)
	}
	return p
}

func TestContextPagesWithCursorsAndFailsStale(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root})
	args := map[string]any{"node_id": "arch.store", "limit": 3}
	r, isErr, _ := callTool(t, cs, "docforge_get_context", args)
	if isErr {
		t.Fatalf("%+v", r.Error)
	}
	first := pageOf(t, r)
	if first.Pagination.Returned != 3 || !first.Pagination.HasMore || first.Pagination.NextCursor == "" || first.Pagination.Total < 6 {
		t.Fatalf("first page: %+v", first.Pagination)
	}
	if !strings.Contains(string(first.Items[0]), `"reasons":["focus"]`) {
		t.Errorf("the focus is not first: %s", first.Items[0])
	}
	seen := map[string]bool{}
	collect := func(p page) {
		for _, it := range p.Items {
			if seen[string(it)] {
				t.Errorf("entry repeated across pages: %.80s", it)
			}
			seen[string(it)] = true
		}
	}
	collect(first)
	cur, total := first.Pagination.NextCursor, first.Pagination.Total
	for pages := 0; cur != "" && pages < 50; pages++ {
		r, isErr, _ = callTool(t, cs, "docforge_get_context", map[string]any{"node_id": "arch.store", "limit": 3, "cursor": cur})
		if isErr {
			t.Fatalf("next page: %+v", r.Error)
		}
		p := pageOf(t, r)
		collect(p)
		cur = p.Pagination.NextCursor
	}
	if len(seen) != total {
		t.Errorf("paged %d entries, total says %d", len(seen), total)
	}
	// Another request's cursor, a corrupt one, and one from before an edit all fail closed.
	if r, _, _ := callTool(t, cs, "docforge_get_context", map[string]any{"node_id": "arch.api", "cursor": first.Pagination.NextCursor}); r.Error == nil || r.Error.Code != "stale_cursor" {
		t.Errorf("cursor of another request: %+v", r.Error)
	}
	if r, _, _ := callTool(t, cs, "docforge_get_context", map[string]any{"node_id": "arch.store", "limit": 3, "cursor": "x" + first.Pagination.NextCursor}); r.Error == nil || r.Error.Code != "invalid_cursor" {
		t.Errorf("corrupt cursor: %+v", r.Error)
	}
	p := filepath.Join(root, "docs/architecture/store.md")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, append(src, "\nMore text.\n"...), 0o644)
	r, _, _ = callTool(t, cs, "docforge_get_context", map[string]any{"node_id": "arch.store", "limit": 3, "cursor": first.Pagination.NextCursor})
	if r.Error == nil || r.Error.Code != "stale_cursor" || r.Error.Remediation != "restart_pagination" {
		t.Errorf("cursor after an edit: %+v", r.Error)
	}
}

// An entry too large for the response limit on its own is omitted with its hash, and paging
// moves past it instead of looping.
func TestOversizedContextEntryIsOmitted(t *testing.T) {
	root := example(t, "max_response_chars = 65536", "max_response_chars = 4096")
	p := filepath.Join(root, "docs/architecture/store.md")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, append(src, []byte("\n"+strings.Repeat("A very long paragraph about the store. ", 200)+"\n")...), 0o644)
	cs := connect(t, protocol.Binding{ProjectRoot: root})
	r, isErr, n := callTool(t, cs, "docforge_get_context", map[string]any{"node_id": "arch.store", "limit": 2})
	if isErr || n > 4096 {
		t.Fatalf("isError %v, %d chars: %+v", isErr, n, r.Error)
	}
	pg := pageOf(t, r)
	if len(pg.Omissions) != 1 || pg.Omissions[0].NodeID != "arch.store" || pg.Omissions[0].Reason != "response size limit" || pg.Omissions[0].Hash == "" {
		t.Fatalf("omissions: %+v", pg.Omissions)
	}
	if pg.Pagination.Position != 0 || !pg.Pagination.HasMore {
		t.Errorf("pagination: %+v", pg.Pagination)
	}
}

func TestGenerationDiffStates(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root, Diagnostics: true})
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "missing" {
		t.Errorf("before any sync: %s", r.Result)
	}
	callTool(t, cs, "docforge_sync", nil)
	r, isErr, _ := callTool(t, cs, "docforge_get_generation_diff", map[string]any{"limit": 5})
	pg := pageOf(t, r)
	if isErr || pg.ReceiptState != "current" || pg.Pagination.Returned != 5 || !pg.Pagination.HasMore || pg.Header["stored_receipt_hash"] == nil {
		t.Fatalf("current receipt: %s", r.Result)
	}
	// The watch proved the sources unchanged since the sync, so no stat walk took them.
	if !strings.Contains(string(r.Diagnostics), `"walks_skipped":1`) {
		t.Errorf("current receipt without the watch's proof: %s", r.Diagnostics)
	}
	r, _, _ = callTool(t, cs, "docforge_get_generation_diff", map[string]any{"limit": 5, "cursor": pg.Pagination.NextCursor})
	if next := pageOf(t, r); next.Pagination.Position != 5 || string(next.Items[0]) == string(pg.Items[0]) {
		t.Errorf("second page: %+v", next.Pagination)
	}
	// An edit not yet synced makes the receipt stale; the tool does not repair it.
	p := filepath.Join(root, "docs/architecture/store.md")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, append(src, "\nMore.\n"...), 0o644)
	r, _, _ = callTool(t, cs, "docforge_get_generation_diff", nil)
	if st := pageOf(t, r); st.ReceiptState != "stale" || len(st.Items) != 0 {
		t.Errorf("after an unsynced edit: %s", r.Result)
	}
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "stale" {
		t.Error("the diff tool synced: it must be non-repairing")
	}
	os.WriteFile(filepath.Join(root, ".docforge/index/generation-diff.json"), []byte("{not json"), 0o600)
	callTool(t, cs, "docforge_sync", nil) // rewrites a good receipt
	os.WriteFile(filepath.Join(root, ".docforge/index/generation-diff.json"), []byte("{not json"), 0o600)
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "unverified" {
		t.Errorf("corrupt receipt: %s", r.Result)
	}
	// A corrupt publication receipt, or an index file swapped at the same generation, prove
	// no generation: unverified, not stale.
	callTool(t, cs, "docforge_sync", map[string]any{"rebuild": true})
	publication := filepath.Join(root, ".docforge/index/publication.json")
	good, _ := os.ReadFile(publication)
	os.WriteFile(publication, []byte("{corrupt"), 0o600)
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "unverified" {
		t.Errorf("corrupt publication receipt: %s", r.Result)
	}
	os.WriteFile(publication, good, 0o600)
	idx := filepath.Join(root, ".docforge/index/manifest.json")
	data, _ := os.ReadFile(idx)
	os.Remove(idx)
	os.WriteFile(idx, data, 0o600) // the same bytes in a new file: another inode, the same generation
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "unverified" {
		t.Errorf("an index swapped at the same generation: %s", r.Result)
	}
	// A receipt that is a symlink fails the file-type check.
	receipt := filepath.Join(root, ".docforge/index/generation-diff.json")
	os.Remove(receipt)
	os.Symlink(filepath.Join(root, "docforge.toml"), receipt)
	if r, _, _ := callTool(t, cs, "docforge_get_generation_diff", nil); pageOf(t, r).ReceiptState != "unsafe" {
		t.Errorf("symlinked receipt: %s", r.Result)
	}
}

// The source watch lets unchanged calls skip the stat walk, yet every edit completed before a
// call is in that call's answer: rapid edit-then-call rounds, a new directory, a new file.
func TestWatchSkipsWalksButMissesNoEdit(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root, Diagnostics: true})
	callTool(t, cs, "docforge_bootstrap", nil)
	r, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
	if !strings.Contains(string(r.Diagnostics), `"walks_skipped":1`) {
		t.Errorf("an unchanged call did not skip the walk: %s", r.Diagnostics)
	}
	p := filepath.Join(root, "docs/architecture/store.md")
	orig, _ := os.ReadFile(p)
	for i := 0; i < 25; i++ {
		title := "Shipment store " + strings.Repeat("v", i+1)
		os.WriteFile(p, []byte(strings.Replace(string(orig), `title = "Shipment store"`, `title = "`+title+`"`, 1)), 0o644)
		r, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
		if !strings.Contains(string(r.Result), `"title":"`+title+`"`) {
			t.Fatalf("round %d: the edit is not in the next answer: %.200s", i, r.Result)
		}
	}
	dir := filepath.Join(root, "docs", "new", "deeper")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "n.md"), []byte("+++\nid = \"arch.brand-new\"\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"Brand new\"\n+++\nNew.\n"), 0o644)
	r, isErr, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.brand-new"})
	if isErr {
		t.Fatalf("a node in a new directory is not seen: %+v", r.Error)
	}
	// And a file added later inside that new directory, which the watch must now cover.
	os.WriteFile(filepath.Join(dir, "m.md"), []byte("+++\nid = \"arch.newer\"\nkind = \"component\"\nfamily = \"architecture\"\n+++\nNewer.\n"), 0o644)
	if r, isErr, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.newer"}); isErr {
		t.Fatalf("a file added to a new directory is not seen: %+v", r.Error)
	}
}

// Files outside the roots (a build output at the project root) do not defeat the watch, but an
// edit of docforge.toml does reach the next answer.
func TestWatchIgnoresNonSourcesButSeesTheDescriptor(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root, Diagnostics: true})
	callTool(t, cs, "docforge_bootstrap", nil)
	os.WriteFile(filepath.Join(root, "build-output.txt"), []byte("x"), 0o644)
	r, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
	if !strings.Contains(string(r.Diagnostics), `"walks_skipped":1`) {
		t.Errorf("a non-source file at the root forced a walk: %s", r.Diagnostics)
	}
	desc := filepath.Join(root, "docforge.toml")
	src, _ := os.ReadFile(desc)
	os.WriteFile(desc, []byte(strings.Replace(string(src), `name = "Courier parcel tracking"`, `name = "Courier, renamed"`, 1)), 0o644)
	r, _, _ = callTool(t, cs, "docforge_project_info", nil)
	if !strings.Contains(string(r.Result), `"name":"Courier, renamed"`) {
		t.Errorf("a descriptor edit is not in the next answer: %.300s", r.Result)
	}
}

// While the project is invalid every answer comes from the last good generation and says it
// is stale, call after call: the watch must not turn a failed sync into "current".
func TestInvalidProjectStaysStaleUnderTheWatch(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root})
	callTool(t, cs, "docforge_bootstrap", nil)
	p := filepath.Join(root, "docs/architecture/store.md")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(src), `kind = "component"`, `kind = "no-such-kind"`, 1)), 0o644)
	for i := 0; i < 3; i++ {
		r, isErr, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.api"})
		if isErr || r.Staleness != "stale" {
			t.Fatalf("call %d on an invalid project: isError %v staleness %q", i, isErr, r.Staleness)
		}
	}
	os.WriteFile(p, src, 0o644)
	if r, _, _ := callTool(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.api"}); r.Staleness != "current" {
		t.Errorf("after the fix: staleness %q", r.Staleness)
	}
}

// docforge_render_status: cheap by default (with the watch's proof, not even a stat walk),
// states that follow the outputs and sources, and the deep oracle on request.
func TestRenderStatusTool(t *testing.T) {
	root := example(t)
	os.RemoveAll(filepath.Join(root, "site")) // pages a local 'make demo' rendered into the example
	cs := connect(t, protocol.Binding{ProjectRoot: root, Diagnostics: true})
	type status struct {
		State string
		Views []struct {
			ViewID string `json:"view_id"`
			State  string
			Deep   *struct{ Identical bool }
		}
	}
	get := func(args map[string]any) (status, result) {
		r, isErr, _ := callTool(t, cs, "docforge_render_status", args)
		var s status
		if isErr || json.Unmarshal(r.Result, &s) != nil {
			t.Fatalf("render status: %+v", r.Error)
		}
		return s, r
	}
	if s, _ := get(nil); s.State != "missing" || len(s.Views) != 2 {
		t.Errorf("before any render: %+v", s)
	}
	d, _, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := render.Publish(context.Background(), d, "", nil, render.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "docforge_bootstrap", nil) // the watch has proven the index current
	s, r := get(nil)
	if s.State != "current" || r.Staleness != "current" || !strings.Contains(string(r.Diagnostics), `"walks_skipped":1`) {
		t.Errorf("after render: %+v %s %s", s, r.Staleness, r.Diagnostics)
	}
	if s, _ := get(map[string]any{"view_id": "requirements", "deep": true}); s.State != "current" || len(s.Views) != 1 || s.Views[0].Deep == nil || !s.Views[0].Deep.Identical {
		t.Errorf("deep: %+v", s)
	}
	p := filepath.Join(root, "docs/architecture/store.md")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\nMore.\n")...), 0o644)
	if s, _ := get(map[string]any{"view_id": "architecture"}); s.State != "stale" {
		t.Errorf("after a source edit: %+v", s)
	}
	if r, isErr, _ := callTool(t, cs, "docforge_render_status", map[string]any{"view_id": "nope"}); !isErr || r.Error == nil || r.Error.Code != "invalid_argument" {
		t.Errorf("unknown view: %+v", r.Error)
	}
}
