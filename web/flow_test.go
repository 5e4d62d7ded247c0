package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// A small graph around a, one relation of each kind of meaning.
func flowSnapshot(t *testing.T) *index.Snapshot {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"docforge.toml": `schema_version = 1
[project]
id = "flow"
[sources]
content_roots = ["docs"]
[relations]
allowed = ["depends_on", "calls", "contains", "tested_by", "reads", "writes", "supersedes"]
[families.arch]
kinds = ["component"]
`,
		"a":  `depends_on = ["b"]` + "\n" + `contains = ["m"]` + "\n" + `calls = ["g"]` + "\n" + `tested_by = ["t"]`,
		"b":  `depends_on = ["b2"]`,
		"b2": ``, "c": `calls = ["a"]`, "m": `contains = ["m2"]`, "m2": ``, "g": ``, "t": ``,
		"x": `reads = ["a"]`, "w": `writes = ["a"]`, "old": ``, "new": `supersedes = ["a"]`,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if name != "docforge.toml" {
			p = filepath.Join(root, "docs", name+".md")
			body = fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\ntitle = %q\n[relations]\n%s\n+++\n", name, name, body)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatal(err, probs)
	}
	if _, err := index.Sync(context.Background(), d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	snap, err := index.Open(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap
}

func TestFlowAndWebFollowMeaning(t *testing.T) {
	snap := flowSnapshot(t)
	for _, tc := range []struct {
		view     string
		want     []string // node:depth, "+" for a Web branch
		wantEdge FlowEdge
	}{
		// Flow: everything whose meaning flows into a, transitively: its dependency b (and b's
		// b2), its caller c, its test t, its writer w, and new (supersedes, stored direction).
		{"flow", []string{"a:0", "b2:2", "b:1", "c:1", "new:1", "t:1", "w:1"}, FlowEdge{From: "b", To: "a", Relation: "depends_on", Category: "dependency"}},
		// Web: no data relations, and a's own member m and callee g sit beside it unexpanded.
		{"web", []string{"a:0", "b2:2", "b:1", "c:1", "g:1+", "m:1+", "t:1"}, FlowEdge{From: "a", To: "m", Relation: "contains", Category: "structure", Stored: true}},
	} {
		t.Run(tc.view, func(t *testing.T) {
			var cats []string
			if tc.view == "web" {
				cats = webCategories()
			}
			r, err := contributors(context.Background(), snap, "a", cats, 3, tc.view)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range r.Nodes {
				s := fmt.Sprintf("%s:%d", n.ID, n.Depth)
				if n.Branch {
					s += "+"
				}
				got = append(got, s)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || r.Truncated {
				t.Errorf("nodes %v, want %v (truncated %v)", got, tc.want, r.Truncated)
			}
			if !slices.Contains(r.Edges, tc.wantEdge) {
				t.Errorf("edges %+v lack %+v", r.Edges, tc.wantEdge)
			}
			for _, e := range r.Edges {
				if e.Relation == "calls" && e.From == "c" && (e.To != "a" || !e.Stored) {
					t.Errorf("c calls a flows c into a, in its stored direction: %+v", e)
				}
				if e.Relation == "depends_on" && e.Stored {
					t.Errorf("depends_on flows against its stored direction: %+v", e)
				}
			}
		})
	}
}
