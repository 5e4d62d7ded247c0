package treesit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// walkInputs are real files of each grammar, and malformed ones whose ERROR nodes are wide
// or deep.
func walkInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{
		"wide.py":    []byte(strings.Repeat("f(", 300)),
		"wide.ts":    []byte(strings.Repeat("a < b > (", 200)),
		"nested.ts":  []byte(strings.Repeat("class A { m() {} ", 100)),
		"stmts.py":   []byte(strings.Repeat("x = 1\n\"\"\"doc\"\"\"\n", 100)),
		"broken.js":  []byte("let x = ;\nfunction f( {\n  return [1, 2\n}\n/** d */\nexport const y = 2;\n"),
		"ifs.py":     []byte("if a:\n    b()\nelif c:\n    d()\nelse:\n    e()\nfrom x import (y, z as w)\n"),
		"switch.tsx": []byte("switch (x) { case 1: f(); case 2: { g(); break; } default: h(); }\nconst e = <div a={1}>{x}</div>;\n"),
	}
	for _, pattern := range []string{"../python/testdata/*.py", "../python/testdata/logic/*.py", "../ecma/testdata/logic/*.ts",
		"../../web/ui/src/*.js", "../../examples/testdata/adopt-docusaurus/*.js"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			in[p] = data
		}
	}
	return in
}

func grammarOf(name string) Grammar {
	switch filepath.Ext(name) {
	case ".py":
		return Python
	case ".ts":
		return TypeScript
	case ".tsx":
		return TSX
	}
	return JavaScript
}

// describe names a node by its type and span, the same for the same node however reached.
func describe(n *Node) string {
	if n == nil {
		return "nil"
	}
	return fmt.Sprintf("%s@%d-%d", n.Type(), n.StartByte(), n.EndByte())
}

// The cursor walks hand out what go-tree-sitter's indexed accessors (the reference, slow
// over wide nodes) give: each named child in order with its field, and its parent, previous
// sibling and next named sibling; Walk every named node with its named parent.
func TestWalksEqualTheIndexedAccessors(t *testing.T) {
	for name, src := range walkInputs(t) {
		tree, err := Parse(context.Background(), grammarOf(name), src, Bounds{Parse: time.Hour, Walk: time.Hour, Steps: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		var ref func(n *Node)
		ref = func(n *Node) {
			for i := range int(n.ChildCount()) {
				c := n.Child(i)
				if !c.IsNamed() {
					continue
				}
				want = append(want, fmt.Sprintf("%s in %s field %q prev %s next %s", describe(c), describe(n),
					fieldOf(c, n.FieldNameForChild(i)), describe(c.PrevSibling()), describe(c.NextNamedSibling())))
				ref(c)
			}
		}
		ref(tree.Root())
		var cur func(n *Node)
		cur = func(n *Node) {
			tree.ChildFields(n, func(c *Node, field string) {
				got = append(got, fmt.Sprintf("%s in %s field %q prev %s next %s", describe(c), describe(tree.Parent(c)),
					fieldOf(c, field), describe(tree.PrevSibling(c)), describe(tree.NextNamedSibling(c))))
				cur(c)
			})
		}
		cur(tree.Root())
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: ChildFields and the indexed accessors differ:\n%s", name, firstDifference(got, want))
		}

		want, got = want[:0], got[:0]
		var refWalk func(n *Node, parent *Node)
		refWalk = func(n *Node, parent *Node) {
			want = append(want, describe(n)+" under "+describe(parent))
			for i := range int(n.NamedChildCount()) {
				refWalk(n.NamedChild(i), n)
			}
		}
		refWalk(tree.Root(), nil)
		tree.Walk(tree.Root(), func(c, parent *Node) bool {
			got = append(got, describe(c)+" under "+describe(parent))
			return true
		})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: Walk and the indexed accessors differ:\n%s", name, firstDifference(got, want))
		}
		if tree.Err() != nil {
			t.Errorf("%s: %v", name, tree.Err())
		}
		tree.Close()
	}
}

// fieldOf is the field of c, except for an ERROR or extra node: FieldNameForChild (of this
// tree-sitter) gives such a node the field of the child after it, where the cursor gives none.
func fieldOf(c *Node, field string) string {
	if c.IsError() || c.IsExtra() {
		return "(not compared)"
	}
	return field
}

func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: got %s\nwant %s", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(got), len(want))
}

// A file over a bound fails with a *BoundError naming it: a parse over its time, walks over
// their steps; a walk stops when the parse's context ends.
func TestBoundsStopTheWork(t *testing.T) {
	src := []byte(strings.Repeat("f(", 200_000))
	_, err := Parse(context.Background(), Python, src, Bounds{Parse: time.Millisecond, Walk: time.Hour, Steps: 1 << 30})
	var bound *BoundError
	if !errors.As(err, &bound) || !strings.Contains(err.Error(), "a parse of 1ms") {
		t.Errorf("a parse over its bound: %v", err)
	}

	tree, err := Parse(context.Background(), Python, []byte(strings.Repeat("x = 1\n", 1000)), Bounds{Parse: time.Hour, Walk: time.Hour, Steps: 100})
	if err != nil {
		t.Fatal(err)
	}
	visited := 0
	tree.Walk(tree.Root(), func(c, _ *Node) bool { visited++; return true })
	if !errors.As(tree.Err(), &bound) || !strings.Contains(bound.Bound, "100 steps") || visited > 101 {
		t.Errorf("walks over their steps: %v after %d nodes", tree.Err(), visited)
	}
	tree.Children(tree.Root(), func(*Node) { t.Error("a walk went on after the bound") })
	tree.Close()

	ctx, cancel := context.WithCancel(context.Background())
	tree, err = Parse(ctx, Python, []byte(strings.Repeat("x = 1\n", 5000)), Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	tree.Walk(tree.Root(), func(c, _ *Node) bool { return true })
	if !errors.Is(tree.Err(), context.Canceled) {
		t.Errorf("a walk after the context ended: %v", tree.Err())
	}
	tree.Close()
}
