package source

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/tomlpos"
)

// positions locates keys and their string values in a node's source text: dotted key paths
// ("relations.depends_on") and 0-based indexes into list values. TOML front matter and
// records use tomlpos's scan; YAML front matter uses the parser's own node positions.
type positions interface {
	Key(path string) (tomlpos.Pos, bool)
	Value(path string, i int) (tomlpos.Pos, bool)
}

// yamlPositions indexes a decoded YAML mapping.
type yamlPositions struct {
	keys   map[string]tomlpos.Pos
	values map[string][]tomlpos.Pos
}

func (y *yamlPositions) Key(path string) (tomlpos.Pos, bool) {
	p, ok := y.keys[path]
	return p, ok
}

func (y *yamlPositions) Value(path string, i int) (tomlpos.Pos, bool) {
	vs := y.values[path]
	if i < 0 || i >= len(vs) {
		return tomlpos.Pos{}, false
	}
	return vs[i], true
}

// index records the positions under mapping m, whose keys sit at prefix; lineOffset turns the
// front matter's line numbers into the file's.
func (y *yamlPositions) index(m *yaml.Node, prefix string, lineOffset int) {
	at := func(n *yaml.Node) tomlpos.Pos { return tomlpos.Pos{Line: n.Line + lineOffset, Column: n.Column} }
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		y.keys[path] = at(k)
		switch v.Kind {
		case yaml.MappingNode:
			y.index(v, path, lineOffset)
		case yaml.SequenceNode:
			for _, e := range v.Content {
				y.values[path] = append(y.values[path], at(e))
			}
		default:
			y.values[path] = []tomlpos.Pos{at(v)}
		}
	}
}

// knownNodeKeys are the front-matter keys of a node, as the unknown_field message lists them.
var knownNodeKeys = map[string]bool{"id": true, "kind": true, "family": true, "title": true, "status": true,
	"authority": true, "tags": true, "language": true, "capabilities": true, "relations": true, "stamps": true,
	"slug": true} // a slug is judged with the descriptor, in nodeBuilder.build

// yamlLine finds the line numbers in the YAML library's error messages ("yaml: line 3: ...",
// or "line 4: cannot unmarshal ..." in a list of type errors).
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// decodeYAMLFrontMatter decodes YAML front matter that starts on file line firstLine into f,
// returning its positions, or the problems that stop it from being read.
// With lenient, keys that are not node fields are skipped and a field of the wrong type is
// left out with a warning: front matter written for another tool.
func decodeYAMLFrontMatter(rel, text string, firstLine int, f *nodeFields, lenient bool) (*yamlPositions, []problem.Problem) {
	offset := firstLine - 1
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, []problem.Problem{yamlProblem(problem.MalformedFrontMatter, rel, text, err, offset, firstLine)}
	}
	pos := &yamlPositions{keys: map[string]tomlpos.Pos{}, values: map[string][]tomlpos.Pos{}}
	if len(doc.Content) == 0 {
		return pos, nil // empty front matter: a node with no fields
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, []problem.Problem{problem.New(problem.MalformedFrontMatter, problem.Location{Path: rel, Line: m.Line + offset, Column: m.Column},
			"YAML front matter must be a mapping of fields (key: value lines)")}
	}
	pos.index(m, "", offset)
	var probs []problem.Problem
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		switch {
		case k.Value == "body":
			probs = append(probs, problem.New(problem.UnknownField, problem.Location{Path: rel, Line: k.Line + offset, Column: k.Column},
				"front matter may not set body; the body is the Markdown after the closing ---"))
		case !knownNodeKeys[k.Value] && !lenient:
			probs = append(probs, unknownField(rel, tomlpos.Pos{Line: k.Line + offset, Column: k.Column}, k.Value))
		}
	}
	if err := m.Decode(f); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, append(probs, yamlProblem(problem.MalformedFrontMatter, rel, text, err, offset, firstLine))
		}
		for _, msg := range te.Errors {
			p := yamlProblem(problem.InvalidField, rel, text, errors.New(msg), offset, firstLine)
			if lenient {
				p.Severity = problem.SeverityWarning
				p.Message += "; the field is left out"
			}
			probs = append(probs, p)
		}
	}
	return pos, probs
}

// yamlProblem positions one error of the YAML library at the file line it names.
func yamlProblem(c problem.Code, rel, text string, err error, offset, firstLine int) problem.Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := firstLine
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		// For a flow collection left open ("did not find expected ',' or ']'") the library's
		// line is neither the opening nor the end reliably; the line that opened the
		// collection is what a person must fix.
		if open := unclosedFlowLine(text); strings.HasPrefix(m[2], "did not find expected") && open > 0 {
			n = open
		}
		line, msg = n+offset, m[2]
	}
	return problem.New(c, problem.Location{Path: rel, Line: line, Column: 1}, "YAML front matter: %s", msg)
}

// unclosedFlowLine returns the 1-based line of text on which a [ or { opened that is still
// open at the end, or 0. Quoted text is skipped.
func unclosedFlowLine(text string) int {
	depth, opened := 0, 0
	for i, line := range strings.Split(text, "\n") {
		var quote rune
	chars:
		for _, r := range line {
			switch {
			case quote != 0:
				if r == quote {
					quote = 0
				}
			case r == '"' || r == '\'':
				quote = r
			case r == '#':
				break chars // a comment runs to the end of the line
			case r == '[' || r == '{':
				if depth == 0 {
					opened = i + 1
				}
				depth++
			case (r == ']' || r == '}') && depth > 0:
				depth--
			}
		}
	}
	if depth == 0 {
		return 0
	}
	return opened
}
