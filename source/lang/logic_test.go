package lang_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/treesit"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic file has a .golden listing of the Logic of its functions, checked by
// hand against its language: else-if chains, C-style and range loops, labeled breaks out of
// nested loops (Java's break outer, Rust's break 'outer, Kotlin's break@outer), switches that
// fall through and matches and whens that do not, a default wherever it stands, try with
// resources, catch and finally, using and lock, Rust's ? and panic!, a Rust function's tail
// value and C#'s and Kotlin's expression bodies as returns.
func TestLogicGolden(t *testing.T) {
	for _, l := range lang.Languages() {
		if l.Logic {
			t.Run(l.Name, func(t *testing.T) { logicGolden(t, l) })
		}
	}
}

// logicGolden checks the Logic of the files of l's first extension in testdata/logic: a
// language with Logic and no such file fails.
func logicGolden(t *testing.T, l *lang.Language) {
	fixture.GoldenFiles(t, "testdata/logic/*"+l.Extensions[0], *update, func(t *testing.T, path string, src []byte) string {
		facts, err := lang.Extract(context.Background(), l, src, false, golang.DefaultLogicLimit, treesit.Bounds{})
		if err != nil || facts.Error != nil {
			t.Fatalf("parse: %v %+v", err, facts.Error)
		}
		return facts.LogicListing()
	})
}

// Languages whose statements the Logic builder does not read build none.
func TestNoLogicWhereTheBuilderDoesNotRead(t *testing.T) {
	for _, l := range lang.Languages() {
		if l.Logic {
			continue
		}
		src, err := os.ReadFile(fixtures[l.Name].file)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := lang.Extract(context.Background(), l, src, false, golang.DefaultLogicLimit, treesit.Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range facts.Decls {
			if d.Logic != nil {
				t.Errorf("%s: %s has Logic", l.Name, d.Qual())
			}
		}
	}
}
