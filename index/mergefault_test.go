package index_test

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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
	r := rand.New(rand.NewSource(seed))
	root := genProject(t, 20, r)
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	var gen int64
	for i := range 3 {
		writeNode(t, root, i, r, "edit")
		res, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		gen = res.Generation
	}
	want := dumpMatches(t, d)
	interrupt(d)
	checkPublished(t, d, gen)
	if got := dumpMatches(t, d); got != want {
		t.Fatalf("after the interrupted merge the generation answers otherwise:\n%s", firstDiff(got, want))
	}
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Generation != gen {
		t.Fatalf("the sync after the interrupted merge published generation %d, want %d", res.Generation, gen)
	}
	if st, _ := index.CheckStatus(ctx, d, ""); st.State != publication.Current {
		t.Fatalf("after the sync the status is %s (%s)", st.State, st.Reason)
	}
	if got := dumpMatches(t, d); got != want {
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
				_, err := index.Merge(context.Background(), d, index.MergeOptions{Fault: func(s string) error {
					if s == step {
						return boom
					}
					return nil
				}})
				if !errors.Is(err, boom) {
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
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledMerge$")
				cmd.Env = append(os.Environ(), "DOCFORGE_TEST_CHILD_ROOT="+d.Root, "DOCFORGE_TEST_KILL_AT="+step)
				err := cmd.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("child was not killed: %v", err)
				}
				if slices.Index(index.MergeSteps(), step) >= slices.Index(index.MergeSteps(), index.StepMergeRename) {
					// The killed merge left its base (renamed or not) for the next sync to retire.
					if m, _ := filepath.Glob(filepath.Join(publication.PathsFor(d, "").Dir, "base-*")); len(m) < 2 {
						t.Fatalf("the killed merge left no base of its own: %v", m)
					}
				}
			})
		})
	}
}

func TestHelperKilledMerge(t *testing.T) {
	root := os.Getenv("DOCFORGE_TEST_CHILD_ROOT")
	if root == "" || os.Getenv("DOCFORGE_TEST_KILL_AT") == "" || !strings.HasPrefix(os.Getenv("DOCFORGE_TEST_KILL_AT"), "merge_") {
		return
	}
	d := load(t, root)
	step := os.Getenv("DOCFORGE_TEST_KILL_AT")
	_, _ = index.Merge(context.Background(), d, index.MergeOptions{Fault: func(s string) error {
		if s == step {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Second)
		}
		return nil
	}})
	t.Fatal("the child was meant to be killed")
}
