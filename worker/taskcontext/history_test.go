package taskcontext_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index/history"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/taskcontext"
)

// gitCommit commits the tree at root with msg.
func gitCommit(t *testing.T, root, msg string) {
	t.Helper()
	fixture.Git(t, root, "add", "-A")
	fixture.Git(t, root, "commit", "-q", "-m", msg)
}

// The commits whose messages say the task's words are evidence: the declarations they
// changed join the capsule (when no node holds those words), marked as found by history, and
// items name the commits that changed them, those the task's words chose first. Without
// history the same request finds nothing.
func TestHistoryAsEvidence(t *testing.T) {
	retry := "package net\n\n// Dial connects.\nfunc Dial() int {\n\treturn 1\n}\n\n// Backoff waits between attempts.\nfunc Backoff(n int) int {\n\treturn n * 2\n}\n"
	_, root := syncProject(t, map[string]string{
		"docforge.toml":  fixture.GoModuleDescriptor("hist", false),
		"go.mod":         "module example.com/hist\n",
		"net/retry.go":   retry,
		"store/store.go": "package store\n\n// Flush writes.\nfunc Flush() {}\n",
	})
	fixture.Git(t, root, "init", "-q")
	gitCommit(t, root, "Initial import")
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("net/retry.go", strings.Replace(retry, "return n * 2", "return n*2 + n/2", 1))
	gitCommit(t, root, "Add reconnect jitter to the dialer")
	write("store/store.go", "package store\n\n// Flush writes.\nfunc Flush() { _ = 1 }\n")
	gitCommit(t, root, "store: faster flush")

	snap := open(t, root)
	d, _, err := project.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if res, err := history.Update(ctx, root, d.StatePath("history"), history.DefaultWindow); err != nil || res.Commits != 3 {
		t.Fatalf("history: %+v %v", res, err)
	}
	hist, err := history.Open(ctx, d.StatePath("history"))
	if err != nil || hist == nil {
		t.Fatalf("open history: %v", err)
	}
	defer hist.Close()

	r, err := taskcontext.Normalize(taskcontext.Request{Kind: taskcontext.KindChange, Task: "make the reconnect jitter tunable"})
	if err != nil {
		t.Fatal(err)
	}
	without, err := taskcontext.Collect(ctx, snap, nil, r, policyHash)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := without.Layout(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(items(t, plain)); n != 0 {
		t.Errorf("without history %d items", n)
	}
	col, err := taskcontext.Collect(ctx, snap, hist, r, policyHash)
	if err != nil {
		t.Fatal(err)
	}
	c, err := col.Layout(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.FullPlan.Steps[0].History; !strings.Contains(h, "3 commits") {
		t.Errorf("the plan does not bind the history it read: %q", h)
	}
	var ids []string
	for _, it := range items(t, c) {
		ids = append(ids, it.NodeID)
		if it.NodeID != "go:example.com/hist/net.Backoff" {
			continue
		}
		if !slices.ContainsFunc(it.Provenance, func(f taskcontext.Fact) bool { return f.Code == taskcontext.FactHistoryFocus }) {
			t.Errorf("Backoff's provenance %+v lacks %s", it.Provenance, taskcontext.FactHistoryFocus)
		}
		if len(it.Commits) != 2 || it.Commits[0].Subject != "Add reconnect jitter to the dialer" || it.Commits[1].Subject != "Initial import" {
			t.Errorf("Backoff's commits %+v", it.Commits)
		}
	}
	// The commit changed Backoff's body, not Dial: the declaration its lines are in.
	if !slices.Contains(ids, "go:example.com/hist/net.Backoff") || slices.Contains(ids, "go:example.com/hist/net.Dial") {
		t.Errorf("items %v: want Backoff, not Dial", ids)
	}
	for _, g := range c.Gaps {
		if g.Kind == taskcontext.GapNoEvidence && g.Step == 1 {
			t.Errorf("a no-evidence gap though history found evidence: %+v", g)
		}
	}
}
