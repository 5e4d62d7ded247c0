package taskcontext

import (
	"testing"

	"github.com/docforge/docforge/index"
)

// TestFilesLead checks the order in which the ranking first names files: a file's best item
// carries its whole file's relevance, and a file's later items give way to other files.
func TestFilesLead(t *testing.T) {
	type item struct {
		id, file string
		score    float64
	}
	tests := []struct {
		name  string
		items []item
		want  []string // item IDs in rank order
	}{
		{
			name:  "several relevant items outrank one better item",
			items: []item{{"a", "one.py", 1.0}, {"b1", "two.py", 0.8}, {"b2", "two.py", 0.7}, {"b3", "two.py", 0.6}},
			// two.py: 0.8 + 0.5*0.7 + 0.25*0.6 = 1.3 leads; b2 and b3 keep 0.95 and 0.9025 of theirs.
			want: []string{"b1", "a", "b2", "b3"},
		},
		{
			name:  "a file's second item gives way to the next file",
			items: []item{{"a1", "one.py", 1.0}, {"a2", "one.py", 0.5}, {"b", "two.py", 0.48}},
			// a2 keeps 0.95*0.5 = 0.475 < 0.48: two.py is named before one.py is detailed.
			want: []string{"a1", "b", "a2"},
		},
		{
			name:  "a single item per file keeps its order",
			items: []item{{"a", "one.py", 0.9}, {"b", "two.py", 0.8}, {"c", "three.py", 0.7}},
			want:  []string{"a", "b", "c"},
		},
		{
			name:  "nodes without a source path stand alone",
			items: []item{{"p1", "", 0.6}, {"p2", "", 0.5}, {"a", "one.py", 0.55}},
			want:  []string{"p1", "a", "p2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &collection{}
			for i, it := range tt.items {
				f := &found{ref: index.NodeRef{Key: int64(i + 1), ID: it.id}, score: it.score}
				f.rec.SourcePath = it.file
				c.items = append(c.items, f)
			}
			c.sortByScore()
			c.leadFiles()
			c.sortByScore()
			var got []string
			for _, f := range c.items {
				got = append(got, f.ref.ID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// The focus cap counts a code declaration with its file's others; a Go declaration (its
// package spans files) and a document are each their own.
func TestFileOf(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"py:src/a/b.py/Cart.add", "py:src/a/b.py"},
		{"rs:clap_builder/src/parser/parser.rs/Parser.parse", "rs:clap_builder/src/parser/parser.rs"},
		{"go:example.com/m/pkg.Run", "go:example.com/m/pkg.Run"},
		{"guide/intro", "guide/intro"},
		{"docs/decisions/adr-1", "docs/decisions/adr-1"},
		{"readme", "readme"},
	} {
		if got := fileOf(c.id); got != c.want {
			t.Errorf("fileOf(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
