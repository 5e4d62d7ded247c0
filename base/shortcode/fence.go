package shortcode

import "strings"

// Fence follows the fenced code blocks of a Markdown body line by line, as CommonMark
// delimits them: a block opens with three or more backticks or tildes (an info string may
// follow) and closes with a run of the same character at least as long and nothing after it.
// Inside one, nothing is syntax: no shortcode, admonition or MDX element. The zero Fence is
// outside any block.
type Fence struct {
	open string // the opening run, or "" outside a block
}

// Line reads the next line and reports whether it is code: inside a block, or the fence
// line that opens or closes one.
func (f *Fence) Line(line string) bool {
	t := strings.TrimLeft(line, " ")
	if f.open != "" {
		if run := fenceRun(t); run != "" && run[0] == f.open[0] && len(run) >= len(f.open) && strings.TrimSpace(t[len(run):]) == "" {
			f.open = ""
		}
		return true
	}
	if run := fenceRun(t); run != "" && !(run[0] == '`' && strings.Contains(t[len(run):], "`")) {
		f.open = run
		return true
	}
	return false
}

// Open reports whether the lines read so far left a block open.
func (f *Fence) Open() bool { return f.open != "" }

// fenceRun is the run of three or more backticks or tildes a trimmed line starts with, or "".
func fenceRun(t string) string {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}
