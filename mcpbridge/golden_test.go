package mcpbridge

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/worker"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/tools.golden.json from the current tool registry")

// The public contract (every tool's name, description, annotations and input schema) is
// snapshotted, so it changes only on purpose: run 'go test ./mcpbridge -update' and review.
func TestToolContractSnapshot(t *testing.T) {
	type entry struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		ReadOnly    bool           `json:"read_only"`
		Mutates     bool           `json:"mutates"`
		InputSchema map[string]any `json:"input_schema"`
	}
	var got []entry
	for _, s := range worker.Tools() {
		got = append(got, entry{s.Name, s.Description, s.ReadOnly, s.Mutates(), s.InputSchema})
	}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *updateGolden {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with 'go test ./mcpbridge -update')", err)
	}
	if string(want) != string(data) {
		t.Fatalf("the tool contract differs from %s; if the change is intended, run 'go test ./mcpbridge -update' and review the diff", path)
	}
}
