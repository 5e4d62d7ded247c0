package index_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/fts5seg"
	"github.com/docforge/docforge/index/publication"
)

// A cold build writes its full text with its own segment writer where the linked SQLite and
// the table are the ones that writer is proven for, and through FTS5's inserts otherwise:
// both builds hold and rank the same, to the last bit of every score.
func TestColdBuildThroughFTS5InsertsAnswersAlike(t *testing.T) {
	ctx := context.Background()
	writer, reason, err := index.FullTextWriter(ctx)
	must(t, err)
	if writer != "fts5seg" {
		t.Fatalf("this build's full-text writer is %s (%s), want fts5seg", writer, reason)
	}
	root := genProject(t, 120, rand.New(rand.NewSource(9)))
	d := load(t, root)
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	own := dump(t, d, "")
	res, err := index.Sync(ctx, d, index.Options{Rebuild: true, FTS5Inserts: true})
	must(t, err)
	if res.Build != index.BuildCold {
		t.Fatalf("rebuild = %s", res.Build)
	}
	if got := dump(t, d, ""); got != own {
		t.Fatalf("FTS5's inserts and the segment writer built different indexes:\n%s", firstDiff(got, own))
	}
}

// Deltas fold into one delta when the oldest of them only removed rows (its full-text table
// has no totals of its own), and the generation answers as a cold build of the same sources.
func TestDeltasMergeWhenTheOldestOnlyRemoved(t *testing.T) {
	ctx := context.Background()
	root, d, r := syncedProject(t, 60, 12)
	must(t, os.Remove(filepath.Join(root, "docs", "n059.md"))) // nothing depends on the newest node
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	writeNode(t, root, 10, r, "an edit after the removal")
	if res, err = index.Sync(ctx, d, index.Options{}); err != nil || res.Deltas != 2 {
		t.Fatalf("edit: %v, %d deltas", err, res.Deltas)
	}
	m, err := index.MergeDeltasForTest(ctx, d, index.MergeOptions{})
	must(t, err)
	if m.Merged != 2 || m.Base || m.Deltas != 1 {
		t.Fatalf("merge %+v", m)
	}
	if got, want := dump(t, d, ""), dump(t, coldCopy(t, root), ""); got != want {
		t.Fatalf("merged deltas and a cold build differ:\n%s", firstDiff(got, want))
	}
}

// A merge into the base rewrites the base's full text as one segment without deletion marks
// (the rows the deltas replaced leave marks in it otherwise, and every query checks them), and
// the generation answers as a cold build of the same sources.
func TestBaseMergeLeavesItsFullTextWithoutDeletionMarks(t *testing.T) {
	ctx := context.Background()
	root, d, r := syncedProject(t, 80, 13)
	for k := range 3 {
		writeNode(t, root, 5+k, r, fmt.Sprintf("base merge edit %d", k))
		_, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
	}
	m, err := index.Merge(ctx, d, index.MergeOptions{Full: true})
	must(t, err)
	if !m.Base || m.Deltas != 0 {
		t.Fatalf("merge %+v", m)
	}
	manifest, err := index.ReadManifest(publication.PathsFor(d, "").Index)
	must(t, err)
	conn, err := sqlite.OpenConn(filepath.Join(filepath.Dir(publication.PathsFor(d, "").Index), manifest.Segments[0].Name), sqlite.OpenReadOnly)
	must(t, err)
	defer conn.Close()
	shape, err := fts5seg.ReadShape(conn, fts5seg.Table{Schema: "main", Name: "search"})
	must(t, err)
	if shape.Segments != 1 || shape.Tombstones != 0 || shape.Entries != 80 {
		t.Errorf("the merged base's full text: %+v, want one segment of 80 rows and no marks", shape)
	}
	if got, want := dump(t, d, ""), dump(t, coldCopy(t, root), ""); got != want {
		t.Fatalf("the merged base and a cold build differ:\n%s", firstDiff(got, want))
	}
}
