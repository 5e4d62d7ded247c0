package main

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// terminalWriter escapes, in all the CLI prints, the control characters a terminal acts on:
// C0 controls but tab and newline, DEL, and the C1 controls (U+0080 to U+009F, among them
// the 8-bit CSI). Project content (a title, a changeset's name) is written by others and
// must not move the cursor, clear a line or draw a fake status; each such character is
// printed as \u00XX, which is also a valid escape inside a JSON string.
type terminalWriter struct {
	w io.Writer
	// held is the first byte of a two-byte rune that the last Write ended with.
	held []byte
}

func newTerminalWriter(w io.Writer) *terminalWriter { return &terminalWriter{w: w} }

func (t *terminalWriter) Write(p []byte) (int, error) {
	in := append(t.held, p...)
	t.held = nil
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c >= 0xC0 && !utf8.FullRune(in[i:]) {
			t.held = append([]byte(nil), in[i:]...) // completed by the next Write
			break
		}
		r, size := utf8.DecodeRune(in[i:])
		switch {
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			out = fmt.Appendf(out, `\u%04x`, c)
		case r >= 0x80 && r <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, in[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
