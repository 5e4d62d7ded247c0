package index_test

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

// A node's relations come back by relation name, then by the other node's ID, and a limit or
// a work budget keeps the first of them in that order: in a generation of one segment, and
// over a delta that replaced some of the rows (the relations are then read from two parts
// and sorted together).
func TestRelationsComeInNameThenIDOrder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(descriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	node := func(id, rels string) {
		text := fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\n%s+++\nbody\n", id, rels)
		must(t, os.WriteFile(filepath.Join(root, "docs", id+".md"), []byte(text), 0o644))
	}
	for _, id := range []string{"m", "b", "z", "a", "k"} {
		node(id, "")
	}
	// The hub's relations, written in no order; the nodes pointing at it likewise.
	node("hub", "[relations]\ntested_by = [\"z\", \"b\"]\ndepends_on = [\"m\", \"a\", \"z\"]\nrelates_to = [\"k\"]\n")
	for _, id := range []string{"p3", "p1", "p2"} {
		node(id, "[relations]\ndepends_on = [\"hub\"]\n")
	}
	node("p0", "[relations]\nrelates_to = [\"hub\"]\n")
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)

	wantOut := []string{"depends_on a", "depends_on m", "depends_on z", "relates_to k", "tested_by b", "tested_by z"}
	wantIn := []string{"depends_on p1", "depends_on p2", "depends_on p3", "relates_to p0"}
	check := func(stage string) {
		t.Helper()
		snap, err := index.Open(ctx, d)
		must(t, err)
		defer snap.Close()
		for _, c := range []struct {
			name  string
			list  func(limit int) (*index.LinkList, error)
			limit int
			want  []string
		}{
			{"dependencies", func(n int) (*index.LinkList, error) { return snap.Dependencies(ctx, "hub", n) }, 100, wantOut},
			{"dependencies, cut", func(n int) (*index.LinkList, error) { return snap.Dependencies(ctx, "hub", n) }, 4, wantOut[:4]},
			{"backlinks", func(n int) (*index.LinkList, error) { return snap.Backlinks(ctx, "hub", n) }, 100, wantIn},
			{"backlinks, cut", func(n int) (*index.LinkList, error) { return snap.Backlinks(ctx, "hub", n) }, 2, wantIn[:2]},
		} {
			l, err := c.list(c.limit)
			must(t, err)
			var got []string
			for _, x := range l.Links {
				got = append(got, x.Relation+" "+x.NodeID)
			}
			if !slices.Equal(got, c.want) || l.Truncated != (c.limit < 100) {
				t.Errorf("%s: %s = %v (truncated %v), want %v", stage, c.name, got, l.Truncated, c.want)
			}
		}
		refs, err := snap.Resolve(ctx, []string{"hub"})
		must(t, err)
		rels := []string{"depends_on", "relates_to", "tested_by"}
		for _, c := range []struct {
			name     string
			outgoing bool
			budget   int
			want     []string
		}{
			{"expand out", true, 100, wantOut},
			{"expand out, budget", true, 3, wantOut[:3]},
			{"expand in", false, 100, wantIn},
		} {
			x, err := snap.Expand(ctx, refs, c.outgoing, rels, c.budget)
			must(t, err)
			var got []string
			for _, h := range x.Hops {
				got = append(got, h.Relation+" "+h.To.ID)
			}
			if !slices.Equal(got, c.want) || x.Exhausted != (c.budget < 100) {
				t.Errorf("%s: %s = %v (exhausted %v), want %v", stage, c.name, got, x.Exhausted, c.want)
			}
		}
	}
	check("one segment")

	// Over a delta: the hub and one node pointing at it rewritten, so that their rows come
	// from the delta and the others from the base.
	node("hub", "[relations]\ntested_by = [\"b\", \"z\"]\ndepends_on = [\"z\", \"m\", \"a\"]\nrelates_to = [\"k\"]\n")
	node("p2", "[relations]\ndepends_on = [\"hub\"]\n")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Deltas == 0 {
		t.Fatalf("the edit published no delta: %+v", res)
	}
	check("over a delta")
}
