package main

import (
	"context"
	"slices"
	"testing"

	"github.com/docforge/docforge/base/fixture"
)

// The scoring follows ../shared/eval/README.md: a symbol matches a node ID ending in .SYMBOL
// or /SYMBOL, or equal to it; the baseline's words drop stopwords and short words.
func TestScoringRules(t *testing.T) {
	for _, c := range []struct {
		id, sym string
		want    bool
	}{
		{"go:example.com/m/mcp.Server.AddTool", "Server.AddTool", true},
		{"go:example.com/m/mcp.Server.AddTool", "AddTool", true},
		{"go:example.com/m/mcp.Server.AddToolX", "AddTool", false},
		{"docs/server", "server", true},
		{"go:example.com/m/mcp.XServer", "Server", false},
	} {
		if got := symbolMatch(c.id, c.sym); got != c.want {
			t.Errorf("symbolMatch(%q, %q) = %v", c.id, c.sym, got)
		}
	}
	if got, want := words("Let the HTTP client back off: initial delay, growth factor, cap."), []string{"http", "client", "back", "initial", "delay", "growth", "factor", "cap"}; !slices.Equal(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
}

// The ranked baseline follows the README: task words are identifier runs of three or more
// characters less its stop words; files are ranked by distinct words, then matching lines,
// then path; hidden folders and the descriptor are left out; recall@k reads distinct files in
// rank order.
func TestRankedBaseline(t *testing.T) {
	if got, want := taskWords("Add a new read_only mode to the HTTP client, and make its retries configurable"), []string{"read_only", "mode", "http", "client", "retries", "configurable"}; !slices.Equal(got, want) {
		t.Errorf("taskWords = %q, want %q", got, want)
	}
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"a/client.go":    "package a\n// HTTP client with retries.\nfunc Retries() {}\n// retries again\n",
		"b/mode.go":      "package b\n// read_only mode of the client\n",
		"c/http.go":      "package c\n// http http http http\n",
		".hidden/x.go":   "client mode http retries read_only configurable\n",
		"docforge.toml":  "client mode http retries read_only configurable\n",
		"z/unrelated.go": "package z\n",
	})
	got, err := rankedBaseline(context.Background(), root, "Add a read_only mode to the HTTP client with retries")
	if err != nil {
		t.Fatal(err)
	}
	// a: http, client, retries (3 words); b: read_only, mode, client (3 words, fewer lines); c: http.
	if want := []string{"a/client.go", "b/mode.go", "c/http.go"}; !slices.Equal(got, want) {
		t.Errorf("ranked %q, want %q", got, want)
	}
	ranked := distinctInOrder([]string{"a.go", "b.go", "a.go", "", "c.go"})
	if !slices.Equal(ranked, []string{"a.go", "b.go", "c.go"}) {
		t.Errorf("distinctInOrder = %q", ranked)
	}
	if r := recallAt(ranked, []string{"c.go", "b.go", "d.go", "e.go"}, 2); r != 0.25 {
		t.Errorf("recall@2 = %v, want 0.25", r)
	}
}
