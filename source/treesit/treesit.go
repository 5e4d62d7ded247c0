package treesit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	clang "github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/protobuf"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Grammar names a tree-sitter grammar.
type Grammar uint8

// The grammars.
const (
	Python Grammar = iota + 1
	TypeScript
	TSX
	JavaScript // with JSX
	Rust
	Java
	CSharp
	Kotlin
	C
	CPP
	PHP
	Ruby
	Protobuf
	Swift
)

// Node is a node of a syntax tree.
type Node = sitter.Node

// Tree is a parsed file; Close frees it. Its walks (Children, ChildFields, Walk) share the
// file's bounds: once one is passed, or the parse's context ends, every walk stops and Err
// says why.
type Tree struct {
	t   *sitter.Tree
	Src []byte
	ctx context.Context
	// cursors are idle cursors to reuse: walks nest, and each holds one while it runs.
	cursors  []*sitter.TreeCursor
	steps    int // cursor moves so far, every node counted (named or not)
	bounds   Bounds
	deadline time.Time
	err      error
	// kin are the parent and siblings of each node ChildFields handed out, which asking the
	// node costs a walk over its siblings; go-tree-sitter hands out one *Node per node.
	kin map[*Node]kin
}

// kin is a node's parent, previous sibling (named or not) and next named sibling.
type kin struct{ parent, prev, nextNamed *Node }

// Bounds bound what one file may cost, so that no file, however malformed, holds a sync
// longer than its bounds: a file over one is indexed as text (the adapters' callers).
type Bounds struct {
	// Parse is the parser's own timeout.
	Parse time.Duration
	// Walk is the time the walks over the tree may take, from the end of the parse.
	Walk time.Duration
	// Steps bounds the walks' cursor moves: every node they pass, named or not.
	Steps int
}

// DefaultBounds are the bounds of a file of n bytes: 250 ms of parsing and 250 more for each
// MB, 250 ms of walking and 500 more for each MB (ten times that in a race-detector build),
// 16 steps a byte. Real code parses at about 9 MB/s and its walks take under 0.6 steps a
// byte; a malformed file costs at most about 2 s at 2 MB (docs/benchmarks.md, "One file's
// bounds").
func DefaultBounds(n int) Bounds {
	return Bounds{
		Parse: 250*time.Millisecond + time.Duration(n)*(250*time.Millisecond)/(1<<20),
		Walk:  walkScale * (250*time.Millisecond + time.Duration(n)*(500*time.Millisecond)/(1<<20)),
		Steps: 1<<16 + 16*n,
	}
}

// BoundError says that a file passed one of its bounds.
type BoundError struct {
	// Bound names the bound passed, with its value: "a parse of 1s", "4000000 steps".
	Bound string
}

func (e *BoundError) Error() string {
	return "the file is over its bound of " + e.Bound + ": too costly to parse (malformed or machine-made?)"
}

// Root is the tree's root node.
func (t *Tree) Root() *Node { return t.t.RootNode() }

// Close frees the tree's memory, which lives outside Go's heap.
func (t *Tree) Close() {
	for _, c := range t.cursors {
		c.Close()
	}
	t.cursors = nil
	t.t.Close()
}

// Err is why the walks stopped early: the context's error, or a *BoundError; nil while they
// run whole.
func (t *Tree) Err() error { return t.err }

func language(g Grammar) *sitter.Language {
	switch g {
	case Python:
		return python.GetLanguage()
	case TypeScript:
		return typescript.GetLanguage()
	case TSX:
		return tsx.GetLanguage()
	case JavaScript:
		return javascript.GetLanguage()
	case Rust:
		return rust.GetLanguage()
	case Java:
		return java.GetLanguage()
	case CSharp:
		return csharp.GetLanguage()
	case Kotlin:
		return kotlin.GetLanguage()
	case C:
		return clang.GetLanguage()
	case CPP:
		return cpp.GetLanguage()
	case PHP:
		return php.GetLanguage()
	case Ruby:
		return ruby.GetLanguage()
	case Protobuf:
		return protobuf.GetLanguage()
	case Swift:
		return swift.GetLanguage()
	}
	return nil
}

// Parse parses src with grammar g within bounds (DefaultBounds when zero). It fails when ctx
// ends, the parse passes its bound (a *BoundError) or the grammar is unknown; a file with
// syntax errors yields a tree with ERROR nodes (FirstError). The tree's walks stop when ctx
// ends.
func Parse(ctx context.Context, g Grammar, src []byte, bounds Bounds) (*Tree, error) {
	lang := language(g)
	if lang == nil {
		return nil, fmt.Errorf("parse: unknown grammar %d", g)
	}
	if bounds == (Bounds{}) {
		bounds = DefaultBounds(len(src))
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang)
	p.SetOperationLimit(int(bounds.Parse / time.Microsecond))
	t, err := p.ParseCtx(ctx, nil, src)
	switch {
	case errors.Is(err, sitter.ErrOperationLimit):
		return nil, &BoundError{Bound: "a parse of " + bounds.Parse.String()}
	case err != nil:
		return nil, fmt.Errorf("parse: %w", err)
	}
	return &Tree{t: t, Src: src, ctx: ctx, bounds: bounds, deadline: time.Now().Add(bounds.Walk), kin: map[*Node]kin{}}, nil
}

// cursor is an idle cursor on n.
func (t *Tree) cursor(n *Node) *sitter.TreeCursor {
	if k := len(t.cursors); k > 0 {
		c := t.cursors[k-1]
		t.cursors = t.cursors[:k-1]
		c.Reset(n)
		return c
	}
	return sitter.NewTreeCursor(n)
}

// step counts one cursor move and reports whether the walks may go on.
func (t *Tree) step() bool {
	if t.err != nil {
		return false
	}
	t.steps++
	if t.steps > t.bounds.Steps {
		t.err = &BoundError{Bound: strconv.Itoa(t.bounds.Steps) + " steps"}
		return false
	}
	if t.steps%1024 == 0 {
		if err := t.ctx.Err(); err != nil {
			t.err = err
			return false
		}
		if time.Now().After(t.deadline) {
			t.err = &BoundError{Bound: "walks of " + t.bounds.Walk.String()}
			return false
		}
	}
	return true
}

// ChildFields calls fn for each named child of n, in order, with the name of the field it
// fills ("" for none). A cursor moves along them: NamedChild(i) counts from the first child
// on every call, quadratic over a wide node (an ERROR node of a malformed file can hold
// every token of it). Each child's parent and siblings are kept for Parent, PrevSibling and
// NextNamedSibling.
func (t *Tree) ChildFields(n *Node, fn func(c *Node, field string)) {
	if n == nil || t.err != nil {
		return
	}
	type child struct {
		node  *Node
		field string
	}
	var named []child
	c := t.cursor(n)
	var prev, prevNamed *Node
	for ok := c.GoToFirstChild(); ok && t.step(); ok = c.GoToNextSibling() {
		node := c.CurrentNode()
		t.kin[node] = kin{parent: n, prev: prev}
		prev = node
		if node.IsNamed() {
			named = append(named, child{node, c.CurrentFieldName()})
			if prevNamed != nil {
				k := t.kin[prevNamed]
				k.nextNamed = node
				t.kin[prevNamed] = k
			}
			prevNamed = node
		}
	}
	t.cursors = append(t.cursors, c)
	for _, ch := range named {
		if !t.step() { // again: the bounds must hold while fn works on each child
			return
		}
		fn(ch.node, ch.field)
	}
}

// narrow is the most children a node may have for Children to read them by index: below it
// the indexed accessors' few calls into C cost less than the cursor's three a child, named
// or not (go test ./source/lang -bench ExtractStandardLibrary).
const narrow = 32

// Children calls fn for each named child of n, in order: by index when n is narrow, else
// through ChildFields.
func (t *Tree) Children(n *Node, fn func(c *Node)) {
	if n == nil || t.err != nil {
		return
	}
	if n.ChildCount() > narrow {
		t.ChildFields(n, func(c *Node, _ string) { fn(c) })
		return
	}
	for i := range int(n.NamedChildCount()) {
		if !t.step() {
			return
		}
		if c := n.NamedChild(i); c != nil {
			fn(c)
		}
	}
}

// Walk calls fn for n and every named node below it, depth first, with the named node it
// is below (nil for n); fn returns false to skip a node's children.
func (t *Tree) Walk(n *Node, fn func(c, parent *Node) bool) {
	if n != nil {
		t.walk(n, nil, fn)
	}
}

func (t *Tree) walk(n, parent *Node, fn func(c, parent *Node) bool) {
	if t.err != nil || !fn(n, parent) {
		return
	}
	t.Children(n, func(c *Node) { t.walk(c, n, fn) })
}

// Parent is n's parent.
func (t *Tree) Parent(n *Node) *Node {
	if k, ok := t.kin[n]; ok {
		return k.parent
	}
	return n.Parent()
}

// PrevSibling is the sibling before n, named or not.
func (t *Tree) PrevSibling(n *Node) *Node {
	if k, ok := t.kin[n]; ok {
		return k.prev
	}
	return n.PrevSibling()
}

// NextNamedSibling is the named sibling after n.
func (t *Tree) NextNamedSibling(n *Node) *Node {
	if k, ok := t.kin[n]; ok {
		return k.nextNamed
	}
	return n.NextNamedSibling()
}

// LastNamed is n's last named child, or nil: the body of a node in a grammar without fields
// (Kotlin's while), the value after a declaration's names.
func LastNamed(n *Node) *Node {
	if c := n.NamedChildCount(); c > 0 {
		return n.NamedChild(int(c) - 1)
	}
	return nil
}

// Text is the source text of n.
func (t *Tree) Text(n *Node) string {
	if n == nil {
		return ""
	}
	return string(t.Src[n.StartByte():n.EndByte()])
}

// Line is the 1-based line n starts on; EndLine the one it ends on.
func Line(n *Node) int { return int(n.StartPoint().Row) + 1 }

// EndLine is the 1-based line n ends on.
func EndLine(n *Node) int {
	p := n.EndPoint()
	if p.Column == 0 && p.Row > 0 && n.EndByte() > n.StartByte() {
		return int(p.Row) // a node that ends with its line's newline ends on that line
	}
	return int(p.Row) + 1
}

// FirstError locates the first ERROR or missing node of the tree, if any.
func (t *Tree) FirstError() (line, column int, msg string, ok bool) {
	root := t.Root()
	if !root.HasError() {
		return 0, 0, "", false
	}
	// The innermost error first met: an ERROR node may span everything the parser could
	// not place (the whole file, for a construct the grammar lacks), with the token it
	// stumbled on in a smaller ERROR inside.
	var found *Node
	c := t.cursor(root)
	defer func() { t.cursors = append(t.cursors, c) }()
	// Down into each node that has or is an error, its children in order; an ERROR node is
	// the answer once none of its children held one (an error leaf at once).
	var stack []*Node // the nodes the cursor went down from
	node := root
	for found == nil && t.step() {
		switch {
		case node.IsMissing():
			found = node
			continue
		case (node.HasError() || node.IsError()) && c.GoToFirstChild():
			stack = append(stack, node)
			node = c.CurrentNode()
			continue
		case node.IsError():
			found = node
			continue
		}
		for found == nil && !c.GoToNextSibling() {
			if len(stack) == 0 || !c.GoToParent() {
				return 1, 1, "syntax error", true
			}
			if up := stack[len(stack)-1]; up.IsError() {
				found = up
			}
			stack = stack[:len(stack)-1]
		}
		node = c.CurrentNode()
	}
	if found == nil {
		return 1, 1, "syntax error", true
	}
	p := found.StartPoint()
	msg = "syntax error"
	if found.IsMissing() {
		msg = "missing " + found.Type()
	} else if text := strings.TrimSpace(t.Text(found)); text != "" {
		first, _, _ := strings.Cut(text, "\n")
		if len(first) > 40 {
			first = first[:40] + "…"
		}
		msg = fmt.Sprintf("syntax error at %q", first)
	}
	return int(p.Row) + 1, int(p.Column) + 1, msg, true
}
