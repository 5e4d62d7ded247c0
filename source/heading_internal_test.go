package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/docforge/docforge/base/graph"
)

// headingDocs are bodies whose headings the scanner must find as CommonMark does: setext
// headings among the shapes that look like them and are not.
var headingDocs = []struct {
	name, body string
	want       []graph.Heading
}{
	{"setext both levels", "Title\n=====\n\nIntro.\n\nPart\n----\n\n## Next\n",
		[]graph.Heading{{Level: 1, Text: "Title", Line: 1}, {Level: 2, Text: "Part", Line: 6}, {Level: 2, Text: "Next", Line: 9}}},
	{"a paragraph of two lines", "First line\nsecond line\n===\n",
		[]graph.Heading{{Level: 1, Text: "First line second line", Line: 1}}},
	{"thematic break after a blank", "Text\n\n---\n", nil},
	{"a list item then a break", "- item\n---\n", nil},
	{"a lazy list line then a break", "- item\nlazy\n---\n", nil},
	{"a quote then a break", "> quoted\n---\n", nil},
	{"in a fence", "```\nTitle\n=====\n```\n", nil},
	{"a table's delimiter row", "| a | b |\n|---|---|\n| 1 | 2 |\n", nil},
	{"underline indented three spaces", "Title\n   ===\n", []graph.Heading{{Level: 1, Text: "Title", Line: 1}}},
	{"stars are a break", "Text\n***\n", nil},
	{"after a fence", "```\ncode\n```\nTitle\n-----\n", []graph.Heading{{Level: 2, Text: "Title", Line: 4}}},
	{"after an ATX heading", "# Top\nUnder\n=====\n", []graph.Heading{{Level: 1, Text: "Top", Line: 1}, {Level: 1, Text: "Under", Line: 2}}},
}

func TestSetextHeadings(t *testing.T) {
	for _, tc := range headingDocs {
		t.Run(tc.name, func(t *testing.T) {
			got := scanBody(tc.body, 1, false).headings
			if len(got) != len(tc.want) {
				t.Fatalf("headings %+v, want %+v", got, tc.want)
			}
			for i, h := range got {
				w := tc.want[i]
				if h.Level != w.Level || h.Text != w.Text || h.Line != w.Line {
					t.Errorf("heading %d: %+v, want %+v", i, h, w)
				}
			}
		})
	}
}

// The scanner's headings are goldmark's (GitHub-flavoured, as render uses it): level and
// text, in order, for the bodies above and every Markdown page of this repository's docs and
// examples.
func TestHeadingsAgreeWithGoldmark(t *testing.T) {
	bodies := map[string]string{}
	for _, tc := range headingDocs {
		bodies[tc.name] = tc.body
	}
	for _, pattern := range []string{"../docs/*.md", "../examples/*/*/*.md", "../examples/testdata/*/*/*.md", "../examples/testdata/*/*/*/*.md"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			bodies[p] = stripFrontMatter(string(data))
		}
	}
	if len(bodies) < 30 {
		t.Fatalf("only %d bodies to compare", len(bodies))
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for name, body := range bodies {
		src := []byte(body)
		var want []graph.Heading
		ast.Walk(md.Parser().Parse(text.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if h, ok := n.(*ast.Heading); ok && entering && h.Parent().Kind() == ast.KindDocument {
				var parts []string
				for i := 0; i < h.Lines().Len(); i++ {
					seg := h.Lines().At(i)
					parts = append(parts, strings.TrimSpace(string(seg.Value(src))))
				}
				want = append(want, graph.Heading{Level: h.Level, Text: strings.Join(parts, " ")})
			}
			return ast.WalkContinue, nil
		})
		var got []graph.Heading
		for _, h := range scanBody(body, 1, false).headings {
			got = append(got, graph.Heading{Level: h.Level, Text: h.Text})
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d headings, goldmark %d:\n got  %v\n want %v", name, len(got), len(want), got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: heading %d %+v, goldmark %+v", name, i, got[i], want[i])
			}
		}
	}
}

// stripFrontMatter drops a leading +++ or --- block.
func stripFrontMatter(s string) string {
	for _, delim := range []string{"+++\n", "---\n"} {
		if rest, ok := strings.CutPrefix(s, delim); ok {
			if i := strings.Index(rest, "\n"+delim); i >= 0 {
				return rest[i+len(delim)+1:]
			}
		}
	}
	return s
}
