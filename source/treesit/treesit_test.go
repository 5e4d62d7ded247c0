package treesit

import (
	"context"
	"strings"
	"testing"
)

// A syntax error is located where the parser stumbled, not where the ERROR node that spans
// everything it could not place begins; a file without one has none.
func TestFirstError(t *testing.T) {
	cases := []struct {
		g          Grammar
		src        string
		line, col  int
		msgHas     string
		wantsError bool
	}{
		{Python, "def f():\n    return 1\n", 0, 0, "", false},
		{Python, "import os\n\ndef f(:\n    pass\n", 3, 7, "missing )", true},
		{TypeScript, "export function f(): number { return 1; }\n", 0, 0, "", false},
		{TypeScript, "const a = 1;\nfunction g( {\n", 2, 0, "", true},
		{JavaScript, "let x = ;\n", 1, 0, "", true},
	}
	for _, c := range cases {
		tree, err := Parse(context.Background(), c.g, []byte(c.src), Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		line, col, msg, ok := tree.FirstError()
		tree.Close()
		if ok != c.wantsError {
			t.Errorf("%q: error %v, want %v (%d:%d %s)", c.src, ok, c.wantsError, line, col, msg)
			continue
		}
		if !ok {
			continue
		}
		if line != c.line || c.col > 0 && col != c.col || !strings.Contains(msg, c.msgHas) {
			t.Errorf("%q: error at %d:%d %q, want line %d column %d", c.src, line, col, msg, c.line, c.col)
		}
	}
}
