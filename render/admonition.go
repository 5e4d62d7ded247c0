package render

import (
	"regexp"
	"strings"

	"github.com/docforge/docforge/base/shortcode"
)

// Admonitions of MkDocs (!!! note "Title", its body indented by four spaces; ??? for a
// collapsible one) and Docusaurus (:::note[Title] ... :::) are written as GitHub alerts
// ("> [!NOTE] Title" and the body quoted), which calloutShape then renders as callouts: a
// page shows what the site shows, not the markers as text.
var (
	mkdocsAdmonition  = regexp.MustCompile(`^(?:!!!|\?\?\?\+?)[ \t]+([A-Za-z][\w-]*)(?:[ \t]+"([^"]*)")?[ \t]*$`)
	docusaurusOpening = regexp.MustCompile(`^:::[ \t]*([A-Za-z]+)(.*)$`)
)

// admonitions rewrites the admonitions of body as GitHub alerts, leaving fenced code alone.
func admonitions(body string) string {
	if !strings.Contains(body, "!!!") && !strings.Contains(body, "???") && !strings.Contains(body, ":::") {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	var out strings.Builder
	var fence shortcode.Fence
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		bare := strings.TrimRight(line, "\r\n")
		if fence.Line(line) {
			out.WriteString(line)
			continue
		}
		if m := mkdocsAdmonition.FindStringSubmatch(bare); m != nil {
			alertLine(&out, m[1], m[2])
			// The body: the lines indented by four spaces (or a tab), and blank lines
			// between them.
			for i+1 < len(lines) {
				next := strings.TrimRight(lines[i+1], "\r\n")
				if strings.TrimSpace(next) == "" {
					if j := i + 2; j < len(lines) && indented(lines[j]) {
						out.WriteString(">\n")
						i++
						continue
					}
					break
				}
				if !indented(next) {
					break
				}
				out.WriteString("> " + strings.TrimPrefix(strings.TrimPrefix(next, "    "), "\t") + "\n")
				i++
			}
			continue
		}
		// An admonition in a list item is indented as the item's text is; it is read
		// without that indentation and written back with it.
		trimmed := strings.TrimLeft(bare, " ")
		indent := bare[:len(bare)-len(trimmed)]
		if !strings.HasPrefix(trimmed, ":::") {
			out.WriteString(line)
			continue
		}
		if kind, title, body, n, ok := docusaurusBlock(lines[i:], len(indent)); ok {
			out.WriteString(indent)
			alertLine(&out, kind, title)
			for _, l := range body {
				out.WriteString(indent + "> " + l + "\n")
			}
			i += n - 1
			continue
		}
		out.WriteString(line)
	}
	return out.String()
}

// alertLine writes the GitHub alert marker of an admonition of kind, with its title.
func alertLine(out *strings.Builder, kind, title string) {
	out.WriteString("> [!" + strings.ToUpper(kind) + "]")
	if title = strings.TrimSpace(title); title != "" {
		out.WriteString(" " + title)
	}
	out.WriteString("\n")
}

// indented reports whether a line belongs to an MkDocs admonition's body.
func indented(line string) bool {
	return strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
}

// docusaurusKinds are the admonitions Docusaurus knows. A kind run into the text after it
// (":::tipTo understand", which pages do hold) is still that kind.
var docusaurusKinds = []string{"note", "tip", "info", "warning", "danger", "caution", "important", "success", "secondary"}

// docusaurusBlock reads the Docusaurus admonition lines opens, if it is one: its kind, its
// title ([Title] or the words after the kind, when a ::: line closes it), its body lines
// and how many lines it took. A closing ::: may end the last line of the body instead of
// standing alone; an opening that nothing closes is text.
func docusaurusBlock(lines []string, indent int) (kind, title string, body []string, n int, ok bool) {
	m := docusaurusOpening.FindStringSubmatch(dedent(strings.TrimRight(lines[0], "\r\n"), indent))
	if m == nil {
		return "", "", nil, 0, false
	}
	kind, rest := m[1], m[2]
	known := false
	for _, k := range docusaurusKinds {
		if strings.EqualFold(kind, k) {
			known = true
			break
		}
		if len(kind) > len(k) && strings.EqualFold(kind[:len(k)], k) {
			kind, rest, known = kind[:len(k)], kind[len(k):]+rest, true
			break
		}
	}
	if !known && (rest != "" || !closedAlone(lines[1:])) {
		return "", "", nil, 0, false
	}
	// The first line: [Title], a title before a ::: line of its own, or text of the body.
	inline := ""
	switch t := strings.TrimSpace(rest); {
	case strings.HasPrefix(t, "[") && strings.Contains(t, "]"):
		title = t[1:strings.Index(t, "]")]
		inline = strings.TrimSpace(t[strings.Index(t, "]")+1:])
	case strings.HasPrefix(rest, " ") && closedAlone(lines[1:]) && !strings.HasSuffix(t, ":::"):
		title = t
	default:
		inline = t
	}
	if strings.HasSuffix(inline, ":::") {
		return kind, title, nonEmpty(strings.TrimSpace(strings.TrimSuffix(inline, ":::"))), 1, true
	}
	body = nonEmpty(inline)
	for j := 1; j < len(lines); j++ {
		l := dedent(strings.TrimRight(lines[j], "\r\n"), indent)
		switch t := strings.TrimSpace(l); {
		case t == ":::":
			return kind, title, body, j + 1, true
		case strings.HasSuffix(t, ":::"):
			return kind, title, append(body, strings.TrimSuffix(strings.TrimRight(l, " \t"), ":::")), j + 1, true
		case t == "" && !closedAlone(lines[j:]):
			return "", "", nil, 0, false // a paragraph ended with nothing closing it
		}
		body = append(body, l)
	}
	return "", "", nil, 0, false
}

// dedent is line with up to n leading spaces taken off.
func dedent(line string, n int) string {
	k := 0
	for k < n && k < len(line) && line[k] == ' ' {
		k++
	}
	return line[k:]
}

// closedAlone reports whether the first line of lines that ends with ::: is that alone: the
// admonition's closing line of its own, not a closing at the end of its text.
func closedAlone(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasSuffix(t, ":::") {
			return t == ":::"
		}
	}
	return false
}

// nonEmpty is s as one line, or none when it is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
