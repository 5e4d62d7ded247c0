package ecma_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/golang"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic/*.ts file has a .golden listing of the Logic of its functions, checked
// by hand against Python's semantics: elif chains, a loop's else that a break skips, raise
// ending its path, handlers reached from the try, else after the body alone, finally after
// both, with, await, match.
func TestLogicGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/logic/*.ts")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			facts, err := ecma.Extract(context.Background(), path, src, false, golang.DefaultLogicLimit)
			if err != nil || facts.Error != nil {
				t.Fatalf("parse: %v %+v", err, facts.Error)
			}
			var b strings.Builder
			for _, d := range facts.Decls {
				if d.Logic != nil {
					fmt.Fprintf(&b, "== %s\n%s", d.Qual(), golang.FormatLogic(d.Logic))
				}
			}
			golden := strings.TrimSuffix(path, ".ts") + ".golden"
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
