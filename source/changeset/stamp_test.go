package changeset

import (
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
)

func stampOf(target, hashDigit string) graph.Stamp {
	return graph.Stamp{Target: target, Hash: "sha256:" + strings.Repeat(hashDigit, 64),
		Parts: graph.Parts{Head: strings.Repeat("a", 16), Body: strings.Repeat("b", 16)}, Path: "docs/a b.md"}
}

// Every form a node's stamps take is rewritten in place: the rest of the file keeps its bytes,
// and the result parses to exactly the intended stamps.
func TestSetStampsRewritesOnlyTheStamps(t *testing.T) {
	d := example(t)
	one, two := stampOf("arch.store", "1"), stampOf("go:example.com/courier/store.Log", "2")
	const body = "# Title\n\nBody text with [stamps] and stamps: in it.\n"
	tests := []struct {
		name, path, text, id string
		stamps               []graph.Stamp
		want                 string // exact result, when given
	}{
		{"toml front matter without stamps", "docs/a.md",
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[relations]\ndepends_on = [\"arch.store\"] # why\n\n+++\n" + body, "x.a",
			[]graph.Stamp{one},
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[relations]\ndepends_on = [\"arch.store\"] # why\n[stamps]\n\"arch.store\" = \"" + one.Text() + "\"\n\n+++\n" + body},
		{"toml table replaced where it stands", "docs/a.md",
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[stamps]\n\"arch.store\" = \"sha256:" + strings.Repeat("9", 64) + "\"\n# kept\n[relations]\ndepends_on = [\"arch.store\"]\n+++\n" + body, "x.a",
			[]graph.Stamp{one, two},
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[stamps]\n\"arch.store\" = \"" + one.Text() + "\"\n\"go:example.com/courier/store.Log\" = \"" + two.Text() + "\"\n# kept\n[relations]\ndepends_on = [\"arch.store\"]\n+++\n" + body},
		{"toml inline stamps become a table", "docs/a.md",
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\nstamps = { \"arch.store\" = \"sha256:" + strings.Repeat("9", 64) + "\" }\n[relations]\ndepends_on = [\"arch.store\"]\n+++\n" + body, "x.a",
			[]graph.Stamp{one}, ""},
		{"toml stamps removed", "docs/a.md",
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[relations]\ndepends_on = [\"arch.store\"]\n[stamps]\n\"arch.store\" = \"sha256:" + strings.Repeat("9", 64) + "\"\n+++\n" + body, "x.a",
			nil,
			"+++\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[relations]\ndepends_on = [\"arch.store\"]\n+++\n" + body},
		{"yaml block replaced, later keys kept", "docs/a.md",
			"---\nid: x.a\nkind: component\nstamps:\n  arch.store: \"sha256:" + strings.Repeat("9", 64) + "\"\n  # a comment in the block\nfamily: architecture # trailing\nrelations:\n  depends_on: [arch.store]\n---\n" + body, "x.a",
			[]graph.Stamp{one},
			"---\nid: x.a\nkind: component\nstamps:\n  \"arch.store\": \"" + one.Text() + "\"\nfamily: architecture # trailing\nrelations:\n  depends_on: [arch.store]\n---\n" + body},
		{"yaml without stamps", "docs/a.md",
			"---\nid: x.a\nkind: component\nfamily: architecture\nrelations:\n  depends_on:\n    - arch.store\n---\n" + body, "x.a",
			[]graph.Stamp{one}, ""},
		{"no front matter gets a yaml block", "docs/a.md", body, "a", []graph.Stamp{one},
			"---\nstamps:\n  \"arch.store\": \"" + one.Text() + "\"\n---\n" + body},
		{"record: only its own [[node]]", "docs/r.toml",
			"# records\n[[node]]\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[node.relations]\ndepends_on = [\"arch.store\"]\n\n[[node]]\nid = \"x.b\"\nkind = \"component\"\nfamily = \"architecture\"\n[node.stamps]\n\"arch.store\" = \"sha256:" + strings.Repeat("9", 64) + "\"\n[node.relations]\ndepends_on = [\"arch.store\"]\n", "x.a",
			[]graph.Stamp{one},
			"# records\n[[node]]\nid = \"x.a\"\nkind = \"component\"\nfamily = \"architecture\"\n[node.relations]\ndepends_on = [\"arch.store\"]\n[node.stamps]\n\"arch.store\" = \"" + one.Text() + "\"\n\n[[node]]\nid = \"x.b\"\nkind = \"component\"\nfamily = \"architecture\"\n[node.stamps]\n\"arch.store\" = \"sha256:" + strings.Repeat("9", 64) + "\"\n[node.relations]\ndepends_on = [\"arch.store\"]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setStamps(tc.path, tc.text, tc.id, tc.stamps)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if !strings.HasSuffix(got, tc.text[strings.Index(tc.text, "# Title")+1:]) && strings.HasSuffix(tc.path, ".md") {
				t.Errorf("the body changed:\n%s", got)
			}
			if tc.name == "no front matter gets a yaml block" {
				return // the example derives no IDs, so such a file is not a node there
			}
			format, _ := source.ContentFormat(d, tc.path)
			f := source.Parse(d, tc.path, format, []byte(got))
			if errs := problem.Errors(f.Problems); len(errs) > 0 {
				t.Fatalf("the result does not parse: %v\n%s", errs, got)
			}
			i := slices.IndexFunc(f.Nodes, func(n graph.Node) bool { return n.ID == tc.id })
			if i < 0 || !sameStamps(f.Nodes[i].Stamps, tc.stamps) {
				t.Fatalf("stamps after the edit: %+v", f.Nodes)
			}
			before := source.Parse(d, tc.path, format, []byte(tc.text))
			if !slices.Equal(plainEdges(before), plainEdges(f)) || f.Nodes[i].ContentHash != before.Nodes[i].ContentHash {
				t.Errorf("the edit changed more than the stamps")
			}
		})
	}
}

// A relationship update confirms targets as they are: captured when the writer gives no hash,
// stale when the hash it gives is not the target's, refused for a target it has no relation
// to; a removed relation takes its stamp with it.
func TestRelationshipUpdateConfirms(t *testing.T) {
	d := example(t)
	src := sources(t, d)
	store := src.nodes["arch.store"].node
	project := func(ops ...Operation) *Checked {
		cs := &Changeset{SchemaVersion: 1, ID: "cs-test", Writer: "agent", Title: "t", Operations: ops}
		return src.Check(cs, nil, true)
	}
	stampsIn := func(c *Checked, rel, id string) []graph.Stamp {
		f := source.Parse(d, rel, source.Markdown, c.Projection.Overlay.Files[rel])
		for _, n := range f.Nodes {
			if n.ID == id {
				return n.Stamps
			}
		}
		t.Fatalf("%s not in the projected %s", id, rel)
		return nil
	}

	c := project(Operation{Op: OpRelationshipUpdate, NodeID: "arch.api", Confirm: []Confirm{{Target: "arch.store"}}})
	if !c.Report.Valid || len(c.Projection.Stale) != 0 {
		t.Fatalf("confirm: %+v %+v", c.Report, c.Projection.Problems)
	}
	if got := c.Changeset.Operations[0].Confirm[0].ContentHash; got != store.ContentHash {
		t.Errorf("captured %q, want the target's %s", got, store.ContentHash)
	}
	if got := stampsIn(c, "docs/architecture/api.md", "arch.api"); len(got) != 1 || got[0].Text() != graph.StampOf(store).Text() {
		t.Errorf("projected stamps %+v", got)
	}
	if changes := src.Changes(c); len(changes) != 1 || !strings.Contains(changes[0].FrontMatterDiff, `+"arch.store" = "`+store.ContentHash) {
		t.Errorf("the diff does not show the stamp: %+v", changes)
	}

	stale := project(Operation{Op: OpRelationshipUpdate, NodeID: "arch.api", Confirm: []Confirm{{Target: "arch.store", ContentHash: "sha256:" + strings.Repeat("0", 64)}}})
	if len(stale.Projection.Stale) != 1 || stale.Projection.Stale[0].NodeID != "arch.store" || stale.Projection.Stale[0].Current != store.ContentHash {
		t.Errorf("a confirmation of content that changed is not stale: %+v", stale.Projection.Stale)
	}

	refused := project(Operation{Op: OpRelationshipUpdate, NodeID: "arch.api", Confirm: []Confirm{{Target: "req.audit"}}})
	if len(refused.Projection.Problems) != 1 || refused.Projection.Problems[0].Code != problem.InvalidArgument ||
		!strings.Contains(refused.Projection.Problems[0].Message, "no relation") {
		t.Errorf("confirming a target without a relation: %+v", refused.Projection.Problems)
	}

	// Confirm, then (in the same changeset) remove the only relation to the target: no stamp
	// is left. (arch.store keeps its stamp: the body's [[arch.store]] still relates to it.)
	dropped := project(
		Operation{Op: OpRelationshipUpdate, NodeID: "arch.api", Confirm: []Confirm{{Target: "arch.store"}, {Target: "data.shipments"}}},
		Operation{Op: OpRelationshipUpdate, NodeID: "arch.api", Remove: []Relation{{"reads", "data.shipments"}, {"depends_on", "arch.store"}, {"calls", "arch.store"}}})
	if len(dropped.Projection.Problems) != 0 {
		t.Fatalf("%+v", dropped.Projection.Problems)
	}
	if got := stampsIn(dropped, "docs/architecture/api.md", "arch.api"); len(got) != 1 || got[0].Target != "arch.store" {
		t.Errorf("the stamp of a removed relation stayed: %+v", got)
	}
}
