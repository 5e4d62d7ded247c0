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

// scanBody finds ATX and setext headings and [[id]] references outside fenced code blocks and
// inline code spans, and with withLinks Markdown link destinations too. firstLine is the file
// line of the body's first line.
func scanBody(body string, firstLine int, withLinks bool) bodyScan {
	var out bodyScan
	slugs := map[string]int{}
	var para paragraph // the paragraph a setext underline would make a heading
	var fence shortcode.Fence
	rawBlock := "" // the shortcode whose raw input the line is in
	indented, inList, prevBlank := false, false, true
	closes := shortcode.Closings{}
	lineNo := firstLine
	whole := body
	for len(body) > 0 {
		line, at := body, len(whole)-len(body) // at: the line's start in whole
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
			para = paragraph{}
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
			para = paragraph{}
		} else if h, ok := para.setext(whole, trimmed, indent); ok {
			h.Anchor = uniqueSlug(slugs, Slug(h.Text))
			out.headings = append(out.headings, h)
			para = paragraph{}
		} else {
			para.add(trimmed, indent, blank, inList, lineNo, at+len(line)-len(trimmed), at+len(line))
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

// paragraph is the run of plain text lines a setext underline (=== or ---) turns into a
// heading of level 1 or 2, as CommonMark and goldmark read it: lines at the top level, not in
// a list, quote, table or HTML block.
type paragraph struct {
	first int // the file line of its first line; 0 when there is none
	// start and end are its text's bytes in the body, from its first line's first
	// non-space to its last line's end: read only when an underline makes it a heading.
	start, end int
	// other is set while a block that takes lazy continuation lines (a list item, a quote,
	// an HTML block, a table) runs: a text line there continues it, and starts no paragraph.
	other bool
}

// add extends the paragraph with a line (trimmed, at whole[start:end]), starts one, or ends
// it on a line that is not text.
func (p *paragraph) add(trimmed string, indent int, blank, inList bool, lineNo, start, end int) {
	switch {
	case blank || isThematicBreak(trimmed):
		*p = paragraph{}
	case p.first != 0:
		p.end = end // a continuation, however indented
	case inList || strings.HasPrefix(trimmed, ">") || strings.HasPrefix(trimmed, "<") || strings.HasPrefix(trimmed, "|"):
		p.other = true
	case !p.other && indent < 4:
		p.first, p.start, p.end = lineNo, start, end
	}
}

// setext reports the heading the paragraph of whole becomes when trimmed is its underline:
// its lines, each trimmed, joined by spaces.
func (p *paragraph) setext(whole, trimmed string, indent int) (graph.Heading, bool) {
	if p.first == 0 || indent >= 4 || trimmed == "" || trimmed[0] != '=' && trimmed[0] != '-' {
		return graph.Heading{}, false
	}
	m := setextUnderline.FindStringSubmatch(trimmed)
	if m == nil {
		return graph.Heading{}, false
	}
	level := 1
	if m[1][0] == '-' {
		level = 2
	}
	lines := strings.Split(whole[p.start:p.end], "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	text := strings.TrimSpace(strings.Join(lines, " "))
	return graph.Heading{Level: level, Text: text, Line: p.first}, text != ""
}

// isThematicBreak reports whether a line is ***, --- or ___ (spaced or not); the first byte
// rules out almost every line before the expression runs.
func isThematicBreak(trimmed string) bool {
	if trimmed == "" || trimmed[0] != '-' && trimmed[0] != '*' && trimmed[0] != '_' {
		return false
	}
	return thematicBreak.MatchString(trimmed)
}

var (
	setextUnderline = regexp.MustCompile(`^(=+|-+)[ \t]*$`)
	thematicBreak   = regexp.MustCompile(`^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
)

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
