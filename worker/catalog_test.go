package worker_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
	"github.com/docforge/docforge/worker/taskcontext"
)

var updateCatalog = flag.Bool("update", false, "rewrite protocol/tools.json from the tool definitions")

// The tool contract (names, descriptions, schemas, annotations, groups) is the catalogue that
// package protocol embeds for the bridge; it is generated from the tools' definitions and
// changes only on purpose: run 'go test ./worker -run TestToolCatalog -update' and review the
// diff of worker/protocol/tools.json.
func TestToolCatalog(t *testing.T) {
	data, err := json.MarshalIndent(worker.Catalog(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("protocol", "tools.json")
	if *updateCatalog {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(data) {
		t.Fatalf("the tool definitions differ from %s; if the change is intended, run 'go test ./worker -run TestToolCatalog -update' and review the diff", path)
	}
}

// For every capability mode and gate, the bridge's catalogue offers exactly the tools the
// worker runs for that binding.
func TestCatalogMatchesTheWorker(t *testing.T) {
	for _, mode := range []string{"", protocol.ModeRead, protocol.ModeProposal, protocol.ModeApplication, protocol.ModeOperator} {
		for _, applier := range []string{"", "maintainer"} {
			for _, writer := range []string{"", "agent"} {
				b := protocol.Binding{CapabilityMode: mode, CanonicalApplier: applier, ProposalWriter: writer}
				var fromWorker, fromCatalog []string
				for _, s := range worker.ToolsFor(b) {
					fromWorker = append(fromWorker, s.Name)
				}
				for _, s := range protocol.ToolsFor(b) {
					fromCatalog = append(fromCatalog, s.Name)
				}
				if !slices.Equal(fromWorker, fromCatalog) {
					t.Errorf("%+v: worker %v, catalogue %v", b, fromWorker, fromCatalog)
				}
			}
		}
	}
}

// Struct tags cannot name constants, so the literal bounds of the tool inputs are checked
// here against the constants they stand for.
func TestInputBoundsFollowTheirConstants(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, tool := range worker.Catalog() {
		schemas[tool.Name] = tool.InputSchema["properties"].(map[string]any)
	}
	prop := func(tool, name string) map[string]any { return schemas[tool][name].(map[string]any) }
	enum := func(v any) []string {
		var out []string
		switch list := v.(type) {
		case []string:
			out = list
		case []any:
			for _, e := range list {
				out = append(out, e.(string))
			}
		}
		return out
	}
	num := func(v any) int {
		if f, ok := v.(float64); ok {
			return int(f)
		}
		return v.(int)
	}
	task := "docforge_get_task_context"
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"impact depth maximum", num(prop("docforge_impact", "depth")["maximum"]), index.MaxImpactDepth},
		{"search limit default", strings.Contains(prop("docforge_search", "limit")["description"].(string), fmt.Sprintf("(default %d)", index.DefaultSearchLimit)), true},
		{"list limit default", strings.Contains(prop("docforge_backlinks", "limit")["description"].(string), fmt.Sprintf("(default %d)", index.DefaultListLimit)), true},
		{"task kinds", enum(prop(task, "kind")["enum"]), taskcontext.Kinds()},
		{"task characters", num(prop(task, "task")["maxLength"]), taskcontext.MaxTaskChars},
		{"budget maximum", num(prop(task, "budget")["maximum"]), taskcontext.MaxBudget},
		{"budget default in its description", strings.Contains(prop(task, "budget")["description"].(string), fmt.Sprintf("default %d;", taskcontext.DefaultBudget)), true},
		{"impact depth in its description", strings.Contains(prop("docforge_impact", "depth")["description"].(string), fmt.Sprintf("at most %d", index.MaxImpactDepth)), true},
	} {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: the schema says %v, the constant %v", tc.name, tc.got, tc.want)
		}
	}
}
