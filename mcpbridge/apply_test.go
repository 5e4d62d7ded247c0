package mcpbridge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

func toolNames(t *testing.T, b protocol.Binding) []string {
	t.Helper()
	list, err := connect(t, b).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Name == "docforge_apply_changeset" && (tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint) {
			t.Error("the application tool is not annotated destructive")
		}
	}
	return names
}

func TestApplicationGate(t *testing.T) {
	root := example(t)
	for _, tc := range []struct {
		b    protocol.Binding
		want bool
	}{
		{protocol.Binding{ProjectRoot: root}, false},
		// No mode with an applier bound is the application-enabled factory (the contract's
		// factory default), which adds exact-hash application.
		{protocol.Binding{ProjectRoot: root, CanonicalApplier: "maintainer"}, true},
		// operator adds no tool in the current contract, application among them.
		{protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeOperator, CanonicalApplier: "maintainer"}, false},
		{protocol.Binding{ProjectRoot: root, ProposalWriter: "agent", CapabilityMode: protocol.ModeApplication, CanonicalApplier: "maintainer"}, true},
	} {
		if got := slices.Contains(toolNames(t, tc.b), "docforge_apply_changeset"); got != tc.want {
			t.Errorf("%+v: apply registered %v, want %v", tc.b, got, tc.want)
		}
	}
	bad := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeApplication}
	if _, err := bad.Validate(); err == nil {
		t.Error("application mode without an applier must fail at start")
	}
	bad = protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeApplication, CanonicalApplier: "nobody"}
	if _, err := bad.Validate(); err == nil {
		t.Error("an undeclared applier must fail at start")
	}
}

func TestApplyThroughMCP(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root, ProposalWriter: "agent", CapabilityMode: protocol.ModeApplication, CanonicalApplier: "maintainer"})
	var m mutation
	must(t, cs, "docforge_register_changes", map[string]any{"title": "rename", "changeset_id": "cs-apply",
		"operations": []map[string]any{{"op": "update", "node_id": "arch.store", "fields": map[string]any{"title": "Event store"}}}}, &m)
	// One view was published before; the refresh re-renders it and leaves the other alone.
	if _, err := render.Publish(context.Background(), loadDescriptor(t, root), "", []string{"architecture"}, render.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	refused(t, cs, "docforge_apply_changeset", map[string]any{"changeset_id": "cs-apply", "changeset_hash": "sha256:" + strings.Repeat("1", 64)}, "changeset_stale")
	if tree(t, root) != before {
		t.Fatal("a refused apply changed files")
	}
	var res worker.ApplyResult
	must(t, cs, "docforge_apply_changeset", map[string]any{"changeset_id": "cs-apply", "changeset_hash": m.Hash}, &res)
	if res.Status != "applied" || len(res.Updated) != 1 || res.DerivedRefresh.State != "refreshed" || res.DerivedRefresh.Index.State != "refreshed" {
		t.Fatalf("apply: %+v %+v", res, res.DerivedRefresh)
	}
	views := map[string]string{}
	for _, v := range res.DerivedRefresh.Views {
		views[v.Name] = v.State
	}
	page, _ := os.ReadFile(filepath.Join(root, "site/architecture.html"))
	if views["architecture"] != "refreshed" || views["requirements"] != "skipped" || !strings.Contains(string(page), "Event store") {
		t.Fatalf("view refresh: %v", views)
	}
	data, _ := os.ReadFile(filepath.Join(root, "docs/architecture/store.md"))
	if !strings.Contains(string(data), `title = "Event store"`) {
		t.Fatalf("canonical file not written:\n%s", data)
	}
	var node struct {
		Title string `json:"title"`
	}
	must(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"}, &node)
	if node.Title != "Event store" {
		t.Fatalf("index not refreshed: %q", node.Title)
	}
	refused(t, cs, "docforge_apply_changeset", map[string]any{"changeset_id": "cs-apply", "changeset_hash": m.Hash}, "changeset_state")

	// A derived-refresh failure: the index directory cannot be created (a file is in the
	// way). The application still succeeds, and says the derived state is degraded.
	must(t, cs, "docforge_register_changes", map[string]any{"title": "again", "changeset_id": "cs-two",
		"operations": []map[string]any{{"op": "update", "node_id": "arch.api", "fields": map[string]any{"status": "draft"}}}}, &m)
	os.RemoveAll(filepath.Join(root, ".docforge", "index"))
	os.WriteFile(filepath.Join(root, ".docforge", "index"), []byte("in the way"), 0o644)
	must(t, cs, "docforge_apply_changeset", map[string]any{"changeset_id": "cs-two", "changeset_hash": m.Hash}, &res)
	if res.Status != "applied" || res.DerivedRefresh.State != "degraded" || res.DerivedRefresh.Index.State != "failed" || res.DerivedRefresh.Remediation == "" {
		t.Fatalf("degraded refresh: %+v", res.DerivedRefresh)
	}
}

// An application whose full result exceeds the output limit answers with the compact
// receipt: applied, the exact hash, counts, and the refresh state.
func TestApplyCompactReceipt(t *testing.T) {
	root := example(t)
	cs := connect(t, protocol.Binding{ProjectRoot: root, ProposalWriter: "agent", CapabilityMode: protocol.ModeApplication, CanonicalApplier: "maintainer"})
	body := strings.Repeat("A long line of the new body.\n", 4000)
	var m mutation
	must(t, cs, "docforge_register_changes", map[string]any{"title": "long", "changeset_id": "cs-long",
		"operations": []map[string]any{{"op": "update", "node_id": "arch.store", "fields": map[string]any{"body": body}}}}, &m)
	var got struct {
		Compact        bool   `json:"compact"`
		Committed      bool   `json:"mutation_committed"`
		Status         string `json:"status"`
		Hash           string `json:"changeset_hash"`
		Updated        int    `json:"updated"`
		DerivedRefresh string `json:"derived_refresh"`
	}
	must(t, cs, "docforge_apply_changeset", map[string]any{"changeset_id": "cs-long", "changeset_hash": m.Hash}, &got)
	if !got.Compact || !got.Committed || got.Status != "applied" || got.Hash != m.Hash || got.Updated != 1 || got.DerivedRefresh != "refreshed" {
		t.Fatalf("compact application receipt: %+v", got)
	}
}

// For every capability mode and gate: the registered tools and excluded_operations never
// overlap, and both match the contract's table (docs/architecture.md, "Capability modes").
func TestCapabilityModesAndGates(t *testing.T) {
	root := example(t)
	for _, mode := range []string{"", protocol.ModeRead, protocol.ModeProposal, protocol.ModeApplication, protocol.ModeOperator} {
		for _, applier := range []string{"", "maintainer"} {
			for _, writer := range []string{"", "agent"} {
				b := protocol.Binding{ProjectRoot: root, CapabilityMode: mode, CanonicalApplier: applier, ProposalWriter: writer}
				if _, err := b.Validate(); err != nil {
					if mode == protocol.ModeApplication && applier == "" {
						continue // fails closed at start, as it must
					}
					t.Fatalf("%+v: %v", b, err)
				}
				tools := worker.ToolsFor(b)
				var names []string
				proposal := false
				for _, s := range tools {
					names = append(names, s.Name)
					proposal = proposal || s.Proposal()
				}
				excluded := worker.PolicyOf(b).Excluded
				applies := slices.Contains(names, "docforge_apply_changeset")
				wantApply := applier != "" && (mode == protocol.ModeApplication || mode == "")
				if applies != wantApply {
					t.Errorf("%+v: apply registered %v, want %v", b, applies, wantApply)
				}
				for _, op := range []string{"canonical_application", "canonical_write"} {
					if slices.Contains(excluded, op) == applies {
						t.Errorf("%+v: %s excluded %v while apply registered %v", b, op, !applies, applies)
					}
				}
				if proposal != (b.CapabilityMode != protocol.ModeRead) {
					t.Errorf("%+v: proposal tools registered %v", b, proposal)
				}
				if caps := worker.CapabilitiesOf(b); caps.CanonicalApplication != applies || !slices.Equal(caps.Tools, names) {
					t.Errorf("%+v: capabilities %+v disagree with the registered tools", b, caps)
				}
			}
		}
	}
}
