package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
)

// A sync cancelled at any point, cold or incremental, returns the context's error and leaves
// the published generation as it was: no panic (an interrupted connection cannot roll back,
// and a build's private file needs no rollback), no half-published index.
func TestCancelledSyncKeepsThePublishedIndex(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"docforge.toml": "schema_version = 1\n[project]\nid = \"cx\"\n[sources]\ncontent_roots = [\"docs\"]\n[relations]\nallowed = [\"depends_on\"]\n[families.arch]\nkinds = [\"component\"]\n",
	}
	for i := 0; i < 3000; i++ {
		files[fmt.Sprintf("docs/n%04d.md", i)] = fmt.Sprintf("+++\nid = \"n%04d\"\nkind = \"component\"\nfamily = \"arch\"\n[relations]\ndepends_on = [\"n%04d\"]\n+++\n# Node %d\n\n%s\n",
			i, (i+1)%3000, i, strings.Repeat("words of a body that the index analyzes and stores ", 20))
	}
	fixture.WriteTree(t, root, files)
	d := load(t, root)
	first, err := index.Sync(context.Background(), d, index.Options{})
	must(t, err)
	want := first.Publication.Graph.NodeHash
	for i, delay := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		rebuild := i%2 == 0
		if !rebuild {
			// An edit of many files: an incremental build, cancelled part way.
			for j := 0; j < 400; j++ {
				p := filepath.Join(root, "docs", fmt.Sprintf("n%04d.md", (i*400+j)%3000))
				data, err := os.ReadFile(p)
				must(t, err)
				must(t, os.WriteFile(p, append(data, fmt.Sprintf("edit %d\n", i)...), 0o644))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), delay)
		_, err := index.Sync(ctx, d, index.Options{Rebuild: rebuild})
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("cancel after %s: want the context's error, got %v", delay, err)
		}
		snap, oerr := index.Open(context.Background(), d)
		must(t, oerr)
		info := snap.Info()
		snap.Close()
		if err != nil && rebuild && info.NodeHash != want {
			t.Fatalf("cancel after %s: the published index changed under a cancelled sync", delay)
		}
		want = info.NodeHash
	}
	// The next sync completes and publishes the current sources.
	_, err = index.Sync(context.Background(), d, index.Options{})
	must(t, err)
}
