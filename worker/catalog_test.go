package worker_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
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
