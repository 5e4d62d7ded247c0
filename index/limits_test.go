package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoBoundLimits keeps every LIMIT of the package's queries written into the statement:
// SQLite plans a query over a layered generation's compound views with its LIMIT's value, so
// a bound LIMIT prepares the statement again at every execution (docs/architecture.md,
// "Segments").
func TestNoBoundLimits(t *testing.T) {
	files, err := filepath.Glob("*.go")
	must(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		must(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "LIMIT ?") {
				t.Errorf("%s:%d binds a LIMIT: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
