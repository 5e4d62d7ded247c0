package source_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// trackerDescriptor nests a content root in another, lays a code root over both and excludes
// a folder, so that a directory is listed under several rules at once.
const trackerDescriptor = `schema_version = 1
[project]
id = "t"
[sources]
content_roots = ["docs", "docs/inner"]
code_roots = ["."]
exclude = ["docs/skip/**"]
[relations]
allowed = ["calls", "contains", "defines", "imports", "tested_by"]
[families.arch]
kinds = ["component"]
`

// TestTrackerListsWhatTheWalkLists changes a tree at random, tells a tracker what a watch
// would (the folder of each changed file; everything when folders change) and checks that
// every inventory it returns is the walk's, and that it mostly did not walk.
func TestTrackerListsWhatTheWalkLists(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(trackerDescriptor), 0o644))
	dirs := []string{"docs", "docs/inner", "docs/inner/deep", "docs/skip", "pkg", "pkg/testdata", "pkg/_tools", "pkg/.hidden", "docs/api"}
	for _, dir := range dirs {
		must(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, probs)
	}
	names := []string{"a.md", "b.toml", "c.go", "c_test.go", "go.mod", "notes.txt", ".h.md", "_x.go", "index.md"}
	rng := rand.New(rand.NewPCG(1, 28))
	ctx := context.Background()
	tr := source.NewTracker()
	var rescans int
	var hardLinks [][2]string // first name, second name
	for round := 0; round < 120; round++ {
		var linked bool
		// Last round's hard links: their files change through the first name, reported for
		// that folder only, as a watch reports them; then the second names go.
		for _, h := range hardLinks {
			must(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(h[0])), fmt.Appendf(nil, "+++\nid = \"h%d\"\n+++\nchanged through the first name\n", round), 0o644))
			tr.Changed(path.Dir(h[0]))
		}
		made := hardLinks
		hardLinks = nil
		for op := 0; op < 1+rng.IntN(4); op++ {
			dir := dirs[rng.IntN(len(dirs))]
			p := path.Join(dir, names[rng.IntN(len(names))])
			abs := filepath.Join(root, filepath.FromSlash(p))
			switch k := rng.IntN(21); {
			case k == 20:
				// A second name in another folder: changes through one name are reported for
				// that folder only, as a watch reports them.
				other := path.Join(dirs[rng.IntN(len(dirs))], "hard-"+path.Base(p))
				if _, err := os.Stat(abs); err == nil && os.Link(abs, filepath.Join(root, filepath.FromSlash(other))) == nil {
					hardLinks = append(hardLinks, [2]string{p, other})
					tr.Changed(path.Dir(other))
				}
			case k < 10:
				must(t, os.WriteFile(abs, fmt.Appendf(nil, "+++\nid = \"n%d\"\n+++\nround %d\n", round, round), 0o644))
			case k < 14:
				os.Remove(abs)
			case k < 16:
				now := time.Now().Add(time.Duration(rng.IntN(1000)) * time.Second)
				os.Chtimes(abs, now, now)
			case k < 17:
				os.Remove(abs)
				must(t, os.Symlink("a.md", abs))
				linked = true
			case k < 18:
				sub := path.Join(dir, fmt.Sprintf("new%d", round))
				must(t, os.MkdirAll(filepath.Join(root, filepath.FromSlash(sub)), 0o755))
				must(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(sub), "n.md"), nil, 0o644))
				dirs = append(dirs, sub)
				tr.ChangedAll()
				continue
			default:
				if i := len(dirs) - 1; i >= 9 {
					gone := dirs[i]
					must(t, os.RemoveAll(filepath.Join(root, filepath.FromSlash(gone))))
					dirs = slices.DeleteFunc(dirs, func(d string) bool { return d == gone || strings.HasPrefix(d, gone+"/") })
					tr.ChangedAll()
				}
				continue
			}
			tr.Changed(dir)
		}
		got, walked, err := tr.Scan(ctx, d)
		must(t, err)
		want, err := source.Scan(ctx, d)
		must(t, err)
		if !walked {
			rescans++
		}
		if got.Identity() != want.Identity() || !slices.Equal(got.Files, want.Files) || !slices.EqualFunc(got.Problems, want.Problems, func(a, b problem.Problem) bool { return a.Message == b.Message }) {
			t.Fatalf("round %d (walked %v): tracker lists\n%v\nthe walk lists\n%v", round, walked, paths(got.Files), paths(want.Files))
		}
		for _, h := range made {
			os.Remove(filepath.Join(root, filepath.FromSlash(h[1])))
			tr.Changed(path.Dir(h[1]))
		}
		if linked {
			// Gone again for the next rounds, as a watch reports it.
			filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
				if err == nil && e.Type()&os.ModeSymlink != 0 {
					os.Remove(p)
					rel, _ := filepath.Rel(root, filepath.Dir(p))
					tr.Changed(filepath.ToSlash(rel))
				}
				return nil
			})
		}
	}
	t.Logf("rescans %d", rescans)
	if rescans < 40 {
		t.Errorf("the tracker listed again without walking in %d of 120 rounds; want most", rescans)
	}
}

func paths(fs []source.File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s(%d,%d)", f.Path, f.Format, f.Size))
	}
	return out
}
