package render

import (
	"strings"

	"github.com/docforge/docforge/base/shortcode"
)

// shortcodes turns the Hugo shortcodes of one body into the Markdown DocForge renders:
//   - ref and relref become the URL of the page they name (link, or "" to keep the path);
//   - notice, note, tip, warning, info, caution and important become a callout (a GitHub
//     alert blockquote, which calloutShape styles);
//   - the inner text of any other {{< >}} block, which Hugo hands to the shortcode as it is,
//     becomes a code block; the tags of any other shortcode are dropped, their inner Markdown
//     kept, and each name is counted in removed;
//   - {{</* x */>}}, Hugo's escape for showing a shortcode, becomes the text {{< x >}}.
//
// Fenced code is left alone.
func shortcodes(body string, link func(dest string) string, removed func(name string)) string {
	if !strings.Contains(body, "{{") {
		return body
	}
	var out strings.Builder
	var fence shortcode.Fence
	callout := ""  // the closing name of the open callout
	rawBlock := "" // the closing name of the open {{< >}} block kept as code
	closes := shortcode.Closings{}
	for at := 0; at < len(body); {
		line := body[at:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		at += len(line)
		trimmed := strings.TrimLeft(line, " ")
		code := rawBlock == "" && fence.Line(trimmed)
		if code || !strings.Contains(line, "{{") {
			if rawBlock == "" && callout != "" {
				out.WriteString("> ")
			}
			out.WriteString(line)
			continue
		}
		if rawBlock != "" {
			if shortcode.ClosesRawBlock(line, rawBlock) {
				out.WriteString("```\n")
				rawBlock = ""
				continue
			}
			out.WriteString(line)
			continue
		}
		// A line that is only a {{< name >}} tag with a closing tag below: its input as code.
		if name, ok := shortcode.OpensRawBlock(trimmed); ok && closes.After(body, at, name) {
			removed(name)
			rawBlock = name
			out.WriteString("```\n")
			continue
		}
		text := rewriteLine(line, func(t shortcode.Tag) string { return shortcodeText(t, &callout, link, removed) })
		if callout != "" && !strings.HasPrefix(text, "\n> [!") {
			text = "> " + text
		}
		out.WriteString(strings.ReplaceAll(text, "\n\n", "\n"))
	}
	return out.String()
}

// rewriteLine rewrites a line's shortcode tags with tag, leaving Hugo's escaped ones ({{</*
// x */>}}) as the text of the tag they show.
func rewriteLine(line string, tag func(shortcode.Tag) string) string {
	text := strings.ReplaceAll(strings.ReplaceAll(line, "{{</*", "\x00lt"), "{{%/*", "\x00pc")
	text = rewriteTags(text, tag)
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\x00lt", "{{<"), "\x00pc", "{{%")
	// A ref as a link's destination keeps a mark that the link pass takes for resolved;
	// elsewhere Hugo writes the URL as text.
	text = strings.ReplaceAll(strings.ReplaceAll(text, "]("+refMark, "]("+resolvedScheme), refMark, "")
	return strings.ReplaceAll(strings.ReplaceAll(text, "*/>}}", ">}}"), "*/%}}", "%}}")
}

// shortcodeText is what one tag becomes: a ref its page's URL (or the path when link finds
// none), a callout's tags the start and end of an alert (callout holds the open one's name),
// any other tag nothing, counted in removed.
func shortcodeText(t shortcode.Tag, callout *string, link func(dest string) string, removed func(name string)) string {
	if dest, _, ok := t.Ref(); ok {
		if href := link(dest); href != "" {
			return refMark + href
		}
		return dest
	}
	switch kind := t.Callout(); {
	case kind != "":
		*callout = t.Name
		return "\n> [!" + strings.ToUpper(kind) + "]\n> "
	case t.Closing && t.Name == *callout:
		*callout = ""
		return "\n"
	case t.Name == "ref" || t.Name == "relref":
		return "" // a ref that names no page
	}
	removed(t.Name)
	return ""
}

// refMark tags a resolved ref while a line is rewritten; resolvedScheme marks a destination
// that needs no more resolution (linkShape removes it).
const (
	refMark        = "\x01ref:"
	resolvedScheme = "docforge-resolved:"
)

// rewriteTags replaces each shortcode tag of a line with what f returns for it.
func rewriteTags(line string, f func(shortcode.Tag) string) string {
	tags := shortcode.Tags(line)
	if len(tags) == 0 {
		return line
	}
	var b strings.Builder
	last := 0
	for _, t := range tags {
		b.WriteString(line[last:t.Start])
		b.WriteString(f(t))
		last = t.End
	}
	b.WriteString(line[last:])
	return b.String()
}
