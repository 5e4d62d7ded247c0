package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/index"
)

// impactSnapshot indexes a graph around b in which each relation carries impact one way: a
// (and a2 through a) depend on b, c implements it, t tests it, u mentions it, and b itself
// depends on lib.
func impactSnapshot(t *testing.T) *index.Snapshot {
	t.Helper()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "docforge.toml"), []byte(descriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	nodes := map[string]string{
		"b": `implemented_by = ["c"]` + "\n" + `tested_by = ["t"]`,
		"a": `depends_on = ["b"]`, "a2": `depends_on = ["a"]`,
		"c": ``, "t": ``, "u": `relates_to = ["b"]`,
		"lib": ``,
	}
	nodes["b"] += "\n" + `depends_on = ["lib"]` // b's own dependency: not affected by b
	for id, rels := range nodes {
		content := fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\ntitle = %q\n[relations]\n%s\n+++\n", id, id, rels)
		must(t, os.WriteFile(filepath.Join(root, "docs", id+".md"), []byte(content), 0o644))
	}
	d := load(t, root)
	ctx := context.Background()
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	t.Cleanup(func() { snap.Close() })
	return snap
}

func TestImpactDirectionsAndBounds(t *testing.T) {
	snap := impactSnapshot(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts index.ImpactOptions
		want string // id/depth/via/direction, in order
		by   string
	}{
		// Dependents (incoming depends_on), implementations and tests (outgoing implemented_by,
		// tested_by) and mentions are affected; b's own dependency lib is not.
		{"all", index.ImpactOptions{}, "a/1/depends_on/incoming c/1/implemented_by/outgoing t/1/tested_by/outgoing u/1/relates_to/incoming a2/2/depends_on/incoming", ""},
		{"depth", index.ImpactOptions{Depth: 1}, "a/1/depends_on/incoming c/1/implemented_by/outgoing t/1/tested_by/outgoing u/1/relates_to/incoming", ""},
		{"result limit", index.ImpactOptions{Limit: 2}, "a/1/depends_on/incoming c/1/implemented_by/outgoing", "result_limit"},
		// Incoming candidates are examined first: a and u take the two-edge budget.
		{"work budget", index.ImpactOptions{Budget: 2}, "a/1/depends_on/incoming u/1/relates_to/incoming", "work_budget"},
		// Both bounds cut: the budget stops the walk, and of what it found the limit keeps one.
		{"both bounds", index.ImpactOptions{Budget: 2, Limit: 1}, "a/1/depends_on/incoming", "work_budget,result_limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := snap.Impact(ctx, "b", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range r.Nodes {
				got = append(got, fmt.Sprintf("%s/%d/%s/%s", n.ID, n.Depth, n.Via, n.Direction))
				if n.Title != n.ID || n.SourcePath == "" {
					t.Errorf("hit %s lacks its summary: %+v", n.ID, n)
				}
			}
			by := r.TruncatedBy
			if len(r.TruncatedByAll) > 1 {
				by = strings.Join(r.TruncatedByAll, ",")
			}
			if strings.Join(got, " ") != tc.want || by != tc.by || r.Truncated != (tc.by != "") {
				t.Errorf("got %v (truncated %v by %q), want %s by %q", got, r.Truncated, r.TruncatedBy, tc.want, tc.by)
			}
			if tc.opts.Budget > 0 && r.EdgesExamined != tc.opts.Budget {
				t.Errorf("examined %d edges, want the budget %d", r.EdgesExamined, tc.opts.Budget)
			}
		})
	}
}
