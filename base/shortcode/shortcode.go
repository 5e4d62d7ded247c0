package shortcode

import (
	"regexp"
	"strings"
)

// tagPattern matches one tag. Group 1 is the delimiter, 2 the slash of a closing tag, 3 the
// name, 4 the arguments; a quoted argument may hold a brace.
var tagPattern = regexp.MustCompile(`\{\{([<%])\s*(/?)\s*([A-Za-z][\w-]*)((?:[^}"]|"[^"]*"|\}[^}])*?)\s*[>%]\}\}`)

// firstArg is a tag's first argument, quoted or bare, or its path="..." form.
var firstArg = regexp.MustCompile(`^\s*(?:path=)?(?:"([^"]*)"|([^\s"]+))`)

// callouts are the shortcodes that are callouts, with the callout each means; notice takes its
// kind as its first argument.
var callouts = map[string]string{"note": "note", "tip": "tip", "warning": "warning", "info": "info", "caution": "caution", "important": "important"}

// Tag is one shortcode tag on a line.
type Tag struct {
	Start, End int  // byte offsets of the tag in its line
	Raw        bool // the {{< >}} form, whose inner text Hugo hands to the shortcode as it is
	Closing    bool
	Name, Args string
	argsAt     int // byte offset of Args in the line
}

// Tags returns the tags on one line, in order.
func Tags(line string) []Tag {
	if !strings.Contains(line, "{{") {
		return nil
	}
	var out []Tag
	for _, m := range tagPattern.FindAllStringSubmatchIndex(line, -1) {
		out = append(out, Tag{
			Start: m[0], End: m[1],
			Raw:     line[m[2]:m[3]] == "<",
			Closing: m[5] > m[4],
			Name:    line[m[6]:m[7]],
			Args:    line[m[8]:m[9]],
			argsAt:  m[8],
		})
	}
	return out
}

// Ref is the page a ref or relref tag names, and its byte offset in the line; ok is false
// for any other tag.
func (t Tag) Ref() (dest string, at int, ok bool) {
	if t.Closing || t.Name != "ref" && t.Name != "relref" {
		return "", 0, false
	}
	m := firstArg.FindStringSubmatchIndex(t.Args)
	if m == nil {
		return "", 0, false
	}
	if m[2] >= 0 {
		return t.Args[m[2]:m[3]], t.argsAt + m[2], true
	}
	return t.Args[m[4]:m[5]], t.argsAt + m[4], true
}

// Callout is the callout an opening tag starts ("" for none): notice's first argument (note
// when it names no known kind), or the name of note, tip, warning and the like.
func (t Tag) Callout() string {
	if t.Closing {
		return ""
	}
	if t.Name == "notice" {
		if m := firstArg.FindStringSubmatch(t.Args); m != nil {
			if kind, ok := callouts[strings.ToLower(m[1]+m[2])]; ok {
				return kind
			}
		}
		return "note"
	}
	return callouts[t.Name]
}

// OpensRawBlock reports the name of the shortcode a line opens as a raw block: the line (its
// spaces trimmed) is one {{< name >}} tag, neither a ref nor a callout. The block is raw only
// if a closing tag follows; Closings answers that.
func OpensRawBlock(trimmed string) (string, bool) {
	trimmed = strings.TrimRight(trimmed, " \t\r\n")
	if !strings.HasPrefix(trimmed, "{{<") || !strings.HasSuffix(trimmed, ">}}") {
		return "", false
	}
	tags := Tags(trimmed)
	if len(tags) != 1 {
		return "", false
	}
	t := tags[0]
	if t.Start != 0 || t.End != len(trimmed) || !t.Raw || t.Closing || t.Callout() != "" {
		return "", false
	}
	if _, _, ok := t.Ref(); ok {
		return "", false
	}
	return t.Name, true
}

// ClosesRawBlock reports whether a line holds the closing tag {{< /name >}}.
func ClosesRawBlock(line, name string) bool {
	if !strings.Contains(line, "/") {
		return false
	}
	for _, t := range Tags(line) {
		if t.Closing && t.Raw && t.Name == name {
			return true
		}
	}
	return false
}

// Closings remembers, per shortcode name, where in one body the last line closing its raw
// block starts (-1 for none), so that a page of many shortcodes without closing tags (most
// have none) is read once a name, not once a tag. Use one per body.
type Closings map[string]int

// After reports whether body, at or after byte offset from, holds a line closing shortcode
// name's raw block.
func (c Closings) After(body string, from int, name string) bool {
	last, ok := c[name]
	if !ok {
		last = -1
		for at := 0; at < len(body); {
			line := body[at:]
			next := len(body)
			if i := strings.IndexByte(line, '\n'); i >= 0 {
				line, next = line[:i], at+i+1
			}
			if ClosesRawBlock(line, name) {
				last = at
			}
			at = next
		}
		c[name] = last
	}
	return last >= from
}
