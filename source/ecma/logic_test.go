package ecma_test

import (
	"context"
	"flag"
	"github.com/docforge/docforge/source/treesit"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/golang"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic/*.ts file has a .golden listing of the Logic of its functions, checked
// by hand against TypeScript's semantics: labelled break and continue, switch fallthrough and
// default, catch reached from the try, finally after both, await, an arrow body.
func TestLogicGolden(t *testing.T) {
	fixture.GoldenFiles(t, "testdata/logic/*.ts", *update, func(t *testing.T, path string, src []byte) string {
		facts, err := ecma.Extract(context.Background(), path, src, false, golang.DefaultLogicLimit, treesit.Bounds{})
		if err != nil || facts.Error != nil {
			t.Fatalf("parse: %v %+v", err, facts.Error)
		}
		return facts.LogicListing()
	})
}
