package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
)

// interruptedMerge publishes a generation with three deltas, lets interrupt stop a merge of
// them at step, and checks that the generation still answers as before (from the manifest
// the merge left: the old one, or the merged one from the manifest step on), and that the next
// sync leaves a current index whose folder holds only the manifest's segments.
func interruptedMerge(t *testing.T, seed int64, interrupt func(d *project.Descriptor)) {
	t.Helper()
	ctx := context.Background()
	root, d, r := syncedProject(t, 20, seed)
	var gen int64
	for i := range 3 {
		writeNode(t, root, i, r, "edit")
		res, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		gen = res.Generation
	}
	want := dump(t, d, "")
	interrupt(d)
	checkPublished(t, d, gen)
	if got := dump(t, d, ""); got != want {
		t.Fatalf("after the interrupted merge the generation answers otherwise:\n%s", firstDiff(got, want))
	}
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Generation != gen {
		t.Fatalf("the sync after the interrupted merge published generation %d, want %d", res.Generation, gen)
	}
	if st, _ := index.CheckStatus(ctx, d, "", ""); st.State != publication.Current {
		t.Fatalf("after the sync the status is %s (%s)", st.State, st.Reason)
	}
	if got := dump(t, d, ""); got != want {
		t.Fatalf("after the sync the generation answers otherwise:\n%s", firstDiff(got, want))
	}
	paths := publication.PathsFor(d, "")
	m, err := index.ReadManifest(paths.Index)
	must(t, err)
	named := map[string]bool{}
	for _, s := range m.Segments {
		named[s.Name] = true
	}
	entries, err := os.ReadDir(paths.Dir)
	must(t, err)
	for _, e := range entries {
		if (strings.HasPrefix(e.Name(), "base-") || strings.HasPrefix(e.Name(), "delta-")) && !named[e.Name()] {
			t.Errorf("the sync left %s, which the manifest does not name", e.Name())
		}
	}
}

func TestFailureAtEveryMergeStepKeepsTheGeneration(t *testing.T) {
	for _, step := range index.MergeSteps() {
		t.Run(step, func(t *testing.T) {
			interruptedMerge(t, 21, func(d *project.Descriptor) {
				boom := errors.New("injected")
				if _, err := index.Merge(context.Background(), d, index.MergeOptions{Fault: failAt(step, boom)}); !errors.Is(err, boom) {
					t.Fatalf("merge error = %v", err)
				}
			})
		})
	}
}

// TestKilledMergeKeepsTheGeneration kills a merging child process (SIGKILL) at every step.
func TestKilledMergeKeepsTheGeneration(t *testing.T) {
	if os.Getenv("DOCFORGE_TEST_CHILD_ROOT") != "" {
		return // the child runs TestHelperKilledMerge instead
	}
	for _, step := range index.MergeSteps() {
		t.Run(step, func(t *testing.T) {
			interruptedMerge(t, 22, func(d *project.Descriptor) {
				runKilled(t, "TestHelperKilledMerge", d.Root, step)
				if slices.Index(index.MergeSteps(), step) >= slices.Index(index.MergeSteps(), index.StepMergeVerify) {
					// The killed merge left its base (written, or renamed into place) for the
					// next sync to retire.
					if m, _ := filepath.Glob(filepath.Join(publication.PathsFor(d, "").Dir, "base-*")); len(m) < 2 {
						t.Fatalf("the killed merge left no base of its own: %v", m)
					}
				}
			})
		})
	}
}

func TestHelperKilledMerge(t *testing.T) {
	d, step, ok := killedChild(t)
	if !ok {
		return
	}
	_, _ = index.Merge(context.Background(), d, index.MergeOptions{Fault: killAt(step)})
	t.Fatal("the child was meant to be killed")
}
