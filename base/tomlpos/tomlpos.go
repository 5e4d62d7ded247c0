package tomlpos

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a 1-based line and column.
type Pos struct {
	Line   int
	Column int
}

// Index maps dotted key paths to the positions of their keys and string values. Elements of
// arrays of tables are addressed by their 0-based index: "node.2.relations.depends_on".
type Index struct {
	keys   map[string]Pos
	values map[string][]Pos
}

// New returns an empty Index, for a reader of TOML that records positions as it goes (SetKey,
// AddValue) rather than scanning the text again.
func New() *Index { return &Index{keys: map[string]Pos{}, values: map[string][]Pos{}} }

// SetKey records the position of the key (or table header) at path.
func (ix *Index) SetKey(path string, p Pos) { ix.keys[path] = p }

// AddValue records the position of the next value of the key at path: its scalar, or the next
// string of its array.
func (ix *Index) AddValue(path string, p Pos) { ix.values[path] = append(ix.values[path], p) }

// Scan indexes text. firstLine is the file line number of text's first line, so that front
// matter can be scanned on its own and still report file positions.
func Scan(text string, firstLine int) *Index {
	ix := New()
	arrays := map[string]int{} // array-of-tables name -> current element index
	prefix := ""
	var open string // key path of a multi-line array still open
	depth := 0
	for i, line := range strings.Split(text, "\n") {
		lineNo := firstLine + i
		if open != "" {
			depth = ix.collectStrings(open, line, 0, lineNo, depth)
			if depth <= 0 {
				open = ""
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		col := column(line, strings.Index(line, trimmed))
		if strings.HasPrefix(trimmed, "[[") {
			name := normalizeKey(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(stripComment(trimmed), "[[")), "]]"))
			if _, seen := arrays[name]; seen {
				arrays[name]++
			} else {
				arrays[name] = 0
			}
			prefix = name + "." + strconv.Itoa(arrays[name])
			ix.keys[prefix] = Pos{lineNo, col}
			continue
		}
		if trimmed[0] == '[' {
			name := normalizeKey(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(stripComment(trimmed), "[")), "]"))
			prefix = resolveTable(name, arrays)
			ix.keys[prefix] = Pos{lineNo, col}
			continue
		}
		eq := keyEnd(trimmed)
		if eq < 0 {
			continue
		}
		key := normalizeKey(trimmed[:eq])
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		ix.keys[path] = Pos{lineNo, col}
		valueStart := strings.Index(line, trimmed) + eq + 1
		for valueStart < len(line) && (line[valueStart] == ' ' || line[valueStart] == '\t') {
			valueStart++
		}
		if valueStart < len(line) && line[valueStart] == '[' {
			depth = ix.collectStrings(path, line, valueStart, lineNo, 0)
			if depth > 0 {
				open = path
			}
		} else if valueStart < len(line) && line[valueStart] != '{' {
			// A scalar: a string, number, boolean or date. Type errors point here.
			ix.values[path] = append(ix.values[path], Pos{lineNo, column(line, valueStart)})
		}
	}
	return ix
}

// Key returns the position of the key at path, falling back to its nearest enclosing table and
// then to ok=false.
func (ix *Index) Key(path string) (Pos, bool) {
	for {
		if p, ok := ix.keys[path]; ok {
			return p, true
		}
		dot := strings.LastIndexByte(path, '.')
		if dot < 0 {
			return Pos{}, false
		}
		path = path[:dot]
	}
}

// Value returns the position of the i-th value of the key at path (0 for a scalar; the strings
// of an array),
// falling back to the key's position.
func (ix *Index) Value(path string, i int) (Pos, bool) {
	if vs := ix.values[path]; i >= 0 && i < len(vs) {
		return vs[i], true
	}
	return ix.Key(path)
}

// collectStrings records string literals of line from byte offset start, tracking bracket
// depth, and returns the depth left open at the end of the line.
func (ix *Index) collectStrings(path, line string, start, lineNo, depth int) int {
	for i := start; i < len(line); i++ {
		switch c := line[i]; c {
		case '#':
			return depth
		case '[':
			depth++
		case ']':
			depth--
			if depth <= 0 {
				return 0
			}
		case '"', '\'':
			ix.values[path] = append(ix.values[path], Pos{lineNo, column(line, i)})
			i = skipString(line, i)
		}
	}
	return depth
}

// skipString returns the index of the quote closing the string that opens at line[i].
func skipString(line string, i int) int {
	q := line[i]
	for j := i + 1; j < len(line); j++ {
		if q == '"' && line[j] == '\\' {
			j++
			continue
		}
		if line[j] == q {
			return j
		}
	}
	return len(line)
}

// keyEnd returns the index of the '=' ending the key of a key/value line, or -1.
func keyEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipString(s, i)
		case '=':
			return i
		}
	}
	return -1
}

// normalizeKey turns `a . "b.c"` into `a.b.c` (quoted parts lose their quotes).
func normalizeKey(k string) string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(k); i++ {
		switch c := k[i]; c {
		case '"', '\'':
			end := skipString(k, i)
			if end >= len(k) { // unterminated: the decoder reports the syntax error
				cur.WriteString(k[i+1:])
				i = len(k)
				continue
			}
			cur.WriteString(k[i+1 : end])
			i = end
		case '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case ' ', '\t':
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, strings.TrimSpace(cur.String()))
	return strings.Join(parts, ".")
}

// resolveTable inserts array-of-tables indexes: with [[node]] open at index 3, the table
// [node.relations] is "node.3.relations".
func resolveTable(name string, arrays map[string]int) string {
	best := ""
	for a := range arrays {
		if (name == a || strings.HasPrefix(name, a+".")) && len(a) > len(best) {
			best = a
		}
	}
	if best == "" {
		return name
	}
	return best + "." + strconv.Itoa(arrays[best]) + name[len(best):]
}

func stripComment(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func column(line string, byteIdx int) int {
	if byteIdx < 0 {
		byteIdx = 0
	}
	return utf8.RuneCountInString(line[:byteIdx]) + 1
}
