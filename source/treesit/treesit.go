package treesit

import (
	"context"
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
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
)

// Node is a node of a syntax tree.
type Node = sitter.Node

// Tree is a parsed file; Close frees it.
type Tree struct {
	t   *sitter.Tree
	Src []byte
}

// Root is the tree's root node.
func (t *Tree) Root() *Node { return t.t.RootNode() }

// Close frees the tree's memory, which lives outside Go's heap.
func (t *Tree) Close() { t.t.Close() }

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
	}
	return nil
}

// Parse parses src with grammar g. It fails only when ctx ends or the grammar is unknown; a
// file with syntax errors yields a tree with ERROR nodes (FirstError).
func Parse(ctx context.Context, g Grammar, src []byte) (*Tree, error) {
	lang := language(g)
	if lang == nil {
		return nil, fmt.Errorf("parse: unknown grammar %d", g)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang)
	t, err := p.ParseCtx(ctx, nil, src)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return &Tree{t: t, Src: src}, nil
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

// Children calls fn for each named child of n.
func Children(n *Node, fn func(c *Node)) {
	for i := range int(n.NamedChildCount()) {
		if c := n.NamedChild(i); c != nil {
			fn(c)
		}
	}
}

// Walk calls fn for n and every named node below it, depth first; fn returns false to skip
// a node's children.
func Walk(n *Node, fn func(c *Node) bool) {
	if !fn(n) {
		return
	}
	for i := range int(n.NamedChildCount()) {
		if c := n.NamedChild(i); c != nil {
			Walk(c, fn)
		}
	}
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
	var walk func(n *Node) bool
	walk = func(n *Node) bool {
		if n.IsMissing() {
			found = n
			return true
		}
		if !n.HasError() && !n.IsError() {
			return false
		}
		for i := range int(n.ChildCount()) {
			if c := n.Child(i); c != nil && walk(c) {
				return true
			}
		}
		if n.IsError() {
			found = n
			return true
		}
		return false
	}
	walk(root)
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
