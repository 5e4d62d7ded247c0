package lang_test

import (
	"bufio"
	"bytes"
	"context"
	"github.com/docforge/docforge/source/treesit"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
)

// The classes, functions and methods the adapter finds in the Python standard library are
// exactly those Python's own parser (the ast module, run through python3) finds, file by file:
// every module-level and class-level definition, through if, try, with and loop bodies. A
// file the grammar fails on is reported, and such files must stay under one in 500.
func TestDeclarationsMatchPythonsAST(t *testing.T) {
	stdlib, files := standardLibrary(t)
	cmd := exec.Command("python3", "testdata/oracle/python/declarations.py")
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n") + "\n")
	oracle, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	extracted := extractAll(t, files)
	var tally fixture.Oracle
	sc := bufio.NewScanner(bytes.NewReader(oracle))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		path, want := fields[0], fields[1:]
		if slices.Equal(want, []string{"!error"}) {
			continue // not Python 3.11 (a test fixture of bad syntax, lib2to3's Python 2 data)
		}
		facts := extracted[path]
		if facts == nil {
			t.Fatalf("%s was not extracted", path)
		}
		if facts.Error != nil {
			// Valid Python the grammar cannot parse: tree-sitter-python fails on
			// `(o.\n a) += v`, an augmented assignment to a parenthesized attribute.
			tally.Gaps = append(tally.Gaps, path+": "+facts.Error.Message)
			continue
		}
		var got []string
		for _, d := range facts.Decls {
			switch d.Kind {
			case code.KindClass, code.KindFunc, code.KindMethod:
				got = append(got, d.Qual())
			}
		}
		tally.Compare(t, path, want, got)
	}
	t.Logf("the standard library at %s", stdlib)
	tally.Finish(t, 500, "ast")
}

// extractAll extracts the files on every core.
func extractAll(t *testing.T, files []string) map[string]*code.Facts {
	out := make([]*code.Facts, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				src, err := os.ReadFile(files[i])
				if err != nil {
					t.Error(err)
					continue
				}
				f, err := lang.Extract(context.Background(), lang.Python(), src, false, 0, treesit.Bounds{})
				if err != nil {
					t.Error(err)
					continue
				}
				out[i] = f
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	m := make(map[string]*code.Facts, len(files))
	for i, f := range files {
		m[f] = out[i]
	}
	return m
}

// standardLibrary is where python3's standard library is and its Python files (no
// site-packages, no caches).
func standardLibrary(t testing.TB) (string, []string) {
	fixture.NeedCommand(t, "python3", "python3")
	out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		t.Fatalf("python3 (make test installs Debian's python3): %v", err)
	}
	stdlib := strings.TrimSpace(string(out))
	var files []string
	err = filepath.WalkDir(stdlib, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "site-packages" || e.Name() == "dist-packages" || e.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if e.Type().IsRegular() && strings.HasSuffix(p, ".py") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 500 {
		t.Fatalf("%s holds %d Python files; the standard library has hundreds", stdlib, len(files))
	}
	return stdlib, files
}

// One pass of the adapter over the standard library, on one goroutine, with Logic: what a
// cold sync's extraction costs before it is spread over the cores. Run it with
// go test ./source/lang -run '^$' -bench ExtractStandardLibrary (PATH's python3 says which
// library; /usr/bin first for Debian's).
func BenchmarkExtractStandardLibrary(b *testing.B) {
	_, files := standardLibrary(b)
	srcs := make([][]byte, len(files))
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs[i] = src
	}
	for b.Loop() {
		for _, src := range srcs {
			if _, err := lang.Extract(context.Background(), lang.Python(), src, false, golang.DefaultLogicLimit, treesit.Bounds{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
