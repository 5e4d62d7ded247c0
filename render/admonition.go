package render

import (
	"regexp"
	"strings"
)

// Admonitions of MkDocs (!!! note "Title", its body indented by four spaces; ??? for a
// collapsible one) and Docusaurus (:::note[Title] ... :::) are written as GitHub alerts
// ("> [!NOTE] Title" and the body quoted), which calloutShape then renders as callouts: a
// page shows what the site shows, not the markers as text.
var (
	mkdocsAdmonition     = regexp.MustCompile(`^(?:!!!|\?\?\?\+?)[ \t]+([A-Za-z][\w-]*)(?:[ \t]+"([^"]*)")?[ \t]*$`)
	docusaurusAdmonition = regexp.MustCompile(`^:::[ \t]*([A-Za-z][\w-]*)(?:\[([^\]]*)\]|[ \t]+(.+?))?[ \t]*$`)
)

// admonitions rewrites the admonitions of body as GitHub alerts, leaving fenced code alone.
func admonitions(body string) string {
	if !strings.Contains(body, "!!!") && !strings.Contains(body, "???") && !strings.Contains(body, ":::") {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	var out strings.Builder
	fence := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		if f := fenceMarker(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case f == fence:
				fence = ""
			}
		}
		bare := strings.TrimRight(line, "\r\n")
		if fence != "" {
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
		if m := docusaurusAdmonition.FindStringSubmatch(bare); m != nil && closes(lines[i+1:]) {
			title := m[2]
			if title == "" {
				title = m[3]
			}
			alertLine(&out, m[1], title)
			for i+1 < len(lines) {
				i++
				next := strings.TrimRight(lines[i], "\r\n")
				if strings.TrimSpace(next) == ":::" {
					break
				}
				out.WriteString("> " + next + "\n")
			}
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
func indented(line string) bool { return strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") }

// closes reports whether a ::: line follows: an opening without its close is text.
func closes(rest []string) bool {
	for _, l := range rest {
		if strings.TrimSpace(l) == ":::" {
			return true
		}
	}
	return false
}
