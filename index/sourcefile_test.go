package index_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
)

// Evidence quotes a source file only while it is the one the generation was indexed from, and
// only inside the project: an edit since, a symlink out of the root, a file that is no source,
// or a path that climbs out all give nothing.
func TestSourceFileIsTheGenerationsOwn(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	src := "package p\n\n// F is quoted.\nfunc F() {}\n"
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("sf", false),
		"go.mod":        "module example.com/sf\n",
		"p/p.go":        src,
		"notes.txt":     "a text file under the code root: a source\n",
		"logo.png":      "\x89PNG not a source\n",
	})
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()

	if data, ok, err := snap.SourceFile(ctx, "p/p.go"); err != nil || !ok || string(data) != src {
		t.Fatalf("the indexed file: %q %v %v", data, ok, err)
	}
	if data, ok, err := snap.SourceFile(ctx, "notes.txt"); err != nil || !ok || len(data) == 0 {
		t.Errorf("the text file: %q %v %v", data, ok, err)
	}
	for _, rel := range []string{"logo.png", "../p/p.go", "/etc/passwd", "p/../../x.go"} {
		if _, ok, err := snap.SourceFile(ctx, rel); ok || err != nil {
			t.Errorf("%s: quoted (%v, %v)", rel, ok, err)
		}
	}
	// An edit the generation has not seen: nothing is quoted.
	p := filepath.Join(root, "p", "p.go")
	must(t, os.WriteFile(p, []byte(src+"\nfunc G() {}\n"), 0o644))
	if _, ok, err := snap.SourceFile(ctx, "p/p.go"); ok || err != nil {
		t.Errorf("an edited file was quoted (%v, %v)", ok, err)
	}
	// The same bytes through a symlink that leaves the project: not quoted either.
	outside := filepath.Join(t.TempDir(), "p.go")
	must(t, os.WriteFile(outside, []byte(src), 0o644))
	must(t, os.Remove(p))
	must(t, os.Symlink(outside, p))
	if _, ok, err := snap.SourceFile(ctx, "p/p.go"); ok || err != nil {
		t.Errorf("a file outside the project was quoted through a symlink (%v, %v)", ok, err)
	}
}
