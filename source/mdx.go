package source

import (
	"regexp"
	"strings"

	"github.com/docforge/docforge/base/shortcode"
)

// An .mdx page is Markdown with ES module lines (import, export) and JSX elements between its
// paragraphs. They are the page's code, not its text: mdxText blanks them (a line's
// characters become spaces, so every position in the page stays where it was) and keeps the
// Markdown, links among it, that the elements wrap. Fenced code is left alone.
var (
	esmLine = regexp.MustCompile(`^(?:import|export)\s`)
	// jsxTag is a component's opening, closing or self-closing tag: a capitalised name (HTML
	// tags, lower-case, are Markdown's raw HTML), or a fragment (<> and </>). Attributes
	// with a > inside braces are beyond it; such a tag stays text.
	jsxTag = regexp.MustCompile(`</?(?:[A-Z][\w.]*(?:\s+[^<>]*?)?\s*/?)?>`)
)

// mdxText is an .mdx body with its module lines blanked and its component tags dropped.
func mdxText(body string) string {
	var b strings.Builder
	b.Grow(len(body))
	var fence shortcode.Fence
	esm := false
	for _, line := range strings.SplitAfter(body, "\n") {
		if fence.Line(line) {
			b.WriteString(line)
			continue
		}
		content := strings.TrimRight(line, "\r\n")
		switch {
		case esmLine.MatchString(content):
			// An import or export may span lines up to its closing brace or semicolon.
			esm = !strings.HasSuffix(strings.TrimSpace(content), ";") && strings.Contains(content, "{") && !strings.Contains(content, "}")
			b.WriteString(blank(line))
			continue
		case esm:
			esm = !strings.Contains(content, "}")
			b.WriteString(blank(line))
			continue
		}
		// A tag goes whole, not as spaces: text after a tag at the start of a line would
		// otherwise be indented into a code block.
		b.WriteString(jsxTag.ReplaceAllString(line, ""))
	}
	return b.String()
}

// blank is line with every character but its end of line a space.
func blank(line string) string {
	end := len(strings.TrimRight(line, "\r\n"))
	return strings.Repeat(" ", end) + line[end:]
}
