package main

import (
	"bytes"
	"testing"
)

// Control characters from project content never reach the terminal raw, whole runes are
// kept, and a two-byte C1 control split across writes is still caught.
func TestTerminalWriterEscapesControls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain text, tabs and newlines stay", []string{"a\tb\nc — é 漢\n"}, "a\tb\nc — é 漢\n"},
		{"an escape sequence and a carriage return", []string{"\x1b[2K\rcs-fake ready"}, `\u001b[2K\u000dcs-fake ready`},
		{"NUL, BEL and DEL", []string{"a\x00b\x07c\x7f"}, `a\u0000b\u0007c\u007f`},
		{"the 8-bit CSI", []string{"x\u009b2Jy"}, `x\u009b2Jy`},
		{"the 8-bit CSI split across writes", []string{"x\xc2", "\x9b2J"}, `x\u009b2J`},
		{"a whole rune split across writes", []string{"\xe6\xbc", "\xa2!"}, "漢!"},
	} {
		var buf bytes.Buffer
		w := newTerminalWriter(&buf)
		for _, s := range tc.writes {
			if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
				t.Fatalf("%s: wrote %d of %d: %v", tc.name, n, len(s), err)
			}
		}
		if buf.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, buf.String(), tc.want)
		}
	}
}
