package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/docforge/docforge/worker/protocol"
)

// canonicalTree hashes every file of the project outside .docforge: what no bad input may
// change.
func canonicalTree(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".docforge" {
			return filepath.SkipDir
		}
		if !e.IsDir() {
			data, _ := os.ReadFile(p)
			sum := sha256.Sum256(data)
			rel, _ := filepath.Rel(root, p)
			lines = append(lines, rel+" "+hex.EncodeToString(sum[:]))
		}
		return nil
	})
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// Hostile input to the MCP tools: each bad call answers its own error code with no machine
// path in the message, the canonical tree is unchanged, and the service answers the next
// good call.
func TestHostileToolInput(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	writer := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	w.node("arch.store")
	other := CopyExample(t, func(root string) {
		p := filepath.Join(root, "docforge.toml")
		s, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(s), `id = "courier"`, `id = "other"`, 1)), 0o644)
	})
	// Cursors of another project, of a copy of this one (the same ID at another root), of
	// another page limit, and of task context at another page limit.
	nextCursor := func(b protocol.Binding, tool, args string) string {
		out, _ := w.svc.Call(context.Background(), b, tool, []byte(args))
		var p struct {
			Result struct {
				Pagination struct {
					NextCursor string `json:"next_cursor"`
				} `json:"pagination"`
			} `json:"result"`
		}
		json.Unmarshal(out, &p)
		if p.Result.Pagination.NextCursor == "" {
			t.Fatalf("no cursor from %s %s: %.300s", tool, args, out)
		}
		return p.Result.Pagination.NextCursor
	}
	foreign := nextCursor(protocol.Binding{ProjectRoot: other}, "docforge_get_context", `{"node_id":"arch.store","limit":1}`)
	sameID := nextCursor(protocol.Binding{ProjectRoot: CopyExample(t, nil)}, "docforge_get_context", `{"node_id":"arch.store","limit":1}`)
	limitOne := nextCursor(w.b, "docforge_get_context", `{"node_id":"arch.store","limit":1}`)
	taskLimitOne := nextCursor(w.b, "docforge_get_task_context", `{"kind":"change","task":"store","limit":1}`)
	before := canonicalTree(t, root)
	long := strings.Repeat("x", 20000)
	deep := strings.Repeat(`{"a":`, 3000) + "1" + strings.Repeat("}", 3000)
	register := func(path, title string) string {
		return `{"changeset_id":"cs-hostile","title":` + jsonString(title) + `,"operations":[{"op":"create","node_id":"arch.hostile","path":` + jsonString(path) +
			`,"fields":{"kind":"component","family":"architecture","title":"Hostile"}}]}`
	}
	for _, tc := range []struct {
		name, tool, args string
		b                protocol.Binding
		code             string
	}{
		{"unknown tool", "docforge_sql", `{}`, w.b, "invalid_argument"},
		{"arguments not an object", "docforge_get_node", `[1,2]`, w.b, "invalid_argument"},
		{"arguments not JSON", "docforge_get_node", `{"node_id":`, w.b, "invalid_argument"},
		{"deep JSON", "docforge_get_node", deep, w.b, "invalid_argument"},
		{"unknown argument", "docforge_get_node", `{"node_id":"arch.store","sql":"drop"}`, w.b, "invalid_argument"},
		{"node_id of the wrong type", "docforge_get_node", `{"node_id":7}`, w.b, "invalid_argument"},
		// Each tool decodes into its own input type, whose schema is the one it publishes: an
		// argument another tool takes is not silently accepted.
		{"an argument of another tool", "docforge_get_node", `{"node_id":"arch.store","limit":3}`, w.b, "invalid_argument"},
		{"a field another operation takes", "docforge_propose_node_create", `{"changeset_id":"cs-x","node_id":"arch.new","path":"docs/new.md","fields":{"title":"N"},"add":[{"relation":"depends_on","target_id":"arch.store"}]}`, writer, "invalid_argument"},
		{"node_id missing", "docforge_get_node", `{}`, w.b, "invalid_argument"},
		{"node_id with a NUL", "docforge_get_node", `{"node_id":"arch\u0000store"}`, w.b, "invalid_argument"},
		{"node_id with an escape", "docforge_get_node", `{"node_id":"\u001b[2J"}`, w.b, "invalid_argument"},
		{"node_id a traversal", "docforge_get_node", `{"node_id":"../../etc/passwd"}`, w.b, "invalid_argument"},
		{"node_id over long", "docforge_get_node", `{"node_id":"` + long + `"}`, w.b, "invalid_argument"},
		{"node_id that does not exist", "docforge_get_node", `{"node_id":"arch.nope"}`, w.b, "node_not_found"},
		{"logic of a document", "docforge_get_logic", `{"node_id":"arch.store"}`, w.b, "invalid_argument"},
		{"search empty", "docforge_search", `{"query":"   "}`, w.b, "invalid_argument"},
		{"search over long", "docforge_search", `{"query":"` + long + `"}`, w.b, "invalid_argument"},
		{"search of many prefixes", "docforge_search", `{"query":"` + strings.Repeat("a* ", 4000) + `"}`, w.b, "invalid_argument"},
		{"search limit 0", "docforge_search", `{"query":"store","limit":0}`, w.b, "invalid_argument"},
		{"search limit negative", "docforge_search", `{"query":"store","limit":-1}`, w.b, "invalid_argument"},
		{"search limit a string", "docforge_search", `{"query":"store","limit":"9"}`, w.b, "invalid_argument"},
		{"search limit a float", "docforge_search", `{"query":"store","limit":1.5}`, w.b, "invalid_argument"},
		{"filter by an unknown field", "docforge_filter_nodes", `{"colour":"red"}`, w.b, "invalid_argument"},
		{"backlinks limit 0", "docforge_backlinks", `{"node_id":"arch.store","limit":0}`, w.b, "invalid_argument"},
		{"impact depth negative", "docforge_impact", `{"node_id":"arch.store","depth":-1}`, w.b, "invalid_argument"},
		{"impact depth huge", "docforge_impact", `{"node_id":"arch.store","depth":1000000}`, w.b, "invalid_argument"},
		{"impact budget 0", "docforge_impact", `{"node_id":"arch.store","budget":0}`, w.b, "invalid_argument"},
		{"context with both node and query", "docforge_get_context", `{"node_id":"arch.store","query":"store"}`, w.b, "invalid_argument"},
		{"context cursor garbage", "docforge_get_context", `{"node_id":"arch.store","cursor":"!!!"}`, w.b, "invalid_cursor"},
		{"context cursor of another project", "docforge_get_context", `{"node_id":"arch.store","limit":1,"cursor":"` + foreign + `"}`, w.b, "stale_cursor"},
		{"context cursor of a copy with the same project ID", "docforge_get_context", `{"node_id":"arch.store","limit":1,"cursor":"` + sameID + `"}`, w.b, "stale_cursor"},
		{"context cursor of another page limit", "docforge_get_context", `{"node_id":"arch.store","limit":2,"cursor":"` + limitOne + `"}`, w.b, "stale_cursor"},
		{"task cursor of another page limit", "docforge_get_task_context", `{"kind":"change","task":"store","limit":2,"cursor":"` + taskLimitOne + `"}`, w.b, "stale_cursor"},
		{"task of an unknown kind", "docforge_get_task_context", `{"kind":"hack","task":"store"}`, w.b, "invalid_argument"},
		{"task empty", "docforge_get_task_context", `{"kind":"change","task":""}`, w.b, "invalid_argument"},
		{"task over 10,000 characters", "docforge_get_task_context", `{"kind":"change","task":"` + long + `"}`, w.b, "invalid_argument"},
		{"task budget 0", "docforge_get_task_context", `{"kind":"change","task":"store","budget":0}`, w.b, "invalid_argument"},
		{"task budget too large", "docforge_get_task_context", `{"kind":"change","task":"store","budget":999999999}`, w.b, "invalid_argument"},
		{"task focus that does not exist", "docforge_get_task_context", `{"kind":"change","task":"store","focus_node_id":"arch.nope"}`, w.b, "node_not_found"},
		{"generation diff cursor garbage", "docforge_get_generation_diff", `{"cursor":"AAAA"}`, w.b, "invalid_cursor"},
		{"render status of an unknown view", "docforge_render_status", `{"view":"../../x"}`, w.b, "invalid_argument"},
		{"proposal without a writer", "docforge_register_changes", register("docs/architecture/h.md", "t"), w.b, "proposal_access_disabled"},
		{"changeset path with a NUL", "docforge_register_changes", register("docs/a\u0000b.md", "t"), writer, "invalid_argument"},
		{"changeset path over long", "docforge_register_changes", register("docs/"+long+".md", "t"), writer, "invalid_argument"},
		{"changeset path through a file", "docforge_register_changes", register("docs/architecture/store.md/x.md", "t"), writer, "invalid_argument"},
		{"changeset path a traversal", "docforge_register_changes", register("docs/../../x.md", "t"), writer, "path_escape"},
		{"changeset path absolute", "docforge_register_changes", register("/etc/passwd.md", "t"), writer, "path_escape"},
		{"changeset path into .docforge", "docforge_register_changes", register(".docforge/x.md", "t"), writer, "path_escape"},
		{"changeset path into the changeset root", "docforge_register_changes", register(".docforge/changesets/cs-x/versions/x.md", "t"), writer, "path_escape"},
		{"changeset path not .md or .toml", "docforge_register_changes", register("docs/x.sh", "t"), writer, "path_escape"},
		{"changeset title with an escape", "docforge_register_changes", register("docs/architecture/h.md", "\x1b[2K\rcs-fake ready"), writer, "invalid_argument"},
		{"changeset title with a right-to-left override", "docforge_register_changes", register("docs/architecture/h.md", "safe \u202egnp.exe"), writer, "invalid_argument"},
		{"changeset path with a right-to-left override", "docforge_register_changes", register("docs/architecture/h\u202edm.md", "t"), writer, "invalid_argument"},
		{"changeset path with a zero-width space", "docforge_register_changes", register("docs/architecture/h\u200b.md", "t"), writer, "invalid_argument"},
		{"node title with a right-to-left override", "docforge_register_changes", `{"changeset_id":"cs-bidi","title":"t","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"Store \u202e"}}]}`, writer, "invalid_argument"},
		{"node title with an escape", "docforge_register_changes", `{"changeset_id":"cs-esc","title":"t","operations":[{"op":"create","node_id":"arch.esc","path":"docs/architecture/esc.md","fields":{"kind":"component","family":"architecture","title":"\u001b[2J"}}]}`, writer, "invalid_argument"},
		{"node tag with a bidi isolate", "docforge_register_changes", `{"changeset_id":"cs-tag","title":"t","operations":[{"op":"update","node_id":"arch.store","fields":{"tags":["api\u2066"]}}]}`, writer, "invalid_argument"},
		{"changeset title of 3.5 MB", "docforge_register_changes", register("docs/architecture/h.md", strings.Repeat("t", 3_500_000)), writer, "invalid_argument"},
		{"changeset id a traversal", "docforge_create_changeset", `{"changeset_id":"../../x","title":"t"}`, writer, "invalid_argument"},
		{"changeset that does not exist", "docforge_get_changeset", `{"changeset_id":"cs-nope"}`, w.b, "changeset_not_found"},
		{"empty relationship update", "docforge_propose_relationship_update", `{"changeset_id":"cs-x","node_id":"arch.store"}`, writer, "invalid_argument"},
		// An op the schema does not list is a malformed request, refused by the schema.
		{"unknown op", "docforge_register_changes", `{"changeset_id":"cs-op","title":"t","operations":[{"op":"chmod","node_id":"arch.store"}]}`, writer, "invalid_argument"},
		{"node ID with a .. segment", "docforge_register_changes", `{"changeset_id":"cs-id","title":"t","operations":[{"op":"create","node_id":"a/../b","path":"docs/architecture/h.md","fields":{"kind":"component","family":"architecture","title":"H"}}]}`, writer, "invalid_id"},
		{"apply without the gate", "docforge_apply_changeset", `{"changeset_id":"cs-x","changeset_hash":"sha256:00"}`, writer, "operation_not_permitted"},
		{"preview of a renderer name", "docforge_preview_changeset", `{"changeset_id":"cs-nope","view_id":"/bin/sh"}`, w.b, "invalid_argument"},
		{"visualize at an unknown node", "docforge_visualize", `{"node_id":"arch.nope"}`, w.b, "node_not_found"},
	} {
		out, err := w.svc.Call(context.Background(), tc.b, tc.tool, []byte(tc.args))
		var te *protocol.ToolError
		if !errors.As(err, &te) || string(te.Code) != tc.code {
			t.Errorf("%s: %v, want %s: %.300s", tc.name, err, tc.code, out)
			continue
		}
		var env struct {
			Error struct{ Message, Remediation string } `json:"error"`
		}
		json.Unmarshal(out, &env)
		if msg := env.Error.Message + " " + env.Error.Remediation; strings.Contains(msg, root) || strings.Contains(msg, os.TempDir()+"/") {
			t.Errorf("%s: a machine path in the message: %s", tc.name, msg)
		}
	}
	if after := canonicalTree(t, root); after != before {
		t.Error("hostile input changed the canonical tree")
	}
	if a := w.node("arch.store"); a.Error != nil || a.Staleness != "current" {
		t.Errorf("the service after the hostile input: %+v", a)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// With content_roots = ["."] (what init writes for many adopted trees), the descriptor and
// DocForge's own state stay outside what a proposal may write, wherever they live: a
// proposal naming docforge.toml, the changeset root or the preview root is refused as a path
// escape, and nothing changes.
func TestProposalsNeverWriteDocForgeState(t *testing.T) {
	root := CopyExample(t, func(root string) {
		p := filepath.Join(root, "docforge.toml")
		s, _ := os.ReadFile(p)
		s = []byte(strings.Replace(string(s), `content_roots = ["docs"]`, `content_roots = ["."]`, 1))
		s = []byte(strings.Replace(string(s), `changeset_root = ".docforge/changesets"`, `changeset_root = "proposals/changesets"`, 1))
		s = []byte(strings.Replace(string(s), `preview_root = ".docforge/previews"`, `preview_root = "proposals/previews"`, 1))
		os.WriteFile(p, s, 0o644)
	})
	w := newWatched(t, root)
	writer := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	desc, _ := os.ReadFile(filepath.Join(root, "docforge.toml"))
	descBefore := hashOf(desc)
	for _, path := range []string{"docforge.toml", ".docforge/index/x.toml", "proposals/changesets/x.md", "proposals/previews/x.md", "proposals/changesets"} {
		args := `{"changeset_id":"cs-state","title":"t","operations":[{"op":"create","node_id":"arch.state","path":"` + path + `","fields":{"kind":"component","family":"architecture","title":"State"}}]}`
		out, err := w.svc.Call(context.Background(), writer, "docforge_register_changes", []byte(args))
		var te *protocol.ToolError
		if !errors.As(err, &te) || te.Code != "path_escape" {
			t.Errorf("%s: %v, want path_escape: %.300s", path, err, out)
		}
	}
	// A content file beside them is writable, as before.
	args := `{"changeset_id":"cs-fine","title":"t","operations":[{"op":"create","node_id":"arch.fine","path":"notes/fine.md","fields":{"kind":"component","family":"architecture","title":"Fine"}}]}`
	if out, err := w.svc.Call(context.Background(), writer, "docforge_register_changes", []byte(args)); err != nil {
		t.Errorf("a content file at the root: %v %.300s", err, out)
	}
	if desc, _ := os.ReadFile(filepath.Join(root, "docforge.toml")); hashOf(desc) != descBefore {
		t.Error("the descriptor changed")
	}
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A changeset whose stored files were changed outside DocForge is refused as what it is,
// changeset_corrupt, with a remedy that says so (not "retry"), by every tool that reads it.
func TestTamperedChangesetIsItsOwnError(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	writer := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	out, err := w.svc.Call(context.Background(), writer, "docforge_register_changes", []byte(`{"changeset_id":"cs-t","title":"t","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"S"}}]}`))
	if err != nil {
		t.Fatalf("%v %.300s", err, out)
	}
	versions, _ := filepath.Glob(filepath.Join(root, ".docforge/changesets/cs-t/versions/*.json"))
	if len(versions) != 1 {
		t.Fatalf("versions: %v", versions)
	}
	data, _ := os.ReadFile(versions[0])
	os.WriteFile(versions[0], []byte(strings.Replace(string(data), `"S"`, `"T"`, 1)), 0o644)
	for _, tool := range []string{"docforge_get_changeset", "docforge_validate_changeset", "docforge_get_changeset_diff"} {
		out, err := w.svc.Call(context.Background(), w.b, tool, []byte(`{"changeset_id":"cs-t"}`))
		var te *protocol.ToolError
		if !errors.As(err, &te) || te.Code != "changeset_corrupt" || strings.Contains(string(out), "retry") || !strings.Contains(string(out), "outside DocForge") {
			t.Errorf("%s: %v %.400s", tool, err, out)
		}
	}
	os.Remove(versions[0])
	if _, err := w.svc.Call(context.Background(), w.b, "docforge_get_changeset", []byte(`{"changeset_id":"cs-t"}`)); err == nil || !strings.Contains(err.Error(), "changeset_corrupt") {
		t.Errorf("a missing version: %v", err)
	}
}
