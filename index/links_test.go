package index_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// linkedDescriptor adopts a tree of YAML pages whose relations are Markdown links.
const linkedDescriptor = `schema_version = 1
[project]
id = "linked"
[sources]
content_roots = ["docs"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
foreign_fields = "ignore"
[sources.links]
[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
`

// writePage writes page i with links to up to three other pages (some with anchors, some
// by ID, some to pages that do not exist yet), by rename.
func writePage(t *testing.T, root string, i, pages int, r *rand.Rand) {
	t.Helper()
	body := fmt.Sprintf("---\ntitle: Page %d\nweight: %d\n---\n# Page %d\n\n## Part %d\n\n", i, r.Intn(9), i, r.Intn(3))
	for k := 0; k < 3; k++ {
		switch j := r.Intn(pages + 2); {
		case j >= pages: // the next page added, or the one after
			switch r.Intn(4) {
			case 0:
				body += fmt.Sprintf("A [page to come](p%03d.md).\n", j)
			case 1:
				body += fmt.Sprintf("A wiki link to come: [[p%03d]].\n", j)
			case 2:
				body += fmt.Sprintf("A route to come: [page %d](/P%03d/).\n", j, j)
			default:
				body += fmt.Sprintf("A Hugo ref to come: {{< relref \"p%03d\" >}}.\n", j)
			}
		default:
			switch r.Intn(5) {
			case 0:
				body += fmt.Sprintf("See [page %d](./p%03d.md#part-%d).\n", j, j, r.Intn(3))
			case 1:
				body += fmt.Sprintf("See [page %d](p%03d).\n", j, j)
			case 2: // a Hugo ref, found by its unique name
				body += fmt.Sprintf("See {{< relref \"p%03d\" >}}.\n", j)
			case 3: // by ID
				body += fmt.Sprintf("See [[p%03d]].\n", j)
			default: // a route, case aside
				body += fmt.Sprintf("See [page %d](/P%03d/).\n", j, j)
			}
		}
	}
	p := filepath.Join(root, "docs", fmt.Sprintf("p%03d.md", i))
	must(t, os.WriteFile(p+".tmp", []byte(body), 0o644))
	must(t, os.Rename(p+".tmp", p))
}

// Incremental builds of a linked tree hold exactly what a cold build does, edges and anchors
// included, while files are edited, added and removed: a page that appears or goes is a
// delta that reads every page again, since any link may have named it.
func TestLinkedTreeIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(11))
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(linkedDescriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	pages := 30
	for i := 0; i < pages; i++ {
		writePage(t, root, i, pages, r)
	}
	d := load(t, root)
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 10; round++ {
		want := index.BuildIncremental
		switch round % 4 {
		case 1:
			writePage(t, root, pages, pages+1, r) // a new file may be what a dangling link named
			pages++
		case 3:
			pages--
			must(t, os.Remove(filepath.Join(root, "docs", fmt.Sprintf("p%03d.md", pages))))
		default:
			for k := 0; k < 3; k++ {
				writePage(t, root, r.Intn(pages), pages, r)
			}
		}
		inc, err := index.Sync(ctx, d, index.Options{})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if inc.Build != want {
			t.Errorf("round %d: build %s, want %s", round, inc.Build, want)
		}
		incDump := dump(t, d, "")
		cold, err := index.Sync(ctx, d, index.Options{Rebuild: true})
		must(t, err)
		if got := dump(t, d, ""); got != incDump {
			t.Fatalf("round %d: incremental and cold indexes differ:\n%s", round, firstDiff(incDump, got))
		}
		if cold.Publication.Graph.EdgeHash != inc.Publication.Graph.EdgeHash {
			t.Fatalf("round %d: edge hashes differ", round)
		}
	}
}

// A link's anchor is kept on its edge and shown on both ends.
func TestLinkAnchorsOnEdges(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(linkedDescriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs", "storage"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "docs", "index.md"), []byte("# Home\n\nRead [the WAL](storage/wal.md#recovery).\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "docs", "storage", "wal.md"), []byte("# WAL\n\n## Recovery\n"), 0o644))
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	check := func(wantAnchor string) {
		t.Helper()
		snap, err := index.Open(ctx, d)
		must(t, err)
		defer snap.Close()
		out, err := snap.Dependencies(ctx, "index", 10)
		must(t, err)
		in, err := snap.Backlinks(ctx, "storage/wal", 10)
		must(t, err)
		if len(out.Links) != 1 || out.Links[0].NodeID != "storage/wal" || out.Links[0].Relation != "relates_to" || out.Links[0].Anchor != wantAnchor {
			t.Errorf("dependencies of index: %+v", out.Links)
		}
		if len(in.Links) != 1 || in.Links[0].NodeID != "index" || in.Links[0].Anchor != wantAnchor {
			t.Errorf("backlinks of storage/wal: %+v", in.Links)
		}
	}
	check("recovery")
	// Editing only the anchor keeps the edge and replaces its anchor, incrementally.
	must(t, os.WriteFile(filepath.Join(root, "docs", "index.md"), []byte("# Home\n\nRead [the WAL](storage/wal.md).\n"), 0o644))
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Errorf("build %s", res.Build)
	}
	check("")

	// Giving the file an explicit ID changes what links elsewhere may name: a delta that
	// reads every page again.
	must(t, os.WriteFile(filepath.Join(root, "docs", "index.md"), []byte("---\nid: home\n---\n# Home\n\n[the WAL](storage/wal.md#recovery)\n"), 0o644))
	res, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	in, err := snap.Backlinks(ctx, "storage/wal", 10)
	must(t, err)
	if res.Build != index.BuildIncremental || len(in.Links) != 1 || in.Links[0].NodeID != "home" || in.Links[0].Anchor != "recovery" {
		t.Errorf("after the ID change: build %s, backlinks %+v", res.Build, in.Links)
	}
}
