package history

import "slices"

// hunk is one change of a unified diff with no context: count lines from start in the old
// file became newCount lines from newStart in the new one. A count of 0 places the change
// after its start line, as git writes it.
type hunk struct {
	start, count, newStart, newCount int
}

// span is a range of lines, first and last inclusive.
type span struct{ first, last int }

// mapLine carries line n of a diff's old file to the new file: lines before every change
// move by the lines inserted and deleted above them; a line the diff replaced goes to the
// first line of its replacement, or to the line after a deletion.
func mapLine(diff []hunk, n int) int {
	shift := 0
	for _, h := range diff {
		first := h.start
		if h.count == 0 {
			first++ // an insertion after line start leaves start where it was
		}
		switch {
		case n < first:
			return n + shift
		case n < first+h.count:
			if h.newCount == 0 {
				return h.newStart + 1 // deleted: the line after the deletion
			}
			return h.newStart
		}
		shift += h.newCount - h.count
	}
	return n + shift
}

// carry maps a span of the file after one commit through the diffs of the later commits that
// touched the file, oldest first, to the lines it is at after the last of them.
func carry(s span, later [][]hunk) span {
	for _, d := range later {
		s = span{mapLine(d, s.first), mapLine(d, s.last)}
		if s.last < s.first {
			s.last = s.first
		}
	}
	return s
}

// changed are the new-file spans a diff wrote, merged where they touch; a pure deletion
// marks the line it left behind.
func changed(diff []hunk) []span {
	var out []span
	for _, h := range diff {
		s := span{h.newStart, h.newStart + h.newCount - 1}
		if h.newCount == 0 {
			s = span{h.newStart + 1, h.newStart + 1}
		}
		if s.first < 1 {
			s = span{1, max(s.last, 1)}
		}
		if n := len(out); n > 0 && s.first <= out[n-1].last+1 {
			out[n-1].last = max(out[n-1].last, s.last)
			continue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b span) int { return a.first - b.first })
	return out
}
