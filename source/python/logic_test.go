package python_test

import (
	"context"
	"flag"
	"github.com/docforge/docforge/source/treesit"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/python"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic/*.py file has a .golden listing of the Logic of its functions, checked
// by hand against Python's semantics: elif chains, a loop's else that a break skips, raise
// ending its path, handlers reached from the try, else after the body alone, finally after
// both, with, await, match.
func TestLogicGolden(t *testing.T) {
	fixture.GoldenFiles(t, "testdata/logic/*.py", *update, func(t *testing.T, path string, src []byte) string {
		facts, err := python.Extract(context.Background(), src, false, golang.DefaultLogicLimit, treesit.Bounds{})
		if err != nil || facts.Error != nil {
			t.Fatalf("parse: %v %+v", err, facts.Error)
		}
		return facts.LogicListing()
	})
}
