package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// Every tool runs through Service.Call, beside its code: a session on the example reads,
// proposes, checks, previews and applies, each tool once at least with arguments its input
// type takes, and each answers a result (or the one error the step expects). It does at the
// default output limit, and at the smallest a descriptor accepts (project.MinResponseChars),
// with diagnostics asked for, on a project whose root is 200 characters long: every answer
// still fits and carries its full identity (project, root, revision, source hash).
func TestEveryToolRunsThroughServiceCall(t *testing.T) {
	t.Run("default limit", func(t *testing.T) { everyTool(t, CopyExample(t, nil), false) })
	t.Run("smallest limit", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "p")
		root += strings.Repeat("/a-folder", (200-len(root))/len("/a-folder"))
		copyExampleTo(t, root)
		setResponseLimit(t, root, project.MinResponseChars)
		t.Logf("root of %d characters", len(root))
		everyTool(t, root, true)
	})
}

func everyTool(t *testing.T, root string, diagnostics bool) {
	w := newWatched(t, root)
	w.b.Diagnostics = diagnostics
	read := w.b
	writer := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent", Diagnostics: diagnostics}
	applier := protocol.Binding{ProjectRoot: root, CanonicalApplier: "maintainer", CapabilityMode: protocol.ModeApplication, Diagnostics: diagnostics}
	d, _, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	limit := d.Limits.MaxResponseChars
	ran := map[string]bool{}
	call := func(b protocol.Binding, tool, args, wantCode string) json.RawMessage {
		t.Helper()
		ran[tool] = true
		out, err := w.svc.Call(context.Background(), b, tool, []byte(args))
		var env struct {
			Project    struct{ ID, Root string }
			Revision   int64
			SourceHash string          `json:"source_hash"`
			Result     json.RawMessage `json:"result"`
			Error      *struct{ Code string }
		}
		if jerr := json.Unmarshal(out, &env); jerr != nil {
			t.Fatalf("%s: not an envelope (%v): %.200s", tool, jerr, out)
		}
		if len(out) > limit || env.Project.ID != "courier" || env.Project.Root != root || env.Revision == 0 || env.SourceHash == "" {
			t.Errorf("%s: %d characters (max_response_chars %d), identity %+v %d %q", tool, len(out), limit, env.Project, env.Revision, env.SourceHash)
		}
		switch {
		case wantCode == "" && (err != nil || env.Error != nil || len(env.Result) == 0):
			t.Errorf("%s %s: %v %.300s", tool, args, err, out)
		case wantCode != "" && (env.Error == nil || env.Error.Code != wantCode):
			t.Errorf("%s %s: want %s, got %.300s", tool, args, wantCode, out)
		}
		return env.Result
	}
	for _, step := range []struct {
		b               protocol.Binding
		tool, args, err string
	}{
		{read, "docforge_bootstrap", `{}`, ""},
		{read, "docforge_sync", `{"rebuild":true}`, ""},
		{read, "docforge_project_info", `{}`, ""},
		{read, "docforge_get_contract", `{}`, ""},
		{read, "docforge_get_node", `{"node_id":"arch.store"}`, ""},
		{read, "docforge_get_logic", `{"node_id":"go:example.com/courier/store.Log.State"}`, ""},
		{read, "docforge_search", `{"query":"late events","limit":2}`, ""},
		{read, "docforge_filter_nodes", `{"family":"requirements","limit":3}`, ""},
		{read, "docforge_backlinks", `{"node_id":"arch.store","limit":3}`, ""},
		{read, "docforge_dependencies", `{"node_id":"arch.store"}`, ""},
		{read, "docforge_impact", `{"node_id":"arch.store","depth":1,"limit":5,"budget":100}`, ""},
		{read, "docforge_get_context", `{"node_id":"arch.store","limit":2}`, ""},
		{read, "docforge_get_task_context", `{"kind":"change","task":"change how the shipment store writes events","budget":3000}`, ""},
		{read, "docforge_validate_project", `{"limit":5}`, ""},
		{read, "docforge_render_status", `{"view_id":"architecture"}`, ""},
		{read, "docforge_get_generation_diff", `{"limit":2}`, ""},
		{read, "docforge_visualize", `{"node_id":"arch.store","view":"flow"}`, ""},
		{read, "docforge_visualization_status", `{}`, ""},
		{read, "docforge_stop_visualization", `{}`, ""},
		{writer, "docforge_create_changeset", `{"changeset_id":"cs-every","title":"Every tool","description":"a test"}`, ""},
		{writer, "docforge_propose_node_update", `{"changeset_id":"cs-every","node_id":"arch.api","fields":{"title":"Tracking API, renamed"}}`, ""},
		{writer, "docforge_propose_node_create", `{"changeset_id":"cs-every","node_id":"arch.every","path":"docs/architecture/every.md","fields":{"kind":"component","family":"architecture","title":"Every","body":"New."}}`, ""},
		{writer, "docforge_propose_relationship_update", `{"changeset_id":"cs-every","node_id":"arch.every","add":[{"relation":"depends_on","target_id":"arch.store"}]}`, ""},
		{writer, "docforge_create_changeset", `{"changeset_id":"cs-other","title":"Moves and deletes"}`, ""},
		{writer, "docforge_propose_node_move", `{"changeset_id":"cs-other","node_id":"arch.scheduler","path":"docs/architecture/moved.md"}`, ""},
		{writer, "docforge_propose_node_delete", `{"changeset_id":"cs-other","node_id":"arch.notifier"}`, ""},
		{writer, "docforge_abandon_changeset", `{"changeset_id":"cs-other","reason":"only a test"}`, ""},
		{writer, "docforge_register_changes", `{"changeset_id":"cs-registered","title":"Registered","operations":[{"op":"update","node_id":"arch.store","fields":{"status":"draft"}}]}`, ""},
		{read, "docforge_list_changesets", `{"status":"all","limit":5}`, ""},
		{read, "docforge_validate_changeset", `{"changeset_id":"cs-every"}`, ""},
		{read, "docforge_get_changeset_diff", `{"changeset_id":"cs-every","limit":3}`, ""},
		{read, "docforge_preview_changeset", `{"changeset_id":"cs-every","view_id":"architecture"}`, ""},
		{writer, "docforge_rebase_changeset", `{"changeset_id":"cs-every"}`, "changeset_state"},
	} {
		call(step.b, step.tool, step.args, step.err)
	}
	got := call(read, "docforge_get_changeset", `{"changeset_id":"cs-every"}`, "")
	var cs struct {
		Hash string `json:"changeset_hash"`
	}
	if err := json.Unmarshal(got, &cs); err != nil || cs.Hash == "" {
		t.Fatalf("get_changeset: %v %s", err, got)
	}
	call(applier, "docforge_apply_changeset", `{"changeset_id":"cs-every","changeset_hash":"`+cs.Hash+`"}`, "")
	node := call(read, "docforge_get_node", `{"node_id":"arch.every"}`, "")
	if nodeID(node) != "arch.every" {
		t.Errorf("the applied node: %s", node)
	}
	for _, tool := range Tools() {
		if !ran[tool.Name] {
			t.Errorf("%s was never called here", tool.Name)
		}
	}
}

func nodeID(raw json.RawMessage) string {
	var n struct {
		ID string `json:"id"`
	}
	json.Unmarshal(raw, &n)
	return n.ID
}

// max_response_chars is the MCP output limit: an MCP answer is cut to it, a local binding's
// (the CLI's) is not.
func TestLocalCallsAreNotCutToTheMCPLimit(t *testing.T) {
	root := CopyExample(t, func(root string) {
		p := filepath.Join(root, "docforge.toml")
		s, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(s), "max_response_chars = 65536", "max_response_chars = 4096", 1)), 0o644)
		long := "+++\nid = \"arch.long\"\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"Long\"\n+++\n" + strings.Repeat("A long design note. ", 800)
		os.WriteFile(filepath.Join(root, "docs", "architecture", "long.md"), []byte(long), 0o644)
	})
	w := newWatched(t, root)
	args := []byte(`{"node_id":"arch.long"}`)
	mcp, err := w.svc.Call(context.Background(), w.b, "docforge_get_node", args)
	if err != nil || len(mcp) > 4096 || !strings.Contains(string(mcp), `"body_truncated":true`) {
		t.Errorf("MCP answer: %v, %d characters", err, len(mcp))
	}
	b := w.b
	b.Local = true
	local, err := w.svc.Call(context.Background(), b, "docforge_get_node", args)
	if err != nil || len(local) <= 16000 || strings.Contains(string(local), "body_truncated") {
		t.Errorf("local answer: %v, %d characters", err, len(local))
	}
}

// The generation-diff page's receipt_header is every stored receipt field but the items, each
// value byte for byte as the stored receipt holds it (an mtime in nanoseconds too, which a
// float64 would round), and the stored receipt's own hash.
func TestGenerationDiffHeaderIsTheStoredReceipt(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	for round := range 5 { // a few generations, each with its own index file and mtime
		if round > 0 {
			fixture.Append(t, filepath.Join(root, "docs/architecture/store.md"), "\nMore.\n")
		}
		w.svc.Call(context.Background(), w.b, "docforge_sync", nil)
		d, _, _ := project.Load(root)
		diffPath := publication.PathsFor(d, w.b.Policy()).Diff
		var env struct {
			Result struct {
				State  string                     `json:"receipt_state"`
				Header map[string]json.RawMessage `json:"receipt_header"`
			}
		}
		// A merge the sync made due may sign the receipt over to its new index file at any
		// moment: the answer is compared with the receipt as it was before and after it, the
		// same both times.
		var raw []byte
		for try := 0; ; try++ {
			before, err := os.ReadFile(diffPath)
			if err != nil {
				t.Fatal(err)
			}
			out, err := w.svc.Call(context.Background(), w.b, "docforge_get_generation_diff", []byte(`{"limit":1}`))
			if err != nil || json.Unmarshal(out, &env) != nil || env.Result.State != "current" {
				t.Fatalf("round %d: %v state %q %.300s", round, err, env.Result.State, out)
			}
			if raw, err = os.ReadFile(diffPath); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(before, raw) {
				break
			}
			if try == 10 {
				t.Fatalf("round %d: the receipt kept changing under the call", round)
			}
		}
		var stored map[string]json.RawMessage
		if err := json.Unmarshal(raw, &stored); err != nil {
			t.Fatal(err)
		}
		header := env.Result.Header
		if len(header) != len(stored) { // every field but items, and stored_receipt_hash
			t.Errorf("round %d: header has %d fields, the stored receipt %d", round, len(header), len(stored))
		}
		for k, v := range stored {
			if k == "items" {
				continue
			}
			var a, b bytes.Buffer
			json.Compact(&a, v)
			json.Compact(&b, header[k])
			if a.String() != b.String() {
				t.Errorf("round %d: receipt_header.%s is %s; stored %s", round, k, b.String(), a.String())
			}
		}
		if string(header["stored_receipt_hash"]) != string(stored["receipt_hash"]) {
			t.Errorf("round %d: stored_receipt_hash %s, stored %s", round, header["stored_receipt_hash"], stored["receipt_hash"])
		}
	}
}
