package golang

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic/*.go file has a .golden listing of the Logic of its functions. The
// listings were checked by hand against the Go specification; -update rewrites them.
func TestLogicGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/logic/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			facts := Extract(filepath.Base(path), src, DefaultLogicLimit)
			if facts.Error != nil {
				t.Fatalf("parse: %+v", facts.Error)
			}
			var b strings.Builder
			for _, d := range facts.Decls {
				if d.Logic != nil {
					fmt.Fprintf(&b, "== %s\n%s", d.Name, FormatLogic(d.Logic))
				}
			}
			golden := strings.TrimSuffix(path, ".go") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("Logic of %s differs from %s:\n--- got\n%s--- want\n%s", path, golden, got, want)
			}
		})
	}
}
