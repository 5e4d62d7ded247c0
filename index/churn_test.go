package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
)

// Files created, replaced and deleted while syncs run never make a sync report the project
// invalid: they are written by rename, as editors and git do, so every state the tree passes
// through is valid, and a failure could only come from reading a tree that changed under the
// sync (a file gone between the walk and its read, a delta validated against a tree that
// moved on). Such a sync retries on a fresh walk; when the churn outlasts its attempts it
// says the sources kept changing, never project_invalid. (A file rewritten in place does pass
// through invalid states, empty or half written: a sync that reads one then is right.)
func TestSyncUnderChurnIsNeverFalselyInvalid(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	root := genProject(t, 40, r)
	d := load(t, root)
	ctx := context.Background()
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Each churn file holds a node of its own that nothing references: created or
		// replaced by rename, and deleted again.
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := filepath.Join(root, "docs", fmt.Sprintf("churn-%d.md", i%7))
			content := fmt.Sprintf("+++\nid = \"churn%d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Churn %d\"\n+++\n%s\n", i%7, i, "Words. ")
			os.WriteFile(p+".tmp", []byte(content), 0o644)
			os.Rename(p+".tmp", p)
			if i%3 == 0 {
				os.Remove(p)
			}
		}
	}()
	var falseInvalid, changed, ok int
	syncs := fixture.SoakRounds(60)
	for range syncs {
		res, err := index.Sync(ctx, d, index.Options{})
		switch code := problem.CodeOf(err); {
		case err == nil:
			ok++
			if res.Attempts < 1 {
				t.Errorf("attempts %d", res.Attempts)
			}
		case code == problem.ProjectInvalid:
			falseInvalid++
			t.Logf("project_invalid under churn: %v", err)
		case code == problem.SourceChanged:
			changed++
		default:
			t.Errorf("sync under churn: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("soak: %d syncs under churn: %d ok, %d source_changed, %d project_invalid", syncs, ok, changed, falseInvalid)
	if falseInvalid > 0 {
		t.Errorf("%d of %d syncs under churn said project_invalid (%d ok, %d source_changed)", falseInvalid, syncs, ok, changed)
	}
	if ok == 0 {
		t.Errorf("no sync under churn succeeded (%d source_changed)", changed)
	}
	// Once the churn stops, a sync publishes exactly the tree on disk.
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatalf("after the churn: %v", err)
	}
	st, err := index.CheckStatus(ctx, d, "", "")
	if err != nil || st.State != publication.Current {
		t.Fatalf("after the churn: %+v %v", st, err)
	}
}

// A generation-diff receipt that kept only part of its transition says which limit omitted
// the rest.
func TestDiffRetentionNamesItsLimit(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	root := genProject(t, 1100, r)
	d := load(t, root)
	if _, err := index.Sync(context.Background(), d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	diff, err := index.ReadGenerationDiff(publication.PathsFor(d, "").Diff)
	if err != nil {
		t.Fatal(err)
	}
	ret := diff.Retention
	if ret.TotalItems <= index.DiffMaxItems || ret.Omitted == 0 || ret.OmittedBy != "max_items" {
		t.Errorf("retention %+v: want details past %d items omitted by max_items", ret, index.DiffMaxItems)
	}
}

// A cold build computes its diff from the rows it stored, an incremental build from what its
// delta replaced. Both must describe one transition item for item: an empty list was null in
// one and [] in the other.
func TestColdAndIncrementalDiffsAgree(t *testing.T) {
	ctx := context.Background()
	var roots [2]string
	for i := range roots {
		roots[i] = genProject(t, 40, rand.New(rand.NewSource(7)))
		_, err := index.Sync(ctx, load(t, roots[i]), index.Options{})
		must(t, err)
		r := rand.New(rand.NewSource(8))
		for _, n := range []int{3, 17, 39, 40, 41} { // changed nodes and two new ones
			writeNode(t, roots[i], n, r, "edited")
		}
		must(t, os.Remove(filepath.Join(roots[i], "docs", "n038.md"))) // nothing depends on the last ones yet
	}
	var diffs [2]*index.GenerationDiff
	for i, opts := range []index.Options{{}, {Rebuild: true}} {
		d := load(t, roots[i])
		res, err := index.Sync(ctx, d, opts)
		must(t, err)
		if want := []string{index.BuildIncremental, index.BuildCold}[i]; res.Build != want {
			t.Fatalf("sync %d built %s, want %s", i, res.Build, want)
		}
		diffs[i], err = index.ReadGenerationDiff(publication.PathsFor(d, "").Diff)
		must(t, err)
	}
	inc, cold := diffs[0], diffs[1]
	if inc.Summary != cold.Summary || inc.FullItemsHash != cold.FullItemsHash {
		a, _ := json.MarshalIndent(inc.Items, "", " ")
		b, _ := json.MarshalIndent(cold.Items, "", " ")
		t.Fatalf("incremental diff %+v %s\ncold diff %+v %s\nfirst difference: %s", inc.Summary, inc.FullItemsHash, cold.Summary, cold.FullItemsHash, firstDiff(string(a), string(b)))
	}
	if inc.Summary.NodesAdded != 2 || inc.Summary.NodesRemoved != 1 || inc.Summary.NodesChanged == 0 {
		t.Fatalf("the edits were not seen: %+v", inc.Summary)
	}
}

// A cold rebuild of sources that did not change finds its node and edge sets equal to the
// previous generation's by their digests, and so reads neither to diff: its diff is empty,
// and the next change is still diffed in full.
func TestColdRebuildOfTheSameSourcesDiffsNothing(t *testing.T) {
	ctx := context.Background()
	root := genProject(t, 30, rand.New(rand.NewSource(9)))
	_, err := index.Sync(ctx, load(t, root), index.Options{})
	must(t, err)
	d := load(t, root)
	res, err := index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	diff, err := index.ReadGenerationDiff(publication.PathsFor(d, "").Diff)
	must(t, err)
	if res.Build != index.BuildCold || len(diff.Items) != 0 || diff.Summary != (index.DiffSummary{}) {
		t.Fatalf("rebuild of the same sources: build %s, diff %+v with %d items; want a cold build and no items", res.Build, diff.Summary, len(diff.Items))
	}
	writeNode(t, root, 4, rand.New(rand.NewSource(10)), "edited")
	d = load(t, root)
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	diff, err = index.ReadGenerationDiff(publication.PathsFor(d, "").Diff)
	must(t, err)
	if diff.Summary.NodesChanged == 0 {
		t.Fatalf("a cold rebuild after an edit diffed %+v; want the edited node changed", diff.Summary)
	}
}
