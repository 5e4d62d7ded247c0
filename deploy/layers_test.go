package deploy

import (
	"os/exec"
	"strings"
	"testing"
)

// layers are the module's packages from the innermost layer out (docs/architecture.md,
// "Packages by layer"). A package imports only packages of inner layers, and of its own layer
// only where sameLayer allows it.
var layers = [][]string{
	{"base/problem", "base/lexicon", "base/safefile", "base/tomlpos", "base/jsonenc", "base/shortcode", "base/fixture", "proto/docforge/v2", "deploy", "docs"}, // foundations
	{"base/graph"}, // the graph model and its hashes
	{"source/golang", "source/code", "source/treesit", "source/ecma", "source/lang", "source/project", "source", "index/publication", "index/fts5seg", "index/history", "source/adopt", "source/changeset"}, // canonical sources
	{"index"},                               // the SQLite index
	{"worker/taskcontext", "render", "web"}, // answers built on the index and the sources
	{"worker/protocol", "worker", "manager", "mcpbridge"}, // processes
	{"cmd/docforge", "cmd/docforge-mcp", "cmd/docforge-bench", "cmd/docforge-eval"},
}

// sameLayer are the imports allowed within a layer.
var sameLayer = map[string][]string{
	"source/project":    {"source/golang"},
	"source":            {"source/golang", "source/code", "source/treesit", "source/ecma", "source/lang", "source/project"},
	"source/code":       {"source/golang"},
	"source/ecma":       {"source/code", "source/treesit"},
	"source/lang":       {"source/code", "source/treesit"},
	"index/publication": {"source/golang", "source/project"},
	"source/adopt":      {"source/golang", "source/lang", "source/project", "source"},
	"source/changeset":  {"source/project", "source"},
	"worker":            {"worker/protocol"},
	"manager":           {"worker/protocol"},
	"mcpbridge":         {"worker/protocol"},
}

// Dependencies point inward: no package imports one of an outer layer, nor one of its own
// layer that sameLayer does not list; the bridge and the manager never import the worker.
func TestDependenciesPointInward(t *testing.T) {
	const module = "github.com/docforge/docforge/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		from, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: add it to layers here and to docs/architecture.md", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			to := layerOf[dep]
			allowed := to < from || to == from && contains(sameLayer[pkg], dep)
			if !allowed {
				t.Errorf("%s (layer %d) imports %s (layer %d)", pkg, from, dep, to)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
