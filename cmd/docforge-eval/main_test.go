package main

import (
	"slices"
	"testing"
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
