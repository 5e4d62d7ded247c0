package render

import (
	"regexp"
	"strings"
)

// shortcodeTag matches one Hugo shortcode tag: {{< name args >}} or {{% name args %}}, and
// the closing forms {{< /name >}}. Group 1 is the delimiter, 2 the slash of a closing tag,
// 3 the name, 4 the arguments.
var shortcodeTag = regexp.MustCompile(`\{\{([<%])\s*(/?)\s*([A-Za-z][\w-]*)((?:[^}"]|"[^"]*"|\}[^}])*?)\s*[>%]\}\}`)

// shortcodeArg is a shortcode's first argument, quoted or bare, or path="...".
var shortcodeArg = regexp.MustCompile(`^\s*(?:path=)?(?:"([^"]*)"|([^\s"]+))`)

// callouts are the shortcodes that become callouts, with the callout each means; notice takes
// its kind as its first argument.
var callouts = map[string]string{"note": "note", "tip": "tip", "warning": "warning", "info": "info", "caution": "caution", "important": "important"}

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
	fence := ""
	callout := ""  // the closing name of the open callout
	rawBlock := "" // the closing name of the open {{< >}} block kept as code
	lines := strings.SplitAfter(body, "\n")
	closes := map[string]int{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		if f := fenceMarker(trimmed); f != "" && rawBlock == "" {
			switch {
			case fence == "":
				fence = f
			case f == fence:
				fence = ""
			}
		}
		if fence != "" || !strings.Contains(line, "{{") {
			if rawBlock != "" {
				out.WriteString(line)
				continue
			}
			if callout != "" {
				out.WriteString("> ")
			}
			out.WriteString(line)
			continue
		}
		if rawBlock != "" {
			if m := shortcodeTag.FindStringSubmatch(line); m != nil && m[2] == "/" && m[3] == rawBlock {
				out.WriteString("```\n")
				rawBlock = ""
				continue
			}
			out.WriteString(line)
			continue
		}
		// A line that is only a {{< name >}} tag with a closing tag below: its input as code.
		if m := shortcodeTag.FindStringSubmatch(strings.TrimSpace(line)); m != nil && m[0] == strings.TrimSpace(line) &&
			m[1] == "<" && m[2] == "" && !isRef(m[3]) && calloutKind(m[3], m[4]) == "" && lastClose(lines, m[3], closes) > i {
			removed(m[3])
			rawBlock = m[3]
			out.WriteString("```\n")
			continue
		}
		text := strings.ReplaceAll(strings.ReplaceAll(line, "{{</*", "\x00lt"), "{{%/*", "\x00pc")
		text = shortcodeTag.ReplaceAllStringFunc(text, func(tag string) string {
			m := shortcodeTag.FindStringSubmatch(tag)
			name, closing := m[3], m[2] == "/"
			switch {
			case isRef(name) && !closing:
				a := shortcodeArg.FindStringSubmatch(m[4])
				if a == nil {
					return ""
				}
				dest := a[1] + a[2]
				if href := link(dest); href != "" {
					return refMark + href
				}
				return dest
			case calloutKind(name, m[4]) != "" && !closing:
				callout = name
				return "\n> [!" + strings.ToUpper(calloutKind(name, m[4])) + "]\n> "
			case closing && name == callout:
				callout = ""
				return "\n"
			}
			removed(name)
			return ""
		})
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\x00lt", "{{<"), "\x00pc", "{{%")
		// A ref as a link's destination keeps a mark that the link pass takes for resolved;
		// elsewhere Hugo writes the URL as text.
		text = strings.ReplaceAll(strings.ReplaceAll(text, "]("+refMark, "]("+resolvedScheme), refMark, "")
		text = strings.ReplaceAll(strings.ReplaceAll(text, "*/>}}", ">}}"), "*/%}}", "%}}")
		if callout != "" && !strings.HasPrefix(text, "\n> [!") {
			text = "> " + text
		}
		out.WriteString(strings.ReplaceAll(text, "\n\n", "\n"))
	}
	return out.String()
}

// refMark tags a resolved ref while a line is rewritten; resolvedScheme marks a destination
// that needs no more resolution (linkShape removes it).
const (
	refMark        = "\x01ref:"
	resolvedScheme = "docforge-resolved:"
)

func isRef(name string) bool { return name == "ref" || name == "relref" }

// calloutKind is the callout a shortcode opens ("" for none): notice's first argument, or
// the name of note, tip, warning and the like.
func calloutKind(name, args string) string {
	if name == "notice" {
		if a := shortcodeArg.FindStringSubmatch(args); a != nil {
			if kind, ok := callouts[strings.ToLower(a[1]+a[2])]; ok {
				return kind
			}
		}
		return "note"
	}
	return callouts[name]
}

// lastClose is the index of the last line that closes shortcode name (-1 for none),
// remembered in closes: a body of many shortcodes without closing tags is read once a name.
func lastClose(lines []string, name string, closes map[string]int) int {
	if at, ok := closes[name]; ok {
		return at
	}
	at := -1
	for i, l := range lines {
		if !strings.Contains(l, "{{") {
			continue
		}
		for _, m := range shortcodeTag.FindAllStringSubmatch(l, -1) {
			if m[2] == "/" && m[3] == name {
				at = i
			}
		}
	}
	closes[name] = at
	return at
}

// fenceMarker is the ``` or ~~~ a line opens or closes a fenced code block with, or "".
func fenceMarker(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			return f
		}
	}
	return ""
}
