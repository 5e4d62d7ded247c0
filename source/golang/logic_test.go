package golang

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
)

var update = flag.Bool("update", false, "rewrite the golden Logic listings")

// Each testdata/logic/*.go file has a .golden listing of the Logic of its functions. The
// listings were checked by hand against the Go specification; -update rewrites them.
func TestLogicGolden(t *testing.T) {
	fixture.GoldenFiles(t, "testdata/logic/*.go", *update, func(t *testing.T, path string, src []byte) string {
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
		return b.String()
	})
}
