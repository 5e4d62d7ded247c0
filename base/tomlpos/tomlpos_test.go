package tomlpos

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const sample = `schema_version = 1   # a comment
[project]
id = "courier"
name = 'Courier'

[[node]]
id = "a"
relations.depends_on = ["b", "c"]

[[node]]
id = "d"
tags = [
  "x",  # first
  'y',
]
[node.meta]
owner = "ops"
inline = { a = 1 }
`

// Keys, values, array-of-table elements, multi-line arrays, dotted keys and the fall back to
// the enclosing table, with file lines offset by firstLine.
func TestScanPositions(t *testing.T) {
	ix := Scan(sample, 10)
	for _, tc := range []struct {
		path  string
		value int // -1: the key
		want  Pos
		ok    bool
	}{
		{"schema_version", -1, Pos{10, 1}, true},
		{"schema_version", 0, Pos{10, 18}, true},
		{"project.id", 0, Pos{12, 6}, true},
		{"project.name", 0, Pos{13, 8}, true},
		{"node.0", -1, Pos{15, 1}, true},
		{"node.0.relations.depends_on", 1, Pos{17, 30}, true},
		{"node.1.id", 0, Pos{20, 6}, true},
		{"node.1.tags", 0, Pos{22, 3}, true},
		{"node.1.tags", 1, Pos{23, 3}, true},
		{"node.1.tags", 2, Pos{21, 1}, true}, // no third string: the key
		{"node.1.meta.owner", 0, Pos{26, 9}, true},
		{"node.1.meta.inline", 0, Pos{27, 1}, true},   // an inline table has no value position
		{"node.1.meta.nothing", -1, Pos{25, 1}, true}, // the enclosing table
		{"nowhere", -1, Pos{}, false},
	} {
		var got Pos
		var ok bool
		if tc.value < 0 {
			got, ok = ix.Key(tc.path)
		} else {
			got, ok = ix.Value(tc.path, tc.value)
		}
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s[%d]: %v %v, want %v %v", tc.path, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzScan: any text scans without panicking, and in a document the TOML decoder accepts,
// every top-level key the decoder sees has a position on a line of the text.
func FuzzScan(f *testing.F) {
	f.Add(sample)
	f.Add("a = [\n\"b\" # ]\n]\n")
	f.Add("[[x]]\n[x.y]\nz = '''\nq\n'''\n")
	f.Add("\"quoted.key\" = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		ix := Scan(text, 1)
		lines := strings.Count(text, "\n") + 1
		var doc map[string]any
		if _, err := toml.Decode(text, &doc); err != nil {
			return
		}
		for k := range doc {
			if strings.ContainsAny(k, ".\"' \t") {
				continue // quoted keys with dots or spaces are normalised differently
			}
			p, ok := ix.Key(k)
			if ok && (p.Line < 1 || p.Line > lines || p.Column < 1) {
				t.Fatalf("key %q at %v, outside a %d-line text", k, p, lines)
			}
		}
	})
}
