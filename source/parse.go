package source

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/tomlpos"
	"github.com/docforge/docforge/source/project"
)

// Parse turns one source file's bytes into a fragment. It never fails: every defect becomes a
// positioned problem in the fragment, and a file too broken to yield nodes yields none.
func Parse(d *project.Descriptor, rel string, format Format, data []byte) *graph.Fragment {
	frag := &graph.Fragment{Path: rel}
	if int64(len(data)) > d.Limits.MaxFileBytes {
		frag.Problems = append(frag.Problems, problem.Warn(problem.FileTooLarge, problem.Location{Path: rel},
			"file is %d bytes; the limit is %d ([limits].max_file_bytes): it is left out of the index", len(data), d.Limits.MaxFileBytes))
		return frag
	}
	if line, col, ok := firstInvalidUTF8(data); !ok {
		frag.Problems = append(frag.Problems, problem.New(problem.NotUTF8, problem.Location{Path: rel, Line: line, Column: col},
			"file is not valid UTF-8"))
		return frag
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	switch format {
	case Markdown:
		parseMarkdown(d, rel, string(data), frag)
	case Records:
		parseRecords(d, rel, string(data), frag)
	}
	return frag
}

// Front matter fences: TOML between +++ lines, YAML between --- lines.
const (
	tomlFence = "+++"
	yamlFence = "---"
)

func parseMarkdown(d *project.Descriptor, rel, text string, frag *graph.Fragment) {
	df := d.Sources.Defaults
	first, rest, _ := strings.Cut(text, "\n")
	fence := strings.TrimRight(first, " \t\r")
	var f nodeFields
	b := &nodeBuilder{d: d, rel: rel, start: tomlpos.Pos{Line: 1, Column: 1}, lenient: df.IgnoresForeignFields()}
	bodyLine := 1
	switch {
	case fence == tomlFence || fence == yamlFence:
		fmText, after, next, ok := frontMatter(rest, fence)
		if !ok {
			frag.Problems = append(frag.Problems, problem.New(problem.MalformedFrontMatter, problem.Location{Path: rel, Line: 1, Column: 1},
				"front matter opened on line 1 is never closed by a %s line", fence))
			return
		}
		if !decodeFrontMatter(b, fence, fmText, &f, frag) {
			return
		}
		rest, bodyLine = after, next
	case df.DerivesIDs():
		// No front matter: every field comes from the defaults and the file itself.
		b.pos = noPositions{}
		rest = text
	default:
		frag.Problems = append(frag.Problems, problem.New(problem.MissingFrontMatter, problem.Location{Path: rel, Line: 1, Column: 1},
			"Markdown file does not start with a front matter line: +++ (TOML) or --- (YAML)"))
		return
	}
	applyDefaults(d, rel, &f)
	n, edges, ok := b.build(&f)
	frag.Problems = append(frag.Problems, b.problems...)
	if !ok {
		return
	}
	n.Line = 1
	fallback := n.ID
	if df.DerivesIDs() {
		fallback = fileTitle(rel)
	}
	if strings.HasSuffix(rel, ".mdx") {
		rest = mdxText(rest)
	}
	edges, links := finish(&n, edges, rest, bodyLine, d, rel, fallback)
	if len(n.Headings) > 0 {
		n.Anchor = n.Headings[0].Anchor
	}
	frag.Nodes = append(frag.Nodes, n)
	frag.Edges = append(frag.Edges, edges...)
	frag.Links = append(frag.Links, links...)
}

// frontMatter splits the text after an opening fence line into the front matter and the
// body, returning the body's first file line. ok is false when no closing fence follows.
func frontMatter(rest, fence string) (fm, body string, bodyLine int, ok bool) {
	var b strings.Builder
	lineNo := 2 // front matter lines start at file line 2
	for {
		line, after, found := strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t\r") == fence {
			return b.String(), after, lineNo + 1, true
		}
		if !found {
			return "", "", 0, false
		}
		b.WriteString(line)
		b.WriteByte('\n')
		lineNo++
		rest = after
	}
}

// decodeFrontMatter decodes TOML or YAML front matter into f, recording key positions in b.
// It returns false, with the problem in frag, when the front matter cannot be read at all.
func decodeFrontMatter(b *nodeBuilder, fence, text string, f *nodeFields, frag *graph.Fragment) bool {
	rel := b.rel
	if fence == yamlFence {
		pos, probs := decodeYAMLFrontMatter(rel, text, 2, f, b.lenient)
		if pos == nil {
			frag.Problems = append(frag.Problems, probs...)
			return false
		}
		b.pos, b.problems = pos, probs
		return true
	}
	if pos, ok := decodeSimpleFrontMatter(text, 2, f); ok {
		b.pos = pos // no unknown field and no body: the fast form knows only the fields
		return true
	}
	pos := tomlpos.Scan(text, 2)
	md, err := toml.NewDecoder(strings.NewReader(text)).Decode(f)
	if err != nil {
		frag.Problems = append(frag.Problems, tomlProblem(problem.MalformedFrontMatter, rel, err, pos, 1))
		return false
	}
	b.pos = pos
	if !b.lenient {
		for _, k := range md.Undecoded() {
			p, _ := pos.Key(k.String())
			b.add(unknownField(rel, p, k.String()))
		}
	}
	if md.IsDefined("body") {
		p, _ := pos.Key("body")
		b.add(problem.New(problem.UnknownField, problem.Location{Path: rel, Line: p.Line, Column: p.Column},
			"front matter may not set body; the body is the Markdown after the closing +++"))
	}
	return true
}

// noPositions locates nothing: a file without front matter has no keys.
type noPositions struct{}

func (noPositions) Key(string) (tomlpos.Pos, bool)        { return tomlpos.Pos{}, false }
func (noPositions) Value(string, int) (tomlpos.Pos, bool) { return tomlpos.Pos{}, false }

type recordFile struct {
	Node []nodeFields `toml:"node"`
}

// recordsTable finds a [[node]] table header, which makes a TOML file a record file.
var recordsTable = regexp.MustCompile(`(?m)^[ \t]*\[\[[ \t]*node[ \t]*\]\]`)

func parseRecords(d *project.Descriptor, rel, text string, frag *graph.Fragment) {
	var rf recordFile
	pos := tomlpos.Scan(text, 1)
	md, err := toml.NewDecoder(strings.NewReader(text)).Decode(&rf)
	if !recordsTable.MatchString(text) && (err != nil || !md.IsDefined("node")) {
		// Another tool's TOML (a linter's settings, a site's config) under a content root: it
		// holds no [[node]] table, so it is skipped, and said so once, not read as a record file.
		frag.Problems = append(frag.Problems, problem.Warn(problem.NoRecords, problem.Location{Path: rel, Line: 1, Column: 1},
			"TOML file has no [[node]] tables, so it contributes no nodes"))
		return
	}
	if err != nil {
		frag.Problems = append(frag.Problems, tomlProblem(problem.MalformedTOML, rel, err, pos, 0))
		return
	}
	for _, k := range md.Undecoded() {
		ks := k.String()
		rest, inNode := strings.CutPrefix(ks, "node.")
		if !inNode {
			p, _ := pos.Key(ks)
			frag.Problems = append(frag.Problems, problem.New(problem.UnknownField, problem.Location{Path: rel, Line: p.Line, Column: p.Column},
				"unknown top-level key %q; a record file holds only [[node]] tables", ks))
			continue
		}
		// Undecoded keys do not say which [[node]] they are in: report every record having one.
		for i := range rf.Node {
			if p, ok := pos.Key("node." + strconv.Itoa(i) + "." + rest); ok && p != mustKey(pos, "node."+strconv.Itoa(i)) {
				frag.Problems = append(frag.Problems, unknownField(rel, p, rest))
			}
		}
	}
	if len(rf.Node) == 0 {
		frag.Problems = append(frag.Problems, problem.Warn(problem.NoRecords, problem.Location{Path: rel, Line: 1, Column: 1},
			"TOML file has no [[node]] tables, so it contributes no nodes"))
		return
	}
	for i := range rf.Node {
		prefix := "node." + strconv.Itoa(i)
		b := &nodeBuilder{d: d, rel: rel, pos: pos, keyPrefix: prefix, start: mustKey(pos, prefix)}
		n, edges, ok := b.build(&rf.Node[i])
		frag.Problems = append(frag.Problems, b.problems...)
		if !ok {
			continue
		}
		head := mustKey(pos, prefix)
		n.Line = head.Line
		n.Anchor = "L" + strconv.Itoa(head.Line)
		bodyLine := head.Line
		if p, ok := pos.Key(prefix + ".body"); ok && p != head {
			bodyLine = p.Line
			if strings.HasPrefix(rf.Node[i].Body, "\n") || bodyStartsNextLine(text, p.Line) {
				bodyLine++
			}
		}
		edges, links := finish(&n, edges, rf.Node[i].Body, bodyLine, d, rel, n.ID)
		frag.Nodes = append(frag.Nodes, n)
		frag.Edges = append(frag.Edges, edges...)
		frag.Links = append(frag.Links, links...)
	}
}

// bodyStartsNextLine reports whether a multi-line string opened on line l begins on the next
// line (TOML trims the newline right after an opening """).
func bodyStartsNextLine(text string, l int) bool {
	lines := strings.SplitN(text, "\n", l+1)
	if l-1 >= len(lines) {
		return false
	}
	line := strings.TrimSpace(lines[l-1])
	return strings.HasSuffix(line, `"""`) || strings.HasSuffix(line, `'''`)
}

func mustKey(pos *tomlpos.Index, key string) tomlpos.Pos {
	p, _ := pos.Key(key)
	return p
}

// lastKey matches the key the TOML decoder names in a type-mismatch error.
var lastKey = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): `)

// tomlProblem converts a decoder error into a positioned problem. pos indexes the decoded text
// in file lines; lineOffset shifts syntax-error positions of front matter (which starts after
// the opening +++ line) to file lines.
func tomlProblem(c problem.Code, rel string, err error, pos *tomlpos.Index, lineOffset int) problem.Problem {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Usage != "" {
			msg += " (" + strings.TrimSpace(strings.SplitN(pe.Usage, "\n", 2)[0]) + ")"
		}
		return problem.New(c, problem.Location{Path: rel, Line: pe.Position.Line + lineOffset, Column: pe.Position.Col}, "%s", msg)
	}
	// A type mismatch: the decoder names the key; find it in the text.
	msg := err.Error()
	if m := lastKey.FindStringSubmatch(msg); m != nil {
		line := 0
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
			line += lineOffset
		}
		p := mismatchPos(pos, m[2], line)
		return problem.New(problem.InvalidField, problem.Location{Path: rel, Line: p.Line, Column: p.Column},
			"field %q: %s", m[2], strings.TrimPrefix(msg, m[0]))
	}
	return problem.New(c, problem.Location{Path: rel, Line: 1 + lineOffset, Column: 1}, "%s", msg)
}

// mismatchPos finds the value a type-mismatch error is about. The decoder names the key
// without the index of its [[node]] table ("node.title"), so for record files the table is
// the one whose key sits on the line the decoder reports.
func mismatchPos(pos *tomlpos.Index, key string, line int) tomlpos.Pos {
	at := func(path string) (tomlpos.Pos, bool) {
		if p, ok := pos.Value(path, 0); ok {
			return p, true
		}
		return pos.Key(path)
	}
	if rest, ok := strings.CutPrefix(key, "node."); ok {
		for i := 0; ; i++ {
			table := "node." + strconv.Itoa(i)
			if _, ok := pos.Key(table); !ok {
				break
			}
			if p, ok := at(table + "." + rest); ok && (line == 0 || p.Line == line) {
				return p
			}
		}
	}
	if p, ok := at(key); ok && (line == 0 || p.Line == line) {
		return p
	}
	return tomlpos.Pos{Line: line, Column: 1}
}

// firstInvalidUTF8 returns the 1-based position of the first invalid byte, or ok.
func firstInvalidUTF8(data []byte) (line, col int, ok bool) {
	if utf8.Valid(data) {
		return 0, 0, true
	}
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col, false
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return line, col, false
}
