package mcpbridge

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/worker/protocol"
)

// suspectExample is the example stamped once, then arch.store's body edited: every relation
// to arch.store is suspect, every other one confirmed.
func suspectExample(t *testing.T) string {
	t.Helper()
	root := example(t)
	desk, err := changeset.NewDesk(loadDescriptor(t, root), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Confirm(context.Background(), nil, changeset.ConfirmOptions{}); err != nil {
		t.Fatal(err)
	}
	fixture.Append(t, filepath.Join(root, "docs", "architecture", "store.md"), "\nShipments are now sharded by carrier.\n")
	return root
}

type markedLink struct {
	Relation string   `json:"relation"`
	NodeID   string   `json:"node_id"`
	Review   string   `json:"review"`
	Changes  []string `json:"review_changes"`
}

// Every tool that lists relations marks the suspect ones, and says what changed.
func TestToolsMarkSuspectRelations(t *testing.T) {
	cs := connect(t, protocol.Binding{ProjectRoot: suspectExample(t)})
	find := func(links []markedLink, rel, id string) markedLink {
		i := slices.IndexFunc(links, func(l markedLink) bool { return l.Relation == rel && l.NodeID == id })
		if i < 0 {
			t.Fatalf("no %s %s in %+v", rel, id, links)
		}
		return links[i]
	}
	isSuspect := func(what string, l markedLink) {
		if l.Review != "suspect" || !slices.Equal(l.Changes, []string{"body changed"}) {
			t.Errorf("%s: %+v, want suspect because the body changed", what, l)
		}
	}

	var node struct{ Outgoing, Incoming []markedLink }
	must(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.api"}, &node)
	isSuspect("get_node outgoing", find(node.Outgoing, "depends_on", "arch.store"))
	if l := find(node.Outgoing, "reads", "data.shipments"); l.Review != "confirmed" {
		t.Errorf("an unchanged target: %+v", l)
	}
	must(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"}, &node)
	isSuspect("get_node incoming", find(node.Incoming, "calls", "arch.api"))

	var links struct{ Links []markedLink }
	must(t, cs, "docforge_backlinks", map[string]any{"node_id": "arch.store"}, &links)
	isSuspect("backlinks", find(links.Links, "depends_on", "arch.api"))
	must(t, cs, "docforge_dependencies", map[string]any{"node_id": "arch.api"}, &links)
	isSuspect("dependencies", find(links.Links, "calls", "arch.store"))

	var impact struct {
		Nodes []struct {
			ID     string `json:"id"`
			Via    string `json:"via"`
			Review string `json:"review"`
		}
	}
	must(t, cs, "docforge_impact", map[string]any{"node_id": "arch.store", "depth": 1}, &impact)
	if i := slices.IndexFunc(impact.Nodes, func(h struct {
		ID     string `json:"id"`
		Via    string `json:"via"`
		Review string `json:"review"`
	}) bool {
		return h.ID == "arch.api"
	}); i < 0 || impact.Nodes[i].Review != "suspect" {
		t.Errorf("impact does not mark arch.api as reached through a suspect relation: %+v", impact.Nodes)
	}

	var tc struct {
		Items []struct {
			NodeID string `json:"node_id"`
			Path   []struct {
				NodeID string `json:"node_id"`
				Review string `json:"review"`
			} `json:"path"`
			Provenance []struct{ Code, Detail string } `json:"provenance"`
		} `json:"items"`
	}
	must(t, cs, "docforge_get_task_context", map[string]any{"task": "change how shipments are stored", "kind": "change", "focus_node_id": "arch.store"}, &tc)
	marked := 0
	for _, it := range tc.Items {
		suspectPath := slices.ContainsFunc(it.Path, func(h struct {
			NodeID string `json:"node_id"`
			Review string `json:"review"`
		}) bool {
			return h.Review == "suspect"
		})
		fact := slices.ContainsFunc(it.Provenance, func(p struct{ Code, Detail string }) bool { return p.Code == "suspect_relation" })
		if suspectPath != fact {
			t.Errorf("%s: a suspect hop on its path (%v) and the suspect_relation fact (%v) must go together", it.NodeID, suspectPath, fact)
		}
		if fact {
			marked++
		}
	}
	if marked == 0 {
		t.Errorf("no task-context item reached through a suspect relation carries the fact: %+v", tc.Items)
	}

	var v struct {
		Valid    bool `json:"valid"`
		Suspects []struct {
			Source   string   `json:"source_id"`
			Target   string   `json:"target_id"`
			State    string   `json:"state"`
			Stamped  string   `json:"stamped_hash"`
			Current  string   `json:"current_hash"`
			Changes  []string `json:"changes"`
			TargetAt struct {
				Path string `json:"path"`
				Line int    `json:"line"`
			} `json:"target_at"`
		} `json:"suspect_relations"`
	}
	must(t, cs, "docforge_validate_project", nil, &v)
	if !v.Valid || len(v.Suspects) == 0 {
		t.Fatalf("validate_project: %+v", v)
	}
	for _, s := range v.Suspects {
		if s.Target != "arch.store" || s.State != "suspect" || s.Stamped == s.Current || !strings.HasPrefix(s.Current, "sha256:") ||
			s.TargetAt.Path != "docs/architecture/store.md" || s.TargetAt.Line != 1 || !slices.Equal(s.Changes, []string{"body changed"}) {
			t.Errorf("suspect relation entry: %+v", s)
		}
	}
}

// An agent re-confirms through a relationship update: the stored changeset binds the
// target's hash, and its diff shows the new stamp.
func TestConfirmThroughAProposal(t *testing.T) {
	root := suspectExample(t)
	cs := proposalSession(t, root)
	refused(t, cs, "docforge_propose_relationship_update", map[string]any{"changeset_id": "cs-x", "node_id": "arch.api", "confirm": []any{}}, "invalid_argument")
	var m mutation
	must(t, cs, "docforge_register_changes", map[string]any{"title": "arch.api still holds for the sharded store",
		"operations": []any{map[string]any{"op": "relationship_update", "node_id": "arch.api", "confirm": []any{map[string]any{"target_id": "arch.store"}}}}}, &m)
	if m.Report == nil || !m.Report.Valid || m.Status != "ready" {
		t.Fatalf("register: %+v", m)
	}
	var got struct {
		Operations []changeset.Operation `json:"operations"`
	}
	must(t, cs, "docforge_get_changeset", map[string]any{"changeset_id": m.ChangesetID}, &got)
	var node struct {
		ContentHash string `json:"content_hash"`
	}
	must(t, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"}, &node)
	if len(got.Operations) != 1 || len(got.Operations[0].Confirm) != 1 || got.Operations[0].Confirm[0].ContentHash != node.ContentHash {
		t.Errorf("stored confirmation %+v, want arch.store's %s", got.Operations, node.ContentHash)
	}
	var diff json.RawMessage
	must(t, cs, "docforge_get_changeset_diff", map[string]any{"changeset_id": m.ChangesetID}, &diff)
	if !strings.Contains(string(diff), `+\"arch.store\" = \"`+node.ContentHash) {
		t.Errorf("the diff does not show the new stamp: %s", diff)
	}
}
