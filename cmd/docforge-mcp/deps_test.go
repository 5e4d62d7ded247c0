package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The bridge is a forwarder: it validates its binding and passes calls to a worker, so it
// links neither the index (SQLite), nor Markdown rendering (goldmark), nor the source watch
// (fsnotify), nor a code parser (tree-sitter, which needs cgo), nor the worker itself. The manager it starts and talks to is held to the same.
func TestTheBridgeLinksNoIndex(t *testing.T) {
	forbidden := []string{
		"zombiezen.com/go/sqlite", "modernc.org/sqlite", "github.com/yuin/goldmark", "github.com/fsnotify/fsnotify",
		"github.com/docforge/docforge/index", "github.com/docforge/docforge/worker", "github.com/docforge/docforge/render",
		"github.com/docforge/docforge/web", "github.com/smacker/go-tree-sitter", "github.com/docforge/docforge/source/treesit",
	}
	for _, pkg := range []string{".", "../../manager", "../../mcpbridge"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") && !allowedBelow(dep) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// allowedBelow are the light packages under forbidden prefixes that the bridge may use: the
// publication receipt and the worker's protocol.
func allowedBelow(dep string) bool {
	return dep == "github.com/docforge/docforge/index/publication" || dep == "github.com/docforge/docforge/worker/protocol"
}
