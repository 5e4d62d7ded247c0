package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// proposalSession connects a client bound to the example's declared writer.
func proposalSession(t *testing.T, root string) *mcp.ClientSession {
	return connect(t, protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"})
}

// must calls a tool that must succeed and decodes its result into v.
func must(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, v any) {
	t.Helper()
	r, isErr, _ := callTool(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v): %s: %s", name, args, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// refused calls a tool that must fail with code.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) {
	t.Helper()
	r, isErr, _ := callTool(t, cs, name, args)
	if !isErr || r.Error == nil || r.Error.Code != code {
		t.Fatalf("%s(%v): want %s, got error=%v %+v %s", name, args, code, isErr, r.Error, r.Result)
	}
}

type mutation struct {
	ChangesetID string `json:"changeset_id"`
	Hash        string `json:"changeset_hash"`
	Status      string `json:"status"`
	Committed   bool   `json:"mutation_committed"`
	Compact     bool   `json:"compact"`
	Report      *changeset.Report
}

// tree hashes every file under root except the changeset and preview roots, to prove a
// proposal tool changed no canonical file.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		rel, _ := filepath.Rel(root, p)
		if info.IsDir() && (rel == ".docforge") {
			return filepath.SkipDir
		}
		if !info.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(rel + "\x00" + changeset.HashBytes(data) + "\n")
		}
		return nil
	})
	return b.String()
}

func TestProposalToolsLifecycle(t *testing.T) {
	root := example(t)
	cs := proposalSession(t, root)
	before := tree(t, root)
	var node struct {
		ContentHash string `json:"content_hash"`
	}
	must(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"}, &node)

	// create + propose_* build a draft step by step; a target created later leaves it a draft.
	var m mutation
	must(t, cs, "docforge_create_changeset", map[string]any{"title": "Split the store", "changeset_id": "cs-split"}, &m)
	if m.ChangesetID != "cs-split" || m.Status != changeset.Draft || !m.Committed {
		t.Fatalf("create: %+v", m)
	}
	must(t, cs, "docforge_propose_relationship_update", map[string]any{"changeset_id": "cs-split", "node_id": "arch.store",
		"expected_content_hash": node.ContentHash, "add": []map[string]any{{"relation": "depends_on", "target_id": "arch.cache"}}}, &m)
	if m.Status != changeset.Draft || m.Report.Valid || m.Report.Errors != 1 {
		t.Fatalf("dangling relation should leave a draft: %+v %+v", m, m.Report)
	}
	must(t, cs, "docforge_propose_node_create", map[string]any{"changeset_id": "cs-split", "node_id": "arch.cache", "path": "docs/architecture/cache.md",
		"fields": map[string]any{"kind": "component", "family": "architecture", "title": "Read cache", "body": "# Read cache\n\nKeeps hot shipments.\n"}}, &m)
	if m.Status != changeset.Ready || !m.Report.Valid {
		t.Fatalf("complete changeset should be ready: %+v", m.Report)
	}
	must(t, cs, "docforge_propose_node_update", map[string]any{"changeset_id": "cs-split", "node_id": "arch.notifier", "fields": map[string]any{"status": "draft"}}, &m)
	must(t, cs, "docforge_propose_node_move", map[string]any{"changeset_id": "cs-split", "node_id": "arch.scheduler", "path": "docs/architecture/jobs/scheduler.md"}, &m)
	must(t, cs, "docforge_propose_node_delete", map[string]any{"changeset_id": "cs-split", "node_id": "arch.cache"}, &m)
	if m.Status != changeset.Draft {
		t.Fatalf("deleting the new target leaves a dangling relation: %+v", m.Report)
	}
	must(t, cs, "docforge_propose_relationship_update", map[string]any{"changeset_id": "cs-split", "node_id": "arch.store",
		"remove": []map[string]any{{"relation": "depends_on", "target_id": "arch.cache"}}}, &m)
	if m.Status != changeset.Ready {
		t.Fatalf("after removing the relation again: %+v", m.Report)
	}
	hash := m.Hash

	var got struct {
		Hash       string                `json:"changeset_hash"`
		Operations []changeset.Operation `json:"operations"`
		Receipts   []changeset.Receipt   `json:"receipts"`
	}
	must(t, cs, "docforge_get_changeset", map[string]any{"changeset_id": "cs-split"}, &got)
	if got.Hash != hash || len(got.Operations) != 6 || len(got.Receipts) != 7 || got.Operations[2].ExpectedContentHash == "" {
		t.Fatalf("get: %+v", got)
	}
	var val struct {
		Valid  bool   `json:"valid"`
		Status string `json:"status"`
	}
	must(t, cs, "docforge_validate_changeset", map[string]any{"changeset_id": "cs-split"}, &val)
	if !val.Valid || val.Status != changeset.Ready {
		t.Fatalf("validate: %+v", val)
	}
	var diff struct {
		Format  string             `json:"format"`
		Changes []changeset.Change `json:"changes"`
	}
	must(t, cs, "docforge_get_changeset_diff", map[string]any{"changeset_id": "cs-split"}, &diff)
	if diff.Format != "pages" || len(diff.Changes) != 3 || !strings.Contains(diff.Changes[1].FrontMatterDiff, `+status = "draft"`) {
		t.Fatalf("diff: %+v", diff)
	}
	var prev worker.PreviewResult
	must(t, cs, "docforge_preview_changeset", map[string]any{"changeset_id": "cs-split", "view_id": "architecture"}, &prev)
	page, err := os.ReadFile(filepath.Join(root, prev.Path))
	if err != nil || !strings.HasPrefix(prev.Path, ".docforge/previews/cs-split/") || !strings.Contains(string(page), "arch.scheduler") {
		t.Fatalf("preview %+v: %v", prev, err)
	}
	refused(t, cs, "docforge_preview_changeset", map[string]any{"changeset_id": "cs-split", "view_id": "nope"}, "invalid_argument")

	var list struct {
		Changesets []struct {
			ID     string `json:"changeset_id"`
			Status string `json:"status"`
		} `json:"changesets"`
	}
	must(t, cs, "docforge_list_changesets", nil, &list)
	if len(list.Changesets) != 1 || list.Changesets[0].ID != "cs-split" {
		t.Fatalf("list: %+v", list)
	}

	// An overlapping registration conflicts; a disjoint one is ready at once.
	ops := []map[string]any{{"op": "update", "node_id": "arch.notifier", "fields": map[string]any{"title": "Notifications"}}}
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "rename", "operations": ops}, "changeset_conflict")
	ops[0]["node_id"] = "arch.api"
	must(t, cs, "docforge_register_changes", map[string]any{"title": "rename", "changeset_id": "cs-api", "operations": ops}, &m)
	if m.Status != changeset.Ready {
		t.Fatalf("register: %+v", m.Report)
	}
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "bad", "operations": []map[string]any{{"op": "delete", "node_id": "req.track-lookup"}}}, "changeset_invalid")
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "bad", "operations": []map[string]any{{"op": "update", "node_id": "arch.ingest", "expected_content_hash": "sha256:00", "fields": map[string]any{"title": "x"}}}}, "changeset_stale")
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "bad", "operations": []map[string]any{{"op": "create", "node_id": "x.y", "path": "../outside.md", "fields": map[string]any{"kind": "component", "family": "architecture"}}}}, "path_escape")
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "bad", "operations": []map[string]any{}}, "invalid_argument")
	refused(t, cs, "docforge_propose_relationship_update", map[string]any{"changeset_id": "cs-api", "node_id": "arch.api"}, "invalid_argument")
	refused(t, cs, "docforge_get_changeset", map[string]any{"changeset_id": "cs-none"}, "changeset_not_found")
	refused(t, cs, "docforge_rebase_changeset", map[string]any{"changeset_id": "cs-api"}, "changeset_state")

	// A canonical edit makes cs-api stale; validation records it, rebase brings it back.
	original, _ := os.ReadFile(filepath.Join(root, "docs/architecture/api.md"))
	os.WriteFile(filepath.Join(root, "docs/architecture/api.md"), append(slices.Clone(original), "\nMore text.\n"...), 0o644)
	must(t, cs, "docforge_validate_changeset", map[string]any{"changeset_id": "cs-api"}, &val)
	if val.Valid || val.Status != changeset.Stale {
		t.Fatalf("after an edit: %+v", val)
	}
	must(t, cs, "docforge_list_changesets", map[string]any{"status": "stale"}, &list)
	if len(list.Changesets) != 1 || list.Changesets[0].ID != "cs-api" {
		t.Fatalf("stale list: %+v", list)
	}
	must(t, cs, "docforge_rebase_changeset", map[string]any{"changeset_id": "cs-api"}, &m)
	if m.Status != changeset.Ready || m.Hash == "" {
		t.Fatalf("rebase: %+v", m)
	}
	must(t, cs, "docforge_abandon_changeset", map[string]any{"changeset_id": "cs-api", "reason": "superseded"}, &m)
	if m.Status != changeset.Abandoned {
		t.Fatalf("abandon: %+v", m)
	}
	refused(t, cs, "docforge_propose_node_delete", map[string]any{"changeset_id": "cs-api", "node_id": "arch.api"}, "changeset_state")
	must(t, cs, "docforge_list_changesets", map[string]any{"status": "abandoned"}, &list)
	if len(list.Changesets) != 1 {
		t.Fatalf("abandoned list: %+v", list)
	}
	// Nothing outside the changeset and preview roots changed, except the test's own edit.
	os.WriteFile(filepath.Join(root, "docs/architecture/api.md"), original, 0o644)
	if after := tree(t, root); after != before {
		t.Fatalf("canonical files changed:\n%s\n---\n%s", before, after)
	}
}

func TestProposalAccessAndPermissions(t *testing.T) {
	root := example(t, `operations = ["create", "update", "move", "relationship_update", "delete"]`, `operations = ["update"]`)
	// Without a writer: mutations are disabled, reads and preview still answer.
	ro := connect(t, protocol.Binding{ProjectRoot: root})
	for _, tool := range []string{"docforge_create_changeset", "docforge_register_changes", "docforge_rebase_changeset", "docforge_abandon_changeset",
		"docforge_propose_node_create", "docforge_propose_node_update", "docforge_propose_node_move", "docforge_propose_relationship_update", "docforge_propose_node_delete"} {
		args := map[string]any{"changeset_id": "cs-x", "title": "t", "node_id": "arch.store", "path": "docs/x.md", "fields": map[string]any{"title": "x"},
			"operations": []map[string]any{{"op": "update", "node_id": "arch.store"}}, "add": []map[string]any{{"relation": "depends_on", "target_id": "arch.api"}}}
		for _, k := range unusedArgs[tool] {
			delete(args, k)
		}
		refused(t, ro, tool, args, "proposal_access_disabled")
	}
	must(t, ro, "docforge_list_changesets", nil, nil)
	// The writer may only update.
	cs := proposalSession(t, root)
	refused(t, cs, "docforge_register_changes", map[string]any{"title": "t", "operations": []map[string]any{{"op": "delete", "node_id": "dec.mutable-rows"}}}, "operation_not_permitted")
	var m mutation
	must(t, cs, "docforge_register_changes", map[string]any{"title": "t", "changeset_id": "cs-ok", "operations": []map[string]any{{"op": "update", "node_id": "arch.store", "fields": map[string]any{"title": "Store"}}}}, &m)
	for _, name := range []string{"docforge_validate_changeset", "docforge_get_changeset_diff", "docforge_get_changeset"} {
		must(t, ro, name, map[string]any{"changeset_id": "cs-ok"}, nil)
	}
	must(t, ro, "docforge_preview_changeset", map[string]any{"changeset_id": "cs-ok", "view_id": "architecture"}, nil)
	// The read capability mode does not register the proposal surface at all.
	read := connect(t, protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead})
	list, err := read.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if strings.Contains(tool.Name, "changeset") || strings.Contains(tool.Name, "propose") {
			t.Errorf("read mode registers %s", tool.Name)
		}
	}
}

// unusedArgs are the arguments each tool's closed schema does not take.
var unusedArgs = map[string][]string{
	"docforge_create_changeset":            {"node_id", "path", "fields", "add"},
	"docforge_register_changes":            {"node_id", "path", "fields", "add"},
	"docforge_rebase_changeset":            {"title", "node_id", "path", "fields", "operations", "add"},
	"docforge_abandon_changeset":           {"title", "node_id", "path", "fields", "operations", "add"},
	"docforge_propose_node_create":         {"title", "operations", "add"},
	"docforge_propose_node_update":         {"title", "path", "operations", "add"},
	"docforge_propose_node_move":           {"title", "fields", "operations", "add"},
	"docforge_propose_relationship_update": {"title", "path", "fields", "operations"},
	"docforge_propose_node_delete":         {"title", "path", "fields", "operations", "add"},
}

func TestLargeChangesetPagesAndChunks(t *testing.T) {
	root := example(t, "max_response_chars = 65536", "max_response_chars = 1048576")
	cs := proposalSession(t, root)
	var body strings.Builder
	for i := 0; body.Len() < 2<<20; i++ {
		fmt.Fprintf(&body, "Line %d of a long body, with \"quotes\", a back\\slash and caf\u00e9.\n", i)
	}
	var m mutation
	must(t, cs, "docforge_register_changes", map[string]any{"title": "long", "changeset_id": "cs-long",
		"operations": []map[string]any{{"op": "update", "node_id": "arch.store", "fields": map[string]any{"body": body.String()}}}}, &m)
	if !m.Compact || !m.Committed || m.Status != changeset.Ready || !strings.HasPrefix(m.Hash, "sha256:") {
		t.Fatalf("a committed mutation too large to show must come back as a compact receipt: %+v", m)
	}
	d := loadDescriptor(t, root)
	st, _ := changeset.OpenStore(d)
	rec, err := st.Load("cs-long")
	if err != nil || rec.Hash != m.Hash {
		t.Fatalf("stored: %v %v", err, rec)
	}
	// get: the operation does not fit a page, so it is summarised with its hash and size.
	var got struct {
		Operations []json.RawMessage `json:"operations"`
		Summaries  []struct {
			Hash  string `json:"entry_hash"`
			Chars int    `json:"chars"`
		} `json:"summaries"`
	}
	must(t, cs, "docforge_get_changeset", map[string]any{"changeset_id": "cs-long"}, &got)
	opJSON, _ := changeset.Canonical(rec.Changeset.Operations[0])
	if len(got.Operations) != 0 || len(got.Summaries) != 1 || got.Summaries[0].Chars != len(opJSON) || got.Summaries[0].Hash != changeset.HashBytes(opJSON) {
		t.Fatalf("get summaries: %+v", got.Summaries)
	}
	// diff: canonical_json_chunk pages whose concatenation is the exact payload.
	var payload strings.Builder
	cursor, pages, wantHash := "", 0, ""
	for {
		args := map[string]any{"changeset_id": "cs-long"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page struct {
			Format      string `json:"format"`
			PayloadHash string `json:"payload_hash"`
			ChunkIndex  int    `json:"chunk_index"`
			Chunk       string `json:"chunk"`
			Pagination  worker.Pagination
		}
		must(t, cs, "docforge_get_changeset_diff", args, &page)
		if page.Format != "canonical_json_chunk" || page.ChunkIndex != pages {
			t.Fatalf("page %d: format %s index %d", pages, page.Format, page.ChunkIndex)
		}
		wantHash = page.PayloadHash
		payload.WriteString(page.Chunk)
		pages++
		if !page.Pagination.HasMore {
			break
		}
		cursor = page.Pagination.NextCursor
	}
	if got := changeset.HashBytes([]byte(payload.String())); got != wantHash || pages < 2 {
		t.Fatalf("reassembled %d pages hash to %s, want %s", pages, got, wantHash)
	}
	var decoded struct {
		Operations []changeset.Operation `json:"operations"`
		Changes    []changeset.Change    `json:"changes"`
	}
	if err := json.Unmarshal([]byte(payload.String()), &decoded); err != nil {
		t.Fatal(err)
	}
	again, _ := changeset.Canonical(decoded.Operations)
	stored, _ := changeset.Canonical(rec.Changeset.Operations)
	if string(again) != string(stored) || len(decoded.Changes) != 1 || !strings.Contains(decoded.Changes[0].BodyDiff, "+Line 100 of a long body") {
		t.Fatalf("reassembled payload differs from the stored operations (%d changes)", len(decoded.Changes))
	}
}

func TestMutationPreflight(t *testing.T) {
	long := strings.Repeat("A long project name. ", 190)
	root := example(t, `name = "Courier parcel tracking"`, `name = "`+long+`"`, "max_response_chars = 65536", "max_response_chars = 4096")
	cs := proposalSession(t, root)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "docforge_register_changes", Arguments: map[string]any{"title": "t",
		"operations": []map[string]any{{"op": "update", "node_id": "arch.store", "fields": map[string]any{"title": "Store"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, `"code":"result_too_large"`) || !strings.Contains(text, `"stage":"preflight"`) || !strings.Contains(text, `"mutation_committed":false`) {
		t.Fatalf("preflight: %s", text)
	}
	st, _ := changeset.OpenStore(loadDescriptor(t, root))
	if recs, _, _ := st.List(); len(recs) != 0 {
		t.Fatalf("a refused preflight stored %d changesets", len(recs))
	}
}

func loadDescriptor(t *testing.T, root string) *project.Descriptor {
	t.Helper()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load: %v %v", err, probs)
	}
	return d
}
