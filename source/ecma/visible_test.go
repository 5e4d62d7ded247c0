package ecma_test

import (
	"context"
	"slices"
	"testing"

	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/treesit"
)

// A member named by a quoted or computed key holding characters a reader cannot see (a bidi
// override, a newline and an escape sequence, a zero-width joiner) gets a name, and so a node
// ID and title, with those characters escaped: no forged line, and "r\u200Dun" apart from
// "run".
func TestMemberKeysAreMadeVisible(t *testing.T) {
	src := "export class Pay {\n  [\"pay\u202emoc.exe\"]() {}\n  \"a\nb\x1b]0;t\x07\"() {}\n  r\u200dun() {}\n  run() {}\n}\n"
	f, err := ecma.Extract(context.Background(), "pay.ts", []byte(src), false, 0, treesit.Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		names = append(names, d.Qual())
		for _, r := range d.Qual() + d.Title {
			if r < 0x20 || r == 0x202E || r == 0x200D {
				t.Errorf("%q (title %q) holds U+%04X", d.Qual(), d.Title, r)
			}
		}
	}
	t.Logf("%q", names)
	for _, want := range []string{"Pay.run", `Pay.r\u200Dun`} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s among %q", want, names)
		}
	}
}
