package changeset

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The serializer edits TOML text in place: it finds each top-level entry's exact line span,
// replaces only the entries whose values change, and inserts new ones after their section's
// last entry. Comments, ordering and formatting of everything else keep their bytes, and a
// Markdown body is never re-encoded by a front-matter edit.

// item is one top-level element of a TOML text: a table header or a key/value entry spanning
// lines [start, end).
type item struct {
	header     string // table name for a header; "" for an entry
	array      bool   // [[header]]
	key        string // an entry's key; "" when its span does not decode on its own
	start, end int
}

// scanItems lists the items of lines[from:to].
func scanItems(lines []string, from, to int) []item {
	var out []item
	for i := from; i < to; {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			i++
		case strings.HasPrefix(t, "[["):
			out = append(out, item{header: tableName(t, "[[", "]]"), array: true, start: i, end: i + 1})
			i++
		case strings.HasPrefix(t, "["):
			out = append(out, item{header: tableName(t, "[", "]"), start: i, end: i + 1})
			i++
		default:
			key, end := entrySpan(lines, i, to)
			out = append(out, item{key: key, start: i, end: end})
			i = end
		}
	}
	return out
}

func tableName(t, open, close string) string {
	if k := strings.Index(t, "#"); k >= 0 {
		t = t[:k]
	}
	t = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(t, open)), close)
	parts := strings.Split(t, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// entrySpan finds where the entry starting on line i ends: the shortest run of lines that
// decodes as TOML. A line opening a multi-line string jumps to the line that closes it, so a
// long body costs a few decodes, not one per line.
func entrySpan(lines []string, i, limit int) (string, int) {
	for j := i + 1; j <= limit; {
		var m map[string]any
		if _, err := toml.Decode(strings.Join(lines[i:j], "\n"), &m); err == nil {
			if len(m) == 1 {
				for k := range m {
					return k, j
				}
			}
			return "", j
		}
		next := j + 1
		if j == i+1 {
			for _, delim := range []string{`"""`, `'''`} {
				if strings.Count(lines[i], delim)%2 == 1 {
					for k := i + 1; k < limit; k++ {
						if strings.Contains(lines[k], delim) {
							next = k + 1
							break
						}
					}
					break
				}
			}
		}
		j = next
	}
	return "", i + 1
}

// decodeEntry decodes the value of one entry.
func decodeEntry(lines []string, it item) any {
	var m map[string]any
	if _, err := toml.Decode(strings.Join(lines[it.start:it.end], "\n"), &m); err != nil {
		return nil
	}
	return m[it.key]
}

// edit is a replacement of lines [start, end) (an insertion when start == end).
type edit struct {
	start, end int
	lines      []string
}

// applyEdits applies non-overlapping edits; insertions at one position keep their order.
func applyEdits(lines []string, edits []edit) []string {
	slices.SortStableFunc(edits, func(a, b edit) int { return a.start - b.start })
	out := make([]string, 0, len(lines))
	at := 0
	for _, e := range edits {
		out = append(out, lines[at:e.start]...)
		out = append(out, e.lines...)
		at = max(at, e.end)
	}
	return append(out, lines[at:]...)
}

// nodeEdit is what an operation changes in one node's TOML: scalar fields (nil value: remove
// the key) and whole relation lists (empty: remove the relation).
type nodeEdit struct {
	set       map[string]*string // key -> encoded TOML value
	order     []string           // keys of set in the order to insert them
	relations map[string][]string
}

// editRegion applies e to the node whose TOML occupies lines[from:to]; relTable is the name
// of its relations table ("relations" in front matter, "node.relations" in a record).
func editRegion(lines []string, from, to int, relTable string, e nodeEdit) []string {
	r := splitRegion(scanItems(lines, from, to), relTable)
	edits := r.scalarEdits(e, from)
	if len(e.relations) > 0 {
		names := slices.Sorted(maps.Keys(e.relations))
		if r.relHeader < 0 {
			edits = append(edits, r.relationTable(lines, from, to, relTable, e, names)...)
		} else {
			edits = append(edits, r.relationEdits(e, names)...)
		}
	}
	return applyEdits(lines, edits)
}

// region is one node's TOML split into its scalar items and its relations table's items.
type region struct {
	scalars, rels []item
	relHeader     int // the relations table's header line; -1 when there is none
}

// splitRegion sorts a node's items into scalars (before any table), the relations table's
// entries, and the rest, which no edit touches.
func splitRegion(items []item, relTable string) region {
	r := region{relHeader: -1}
	section := 0 // 0 scalars, 1 relations, 2 anything else
	for _, it := range items {
		switch {
		case it.header == relTable:
			section, r.relHeader = 1, it.start
		case it.header != "":
			section = 2
		case section == 0:
			r.scalars = append(r.scalars, it)
		case section == 1:
			r.rels = append(r.rels, it)
		}
	}
	return r
}

// scalarEdits sets, replaces or removes each scalar key in place; a new key goes after the
// last scalar.
func (r region) scalarEdits(e nodeEdit, from int) []edit {
	var edits []edit
	scalarEnd := from
	if len(r.scalars) > 0 {
		scalarEnd = r.scalars[len(r.scalars)-1].end
	}
	for _, key := range e.order {
		v := e.set[key]
		i := slices.IndexFunc(r.scalars, func(it item) bool { return it.key == key })
		switch {
		case i >= 0 && v == nil:
			edits = append(edits, edit{r.scalars[i].start, r.scalars[i].end, nil})
		case i >= 0:
			edits = append(edits, edit{r.scalars[i].start, r.scalars[i].end, []string{key + " = " + *v}})
		case v != nil:
			edits = append(edits, edit{scalarEnd, scalarEnd, []string{key + " = " + *v}})
		}
	}
	return edits
}

// relationTable writes the relations as one new table after the node's last content line,
// when the node has none: relations given inline or as dotted keys move into it; nothing
// else moves.
func (r region) relationTable(lines []string, from, to int, relTable string, e nodeEdit, names []string) []edit {
	var edits []edit
	var current map[string][]string
	for _, it := range r.scalars {
		if it.key == "relations" {
			current = mergeRelations(current, decodeEntry(lines, it))
			edits = append(edits, edit{it.start, it.end, nil})
		}
	}
	for _, name := range names {
		if current == nil {
			current = map[string][]string{}
		}
		current[name] = e.relations[name]
	}
	block := []string{"[" + relTable + "]"}
	for _, name := range sortedKeys(current) {
		if len(current[name]) > 0 {
			block = append(block, name+" = "+tomlArray(current[name]))
		}
	}
	if len(block) > 1 {
		end := lastContent(lines, from, to)
		edits = append(edits, edit{end, end, block})
	}
	return edits
}

// relationEdits sets, replaces or removes each relation list in the node's relations table.
func (r region) relationEdits(e nodeEdit, names []string) []edit {
	var edits []edit
	relEnd := r.relHeader + 1
	if len(r.rels) > 0 {
		relEnd = r.rels[len(r.rels)-1].end
	}
	for _, name := range names {
		list := e.relations[name]
		i := slices.IndexFunc(r.rels, func(it item) bool { return it.key == name })
		switch {
		case i >= 0 && len(list) == 0:
			edits = append(edits, edit{r.rels[i].start, r.rels[i].end, nil})
		case i >= 0:
			edits = append(edits, edit{r.rels[i].start, r.rels[i].end, []string{name + " = " + tomlArray(list)}})
		case len(list) > 0:
			edits = append(edits, edit{relEnd, relEnd, []string{name + " = " + tomlArray(list)}})
		}
	}
	return edits
}

// lastContent is the line after the last non-blank, non-comment line of lines[from:to].
func lastContent(lines []string, from, to int) int {
	for i := to; i > from; i-- {
		t := strings.TrimSpace(lines[i-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			return i
		}
	}
	return from
}

func mergeRelations(into map[string][]string, v any) map[string][]string {
	m, ok := v.(map[string]any)
	if !ok {
		return into
	}
	if into == nil {
		into = map[string][]string{}
	}
	for r, list := range m {
		if arr, ok := list.([]any); ok {
			for _, t := range arr {
				if s, ok := t.(string); ok {
					into[r] = append(into[r], s)
				}
			}
		}
	}
	return into
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// tomlString encodes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	tomlEscape(&b, s, false)
	b.WriteByte('"')
	return b.String()
}

// tomlText encodes a body: a multi-line basic string when it has line breaks, so the stored
// record stays readable. The newline after the opening quotes is trimmed by TOML.
func tomlText(s string) string {
	if !strings.Contains(s, "\n") {
		return tomlString(s)
	}
	var b strings.Builder
	b.WriteString("\"\"\"\n")
	tomlEscape(&b, s, true)
	b.WriteString(`"""`)
	return b.String()
}

// tomlEscape writes s escaped for a basic string; a multi-line one keeps newlines and tabs.
func tomlEscape(b *strings.Builder, s string, multiline bool) {
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\r':
			b.WriteString(`\r`)
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
}

// tomlArray encodes a string array on one line.
func tomlArray(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
