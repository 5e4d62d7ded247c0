package worker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/worker/protocol"
)

// A task-context call reads the project's history as it is at the call: a commit made since
// the last call is indexed first (incrementally), and the plan binds the head it read.
func TestTaskContextFollowsNewCommits(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("hist", false),
		"go.mod":        "module example.com/hist\n",
		"net/retry.go":  "package net\n\n// Backoff waits between attempts.\nfunc Backoff(n int) int {\n\treturn n * 2\n}\n",
	})
	git := func(args ...string) string { return fixture.Git(t, root, args...) }
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "Initial import")
	svc := newService(t)
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	args := map[string]any{"kind": "change", "task": "make the backoff jitter tunable"}
	page, code, _ := callTask(t, svc, b, args)
	if code != "" || !strings.Contains(string(page.Plan), "the messages of 1 commits to "+git("rev-parse", "HEAD")) {
		t.Fatalf("first call: %s %s", code, page.Plan)
	}
	// An empty commit changes no source at all, yet the next call reads it.
	git("commit", "-q", "--allow-empty", "-m", "Nothing")
	page, code, _ = callTask(t, svc, b, args)
	if code != "" || !strings.Contains(string(page.Plan), "the messages of 2 commits to "+git("rev-parse", "HEAD")) {
		t.Fatalf("after an empty commit: %s %s", code, page.Plan)
	}
	if err := os.WriteFile(filepath.Join(root, "NOTES.txt"), []byte("jitter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "Add jitter to the backoff")
	page, code, _ = callTask(t, svc, b, args)
	if code != "" || !strings.Contains(string(page.Plan), "the messages of 3 commits to "+git("rev-parse", "HEAD")) {
		t.Fatalf("after a commit: %s %s", code, page.Plan)
	}
	found := false
	for _, it := range page.Items {
		found = found || strings.Contains(string(it), `"subject":"Add jitter to the backoff"`)
	}
	if !found {
		t.Errorf("no item names the new commit:\n%s", page.Items)
	}
}
