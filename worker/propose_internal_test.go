package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/worker/protocol"
)

// A proposal's result names the tool that queued it, and that tool exists.
func TestProposalResultsNameRealTools(t *testing.T) {
	var names []string
	for _, s := range ToolsFor(protocol.Binding{ProjectRoot: "x", CapabilityMode: protocol.ModeProposal}) {
		names = append(names, s.Name)
	}
	for _, op := range []string{changeset.OpCreate, changeset.OpUpdate, changeset.OpMove, changeset.OpRelationshipUpdate, changeset.OpDelete} {
		if !slices.Contains(names, proposeTool(op)) {
			t.Errorf("op %s is reported as %s, which is not a tool (%v)", op, proposeTool(op), names)
		}
	}
}

// An empty list is [], not null: a client iterating over it needs no special case.
func TestEmptyChangesetListIsAnEmptyArray(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	out, err := w.svc.Call(context.Background(), protocol.Binding{ProjectRoot: w.b.ProjectRoot}, "docforge_list_changesets", []byte(`{}`))
	if err != nil || !strings.Contains(string(out), `"changesets":[]`) || strings.Contains(string(out), `"changesets":null`) {
		t.Errorf("%v: %.300s", err, out)
	}
}

// A number below (or above) its schema's bound is refused with the bound, not replaced by the
// default.
func TestOutOfRangeNumbersAreRefused(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	for _, tc := range []struct{ tool, args string }{
		{"docforge_search", `{"query":"store","limit":0}`},
		{"docforge_search", `{"query":"store","limit":-1}`},
		{"docforge_impact", `{"node_id":"arch.store","depth":-1}`},
		{"docforge_backlinks", `{"node_id":"arch.store","limit":0}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store","budget":0}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store","budget":100000000}`},
		{"docforge_list_changesets", `{"limit":-5}`},
	} {
		out, err := w.svc.Call(context.Background(), w.b, tc.tool, []byte(tc.args))
		var te *protocol.ToolError
		if !errors.As(err, &te) || te.Code != "invalid_argument" || !strings.Contains(string(out), "must be at") {
			t.Errorf("%s %s: %v %.200s", tc.tool, tc.args, err, out)
		}
	}
	// The schema library decides; the message names the argument, its value and the bound.
	out, _ := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte(`{"kind":"change","task":"store","budget":100000000}`))
	if !strings.Contains(string(out), "budget is 100000000; it must be at most 1000000") {
		t.Errorf("budget over its maximum: %.300s", out)
	}
	out, _ = w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte(`{"kind":"rewrite","task":"store"}`))
	if !strings.Contains(string(out), "kind is rewrite; it must be one of [change") {
		t.Errorf("kind outside its enum: %.300s", out)
	}
}

// An integer written as 2.0 is the integer the schema accepted; a value of another type is
// refused in the tool's words (what it is, what it must be), never the decoder's.
func TestArgumentTypesAreDecodedAsTheSchemaReads(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	if out, err := w.svc.Call(context.Background(), w.b, "docforge_search", []byte(`{"query":"late events","limit":2.0}`)); err != nil ||
		strings.Count(string(out), `"match":`) != 2 {
		t.Errorf("limit 2.0: %v %.300s", err, out)
	}
	for args, want := range map[string]string{
		`{"query":null}`:                "query is null; it must be a string",
		`{"query":"store","limit":2.5}`: "limit is the number 2.5; it must be an integer",
		`{"query":"store","limit":"2"}`: `limit is the string "2"; it must be an integer`,
		`{"query":["a"]}`:               "query is an array; it must be a string",
	} {
		out, err := w.svc.Call(context.Background(), w.b, "docforge_search", []byte(args))
		var te *protocol.ToolError
		if !errors.As(err, &te) || te.Code != "invalid_argument" || !strings.Contains(te.Message, want) {
			t.Errorf("%s: %v %.300s, want %q", args, err, out, want)
		}
	}
}

// The contract's limits are named as the descriptor names them, not as Go does.
func TestSessionContractLimitsUseContractNames(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	out, _ := w.svc.Call(context.Background(), w.b, "docforge_bootstrap", []byte(`{}`))
	if !strings.Contains(string(out), `"max_results":`) || strings.Contains(string(out), `"MaxResults"`) {
		t.Errorf("%.600s", out)
	}
}

// A hub with more neighbours than max_results: the context lists every one (entries, across
// pages), and get_node says that its outgoing relations were cut.
func TestContextAccountsForEveryNeighbour(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"docforge.toml": "schema_version = 1\n[project]\nid = \"hub\"\n[sources]\ncontent_roots = [\"docs\"]\n[relations]\nallowed = [\"depends_on\"]\n[families.arch]\nkinds = [\"component\"]\n[limits]\nmax_results = 50\n"}
	var all []string
	for i := range 80 {
		id := fmt.Sprintf("n%02d", i)
		all = append(all, `"`+id+`"`)
		files["docs/"+id+".md"] = "+++\nid = \"" + id + "\"\nkind = \"component\"\nfamily = \"arch\"\n[relations]\ndepends_on = [\"hub\"]\n+++\n"
	}
	files["docs/hub.md"] = "+++\nid = \"hub\"\nkind = \"component\"\nfamily = \"arch\"\n+++\n"
	files["docs/fan.md"] = "+++\nid = \"fan\"\nkind = \"component\"\nfamily = \"arch\"\n[relations]\ndepends_on = [" + strings.Join(all, ", ") + "]\n+++\n"
	for rel, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := newWatched(t, root)
	seen := map[string]bool{}
	cursor := ""
	for range 20 {
		args := `{"node_id":"hub","limit":30}`
		if cursor != "" {
			args = `{"node_id":"hub","limit":30,"cursor":"` + cursor + `"}`
		}
		out, err := w.svc.Call(context.Background(), w.b, "docforge_get_context", []byte(args))
		var env struct {
			Result struct {
				Items []struct {
					NodeID string `json:"node_id"`
				} `json:"items"`
				Pagination struct {
					Total      int    `json:"total"`
					HasMore    bool   `json:"has_more"`
					NextCursor string `json:"next_cursor"`
				} `json:"pagination"`
			} `json:"result"`
		}
		if err != nil || json.Unmarshal(out, &env) != nil {
			t.Fatalf("%v %.300s", err, out)
		}
		if env.Result.Pagination.Total != 81 {
			t.Fatalf("total %d, want the hub and its 80 dependents", env.Result.Pagination.Total)
		}
		for _, it := range env.Result.Items {
			seen[it.NodeID] = true
		}
		if !env.Result.Pagination.HasMore {
			break
		}
		cursor = env.Result.Pagination.NextCursor
	}
	if len(seen) != 81 {
		t.Errorf("the pages held %d of 81 nodes", len(seen))
	}
	out, _ := w.svc.Call(context.Background(), w.b, "docforge_get_node", []byte(`{"node_id":"fan"}`))
	if !strings.Contains(string(out), `"outgoing_truncated":true`) {
		t.Errorf("get_node of a node with 80 relations and max_results 50: %s", regexp.MustCompile(`"[a-z_]*truncated[a-z_]*":[a-z]+`).FindAllString(string(out), -1))
	}
}

// Every protocol.Envelope names its project and the generation it concerns, also for tools that do not
// sync and for failures after the index was published.
func TestEnvelopesCarryIdentity(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	w.node("arch.store")
	for _, tool := range []string{"docforge_visualization_status", "docforge_stop_visualization", "docforge_get_generation_diff", "docforge_list_changesets"} {
		out, _ := w.svc.Call(context.Background(), w.b, tool, []byte(`{}`))
		var env struct {
			Project struct {
				ID string `json:"id"`
			} `json:"project"`
			Revision   int64  `json:"revision"`
			SourceHash string `json:"source_hash"`
			Staleness  string `json:"staleness"`
		}
		json.Unmarshal(out, &env)
		if env.Project.ID != "courier" || env.Revision < 1 || env.SourceHash == "" || env.Staleness == "unknown" {
			t.Errorf("%s: %+v", tool, env)
		}
	}
}

// A proposal tool is a normal call: on a project never synced it syncs first, so its answer
// names a current generation and the hashes register binds are the synchronized nodes'.
func TestProposalToolsSyncFirst(t *testing.T) {
	for _, tc := range []struct{ tool, args string }{
		{"docforge_register_changes", `{"changeset_id":"cs-first","title":"t","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"Event store"}}]}`},
		{"docforge_list_changesets", `{}`},
		{"docforge_validate_changeset", `{"changeset_id":"cs-none"}`},
		{"docforge_get_changeset", `{"changeset_id":"cs-none"}`},
	} {
		root := CopyExample(t, nil) // never synced
		w := newWatched(t, root)
		out, _ := w.svc.Call(context.Background(), protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}, tc.tool, []byte(tc.args))
		var env struct {
			Revision   int64  `json:"revision"`
			SourceHash string `json:"source_hash"`
			Staleness  string `json:"staleness"`
		}
		json.Unmarshal(out, &env)
		if env.Revision < 1 || env.SourceHash == "" || env.Staleness != "current" {
			t.Errorf("%s on a project never synced: %+v %.300s", tc.tool, env, out)
		}
	}
}

// A ready changeset whose base moved lists as stale, before any validation recorded it.
func TestStaleChangesetListsAsStale(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	b := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	out, err := w.svc.Call(context.Background(), b, "docforge_register_changes", []byte(`{"changeset_id":"cs-base","title":"t","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"Event store"}}]}`))
	if err != nil {
		t.Fatalf("%v %.300s", err, out)
	}
	retitle(t, filepath.Join(root, "docs/architecture/store.md"), "Moved on")
	w.node("arch.store") // the index follows the edit
	list := func(args string) string {
		out, _ := w.svc.Call(context.Background(), b, "docforge_list_changesets", []byte(args))
		return string(out)
	}
	if l := list(`{}`); strings.Contains(l, "cs-base") {
		t.Errorf("a stale changeset is listed with draft and ready work: %.400s", l)
	}
	if l := list(`{"status":"stale"}`); !strings.Contains(l, `"changeset_id":"cs-base"`) || !strings.Contains(l, `"status":"stale"`) {
		t.Errorf("the stale changeset is not listed as stale: %s", l[strings.Index(l, `"result"`):])
	}
}
