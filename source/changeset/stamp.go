package changeset

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
)

// Review stamps are written by people (docforge review, docforge stamp) and by applied
// relationship_update proposals that confirm relations. Either way the edit is the same: the
// node's stamps table is rewritten whole and nothing else in the file moves; the result is
// parsed again and refused unless only the stamps changed.

// The stamps table of a node, in TOML front matter and in a record.
const (
	frontStamps  = "stamps"
	recordStamps = "node.stamps"
)

// setStamps returns text, the content of file rel, with node id's stamps replaced by stamps
// (none: the table goes away). A Markdown file without front matter gets a YAML block, the
// form other documentation tools read too.
func setStamps(rel, text, id string, stamps []graph.Stamp) (string, error) {
	if path.Ext(rel) != ".md" {
		lines := strings.Split(text, "\n")
		start, end, ok := recordBlock(lines, id)
		if !ok {
			return "", opError(problem.NodeNotFound, "no [[node]] with id %q in %s", id, rel)
		}
		block := stampRegion(lines[start:end], 1, end-start, recordStamps, stamps)
		return strings.Join(slices.Concat(lines[:start], block, lines[end:]), "\n"), nil
	}
	first, _, _ := strings.Cut(text, "\n")
	switch strings.TrimRight(first, " \t\r") {
	case "+++":
		m, ok := splitMD(text)
		if !ok {
			return "", opError(problem.MalformedFrontMatter, "%s: the front matter opened on line 1 is never closed", rel)
		}
		fm := m.frontMatter()
		m.setFrontMatter(stampRegion(fm, 0, len(fm), frontStamps, stamps))
		return m.join(), nil
	case "---":
		return yamlStamps(rel, text, stamps)
	}
	if len(stamps) == 0 {
		return text, nil
	}
	head := append([]string{"---"}, yamlStampLines(stamps)...)
	return strings.Join(append(head, "---"), "\n") + "\n" + text, nil
}

// stampRegion rewrites the stamps of the TOML in lines[from:to]: a [table] is replaced where
// it stands; stamps given inline or as dotted keys are removed and the table is appended.
func stampRegion(lines []string, from, to int, table string, stamps []graph.Stamp) []string {
	block := stampTableLines(table, stamps)
	items := scanItems(lines, from, to)
	var edits []edit
	placed, scalars := false, true
	for i, it := range items {
		if it.header != "" {
			scalars = false
		}
		switch {
		case it.header == table && !it.array:
			next := to
			for _, later := range items[i+1:] {
				if later.header != "" {
					next = later.start
					break
				}
			}
			edits = append(edits, edit{it.start, lastContent(lines, it.start+1, next), block})
			placed = true
		case scalars && it.key == "stamps":
			edits = append(edits, edit{it.start, it.end, nil})
		}
	}
	if !placed && len(block) > 0 {
		at := lastContent(lines, from, to)
		edits = append(edits, edit{at, at, block})
	}
	return applyEdits(lines, edits)
}

func stampTableLines(table string, stamps []graph.Stamp) []string {
	if len(stamps) == 0 {
		return nil
	}
	out := []string{"[" + table + "]"}
	for _, st := range sortedStamps(stamps) {
		out = append(out, tomlString(st.Target)+" = "+tomlString(st.Text()))
	}
	return out
}

// yamlStamps rewrites the top-level stamps mapping of YAML front matter, keeping every other
// line as it is.
func yamlStamps(rel, text string, stamps []graph.Stamp) (string, error) {
	lines := strings.Split(text, "\n")
	closing := -1
	for k := 1; k < len(lines); k++ {
		if strings.TrimRight(lines[k], " \t\r") == "---" {
			closing = k
			break
		}
	}
	if closing < 0 {
		return "", opError(problem.MalformedFrontMatter, "%s: the front matter opened on line 1 is never closed", rel)
	}
	// The block runs from its key line over every indented line (comments included); a
	// comment at column 0 belongs to what follows it.
	start, end := -1, -1
scan:
	for k := 1; k < closing; k++ {
		l := lines[k]
		switch {
		case start < 0:
			if yamlTopKey(l) == "stamps" {
				start, end = k, k+1
			}
		case strings.TrimSpace(l) == "" || l[0] == '#':
		case l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(l, "- "):
			end = k + 1
		default:
			break scan // the next top-level key
		}
	}
	var edits []edit
	block := yamlStampLines(stamps)
	switch {
	case start < 0 && len(block) > 0:
		edits = append(edits, edit{closing, closing, block})
	case start >= 0:
		edits = append(edits, edit{start, end, block})
	}
	return strings.Join(applyEdits(lines, edits), "\n"), nil
}

// yamlTopKey is the key a top-level YAML mapping line starts, or "".
func yamlTopKey(line string) string {
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
		return ""
	}
	k, _, ok := strings.Cut(line, ":")
	if !ok {
		return ""
	}
	return strings.Trim(strings.TrimSpace(k), `"'`)
}

// yamlStampLines encodes stamps as a block mapping of double-quoted strings (JSON strings
// are valid YAML double-quoted scalars).
func yamlStampLines(stamps []graph.Stamp) []string {
	if len(stamps) == 0 {
		return nil
	}
	quote := func(s string) string {
		b, _ := json.Marshal(s) // a string always encodes
		return string(b)
	}
	out := []string{"stamps:"}
	for _, st := range sortedStamps(stamps) {
		out = append(out, "  "+quote(st.Target)+": "+quote(st.Text()))
	}
	return out
}

func sortedStamps(stamps []graph.Stamp) []graph.Stamp {
	out := slices.Clone(stamps)
	slices.SortFunc(out, func(a, b graph.Stamp) int { return strings.Compare(a.Target, b.Target) })
	return out
}

// checkStampEdit parses a file before and after a stamp edit and refuses the edit unless it
// changed the stamps of nodes and nothing else: the same nodes with the same content hashes,
// the same relations, no new problems, and the stamps each node was meant to get.
// a is before's fragment when the caller has it parsed already; nil parses it.
func (s *Sources) checkStampEdit(rel, before, after string, a *graph.Fragment, want map[string][]graph.Stamp) error {
	format, ok := source.ContentFormat(s.d, rel)
	if !ok {
		return escape("%q is not a content file", rel)
	}
	if a == nil {
		a = source.Parse(s.d, rel, format, []byte(before))
	}
	b := source.Parse(s.d, rel, format, []byte(after))
	refuse := func(why string, args ...any) error {
		return problem.Errorf(problem.Internal, "the stamp edit of %s would "+why+", so nothing was written; edit the file's stamps by hand ('docforge help format', Review stamps)", append([]any{rel}, args...)...)
	}
	if len(a.Nodes) != len(b.Nodes) {
		return refuse("change its nodes")
	}
	for i := range a.Nodes {
		na, nb := &a.Nodes[i], &b.Nodes[i]
		if na.ID != nb.ID || na.ContentHash != nb.ContentHash {
			return refuse("change node %s", na.ID)
		}
		stamps := nb.Stamps
		if w, ok := want[na.ID]; ok && !sameStamps(stamps, w) {
			return refuse("not give %s the intended stamps", na.ID)
		}
		if _, ok := want[na.ID]; !ok && !sameStamps(stamps, na.Stamps) {
			return refuse("change the stamps of %s", na.ID)
		}
	}
	if !slices.Equal(plainEdges(a), plainEdges(b)) {
		return refuse("change its relations")
	}
	if len(problem.Errors(b.Problems)) > len(problem.Errors(a.Problems)) {
		return refuse("not parse cleanly: %s", problem.Errors(b.Problems)[0].Message)
	}
	return nil
}

func plainEdges(f *graph.Fragment) []graph.Edge {
	out := make([]graph.Edge, len(f.Edges))
	for i, e := range f.Edges {
		out[i] = e.Edge
	}
	slices.SortFunc(out, graph.Edge.Compare)
	return out
}

func sameStamps(a, b []graph.Stamp) bool {
	return slices.EqualFunc(sortedStamps(a), sortedStamps(b), func(x, y graph.Stamp) bool {
		return x.Target == y.Target && x.Text() == y.Text()
	})
}
