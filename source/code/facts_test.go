package code

import "testing"

// Names keep what a reader sees and escape what they cannot: a bidi override, a zero-width
// joiner, a newline or an escape sequence, a line separator, a no-break space, a Hangul
// filler; an invalid byte becomes U+FFFD.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"run":              "run",
		"café 日本":          "café 日本",
		"pay\u202emoc.exe": `pay\u202Emoc.exe`,
		"r\u200dun":        `r\u200Dun`,
		"a\nb\x1b]0;x\x07": `a\u000Ab\u001B]0;x\u0007`,
		"x\u2028y\u2029":   `x\u2028y\u2029`,
		"no\u00a0break":    `no\u00A0break`,
		"\u3164":           `\u3164`,
		"tag\U000E0041":    `tag\U000E0041`,
		"caf\xe9":          "caf\uFFFD",
		`back\slash`:       `back\slash`,
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
