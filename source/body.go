package source

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/shortcode"
)

type wikiRef struct {
	target       string
	line, column int
}

type bodyScan struct {
	headings []graph.Heading
	refs     []wikiRef
	links    []linkDest
	mentions []linkDest // backticked names that may be Go declarations (dest is the name)
	paths    []linkDest // backticked project paths, `pkg/github/` (dest is the path)
}

// scanBody finds ATX headings and [[id]] references outside fenced code blocks and inline code
// spans, and with withLinks Markdown link destinations too. firstLine is the file line of the
// body's first line.
func scanBody(body string, firstLine int, withLinks bool) bodyScan {
	var out bodyScan
	slugs := map[string]int{}
	var fence shortcode.Fence
	rawBlock := "" // the shortcode whose raw input the line is in
	indented, inList, prevBlank := false, false, true
	closes := shortcode.Closings{}
	lineNo := firstLine
	whole := body
	for len(body) > 0 {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if strings.HasPrefix(trimmed, "\t") {
			indent += 4
		}
		blank := strings.TrimSpace(line) == ""
		if !fence.Open() && rawBlock == "" {
			// An indented code block: four spaces (or a tab) after a blank line, outside a
			// list (whose continuations are indented too), until a line indented less.
			switch {
			case blank:
			case indent >= 4 && (indented || prevBlank && !inList):
				indented = true
			default:
				indented = false
				if indent == 0 {
					inList = listItem.MatchString(trimmed)
				} else if listItem.MatchString(trimmed) {
					inList = true
				}
			}
			prevBlank = blank
			if indented {
				lineNo++
				continue
			}
		}
		if (indent < 4 || fence.Open()) && fence.Line(trimmed) {
			lineNo++
			continue
		}
		if rawBlock != "" {
			// Inside a {{< name >}} block: the shortcode's input (a code sample, a
			// configuration table), not Markdown, until its closing tag.
			if shortcode.ClosesRawBlock(trimmed, rawBlock) {
				rawBlock = ""
			}
			lineNo++
			continue
		}
		if name, ok := shortcode.OpensRawBlock(trimmed); ok && indent < 4 && closes.After(whole, len(whole)-len(body), name) {
			rawBlock = name
			lineNo++
			continue
		}
		if h, ok := atxHeading(trimmed); ok && indent < 4 {
			h.Line = lineNo
			h.Anchor = uniqueSlug(slugs, Slug(h.Text))
			out.headings = append(out.headings, h)
		}
		out.refs = appendRefs(out.refs, line, lineNo)
		if withLinks && strings.ContainsAny(line, "[{") {
			out.links = appendLinks(out.links, line, lineNo)
		}
		if withLinks && strings.IndexByte(line, '`') >= 0 {
			out.mentions, out.paths = appendMentions(out.mentions, out.paths, line, lineNo)
		}
		lineNo++
	}
	return out
}

// listItem matches the start of a list item: a bullet or an ordered number, then a space.
var listItem = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)`)

func atxHeading(s string) (graph.Heading, bool) {
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return graph.Heading{}, false
	}
	text := strings.TrimSpace(s[level:])
	// A closing sequence of #s is not part of the text.
	if t := strings.TrimRight(text, "#"); t != text && (t == "" || strings.HasSuffix(t, " ")) {
		text = strings.TrimSpace(t)
	}
	if text == "" {
		return graph.Heading{}, false
	}
	return graph.Heading{Level: level, Text: text}, true
}

// Slug turns heading text into an anchor the way GitHub does: lowercase, letters, digits,
// '-' and '_' kept, spaces become '-', everything else dropped.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func uniqueSlug(seen map[string]int, s string) string {
	n := seen[s]
	seen[s] = n + 1
	if n == 0 {
		return s
	}
	return s + "-" + strconv.Itoa(n)
}

// appendRefs finds [[target]] outside inline code spans on one line.
func appendRefs(refs []wikiRef, line string, lineNo int) []wikiRef {
	inCode := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '`':
			inCode = !inCode
		case !inCode && strings.HasPrefix(line[i:], "[["):
			end := strings.Index(line[i+2:], "]]")
			if end < 0 {
				return refs
			}
			target := strings.TrimSpace(line[i+2 : i+2+end])
			// [[id|label]] keeps the id part.
			if bar := strings.IndexByte(target, '|'); bar >= 0 {
				target = strings.TrimSpace(target[:bar])
			}
			if target != "" {
				refs = append(refs, wikiRef{target: target, line: lineNo, column: utf8.RuneCountInString(line[:i]) + 1})
			}
			i += 2 + end + 1
		}
	}
	return refs
}
