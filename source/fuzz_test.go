package source_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// FuzzParse feeds arbitrary bytes to both parsers. They must never panic, every problem must
// carry a known code and a position inside the file, and every node must have a valid ID.
func FuzzParse(f *testing.F) {
	root := f.TempDir()
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		f.Fatal(err)
	}
	d, probs := project.Parse([]byte(testDescriptor), root)
	if d == nil {
		f.Fatalf("descriptor: %v", probs)
	}
	f.Add([]byte(node("a", "[relations]\ndepends_on = [\"b\"]\n")+"body [[c]]\n"), true)
	f.Add([]byte("+++\nid = \"a\"\n"), true)
	f.Add([]byte("[[node]]\nid = \"r\"\nkind = \"requirement\"\nfamily = \"req\"\nbody = \"\"\"\n# H\n\"\"\"\n"), false)
	f.Add([]byte("[[node]\n"), false)
	f.Add([]byte(yamlNode("a", "tags: [x]\nrelations:\n  depends_on: [b]\n")+"body\n"), true)
	f.Add([]byte("---\nid: a\nkind: [\n---\n"), true)
	f.Add([]byte("---\n&a x: *a\n---\n"), true)
	known := map[problem.Code]bool{}
	for _, c := range problem.All() {
		known[c] = true
	}
	f.Fuzz(func(t *testing.T, data []byte, markdown bool) {
		format := source.Records
		if markdown {
			format = source.Markdown
		}
		frag := source.Parse(d, "docs/f", format, data)
		lines := 1
		for _, b := range data {
			if b == '\n' {
				lines++
			}
		}
		for _, p := range frag.Problems {
			if !known[p.Code] {
				t.Fatalf("unknown code %q", p.Code)
			}
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("problem %s at line %d of a %d-line file", p.Code, p.Line, lines)
			}
		}
		for _, n := range frag.Nodes {
			if !source.ValidDocID(n.ID) || n.ContentHash == "" {
				t.Fatalf("node with bad id %q or no hash", n.ID)
			}
		}
	})
}
