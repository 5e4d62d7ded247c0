package treesit

import (
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
)

// Step kinds of the Logic of a Python, TypeScript or JavaScript function beside the shared
// ones (graph.StepEntry, ...): the Go adapter's where they mean the same, and those these
// languages add (try, handler, finally, with, await, raise).
const (
	StepCondition = "condition"
	StepLoop      = "loop"
	StepRange     = "range" // for x in / for (x of)
	StepSwitch    = "switch"
	StepCase      = "case"
	StepRaise     = "raise" // raise, throw
	StepTry       = "try"
	StepHandler   = "handler" // except, catch
	StepFinally   = "finally"
	StepWith      = "with" // with, using
	StepAwait     = "await"

	edgeFallthrough = "fallthrough"
	edgeException   = "exception" // from a try to a handler: anything its body raises
)

type (
	logicEnd    = graph.LogicEnd
	logicTarget = graph.LogicTarget
)

// logicBuilder builds one function's Logic from its syntax tree, statement by statement,
// over the shared core (graph.LogicBuilder), as the Go adapter's does from go/ast.
type logicBuilder struct {
	graph.LogicBuilder
	t         *Tree
	raises    []int // raise steps, which a finally around them runs after
	nextLabel string
}

// Logic computes the Logic of a function: name labels its entry, body is its body (a block,
// or for an arrow function an expression), limit bounds the steps.
func (t *Tree) Logic(name string, fn, body *Node, limit int) *graph.Logic {
	b := &logicBuilder{LogicBuilder: graph.NewLogicBuilder(limit), t: t}
	b.step(graph.StepEntry, name, fn)
	switch body.Type() {
	case "block", "statement_block":
		b.stmts(body)
	default: // an arrow function's expression body is what it returns
		b.step(graph.StepReturn, b.text(body), body)
		b.Returns = append(b.Returns, b.Open...)
		b.Open = nil
	}
	return b.Finish(EndLine(body))
}

// text is a node's source on one line, shortened for a label.
func (b *logicBuilder) text(n *Node) string {
	if n == nil {
		return ""
	}
	return graph.Label(b.t.Text(n))
}

// head is the text of a compound statement up to its body: "if x > 0", "for a in xs".
func (b *logicBuilder) head(n, body *Node) string {
	if body == nil {
		return b.text(n)
	}
	s := strings.Join(strings.Fields(string(b.t.Src[n.StartByte():body.StartByte()])), " ")
	return graph.Label(strings.TrimSpace(strings.TrimSuffix(s, ":")))
}

func (b *logicBuilder) step(kind, label string, at *Node) int { return b.Step(kind, label, Line(at)) }

// stmts builds the statements of a block node in order.
func (b *logicBuilder) stmts(block *Node) {
	if block == nil {
		return
	}
	b.t.Children(block, func(s *Node) {
		if !b.Truncated {
			b.stmt(s)
		}
	})
}

// body builds a statement that stands for a body: a block, or a single statement.
func (b *logicBuilder) body(n *Node) {
	if n == nil {
		return
	}
	switch n.Type() {
	case "block", "statement_block":
		b.stmts(n)
	default:
		b.stmt(n)
	}
}

func (b *logicBuilder) stmt(s *Node) {
	label := b.nextLabel
	b.nextLabel = ""
	switch s.Type() {
	case "comment", "pass_statement", "empty_statement", "function_definition", "decorated_definition", "class_definition",
		"function_declaration", "generator_function_declaration", "class_declaration":
		// Nothing runs (a nested definition runs when it is called).
	case "block", "statement_block":
		b.stmts(s)
	case "return_statement":
		b.step(graph.StepReturn, b.text(s), s)
		b.Returns = append(b.Returns, b.Open...)
		b.Open = nil
	case "raise_statement", "throw_statement":
		if id := b.step(StepRaise, b.text(s), s); id >= 0 {
			b.raises = append(b.raises, id)
		}
		b.Open = nil
	case "break_statement":
		b.step(graph.StepBreak, b.text(s), s)
		if t := b.FindTarget(b.labelOf(s), false); t != nil {
			t.Breaks = append(t.Breaks, graph.RelabelEnds(b.Open, graph.EdgeBreak)...)
		}
		b.Open = nil
	case "continue_statement":
		id := b.step(graph.StepContinue, b.text(s), s)
		if t := b.FindTarget(b.labelOf(s), true); t != nil {
			b.Edge(id, t.Loop, graph.EdgeContinue)
		}
		b.Open = nil
	case "labeled_statement":
		name := b.t.Text(s.ChildByFieldName("label"))
		b.step(graph.StepLabel, name, s)
		b.nextLabel = name
		b.stmt(s.ChildByFieldName("body"))
	case "if_statement":
		b.ifStmt(s)
	case "for_statement":
		if s.ChildByFieldName("initializer") != nil || s.ChildByFieldName("increment") != nil { // for (init; cond; inc)
			if init := s.ChildByFieldName("initializer"); init != nil {
				b.simple(init)
			}
			cond := s.ChildByFieldName("condition")
			text := "for"
			if cond != nil {
				text = "for " + strings.TrimSuffix(b.text(cond), ";")
			}
			b.loop(StepLoop, text, s, label, cond != nil, s.ChildByFieldName("body"), nil)
			return
		}
		// Python's for a in xs, with its else.
		b.loop(StepRange, b.head(s, s.ChildByFieldName("body")), s, label, true, s.ChildByFieldName("body"), s.ChildByFieldName("alternative"))
	case "for_in_statement":
		b.loop(StepRange, b.head(s, s.ChildByFieldName("body")), s, label, true, s.ChildByFieldName("body"), nil)
	case "while_statement":
		b.loop(StepLoop, b.head(s, s.ChildByFieldName("body")), s, label, true, s.ChildByFieldName("body"), s.ChildByFieldName("alternative"))
	case "do_statement":
		b.doStmt(s, label)
	case "switch_statement":
		b.switchStmt(s, label)
	case "match_statement":
		b.matchStmt(s, label)
	case "try_statement":
		b.tryStmt(s)
	case "with_statement":
		b.step(StepWith, b.head(s, s.ChildByFieldName("body")), s)
		b.body(s.ChildByFieldName("body"))
	default:
		if s.Type() == "expression_statement" && s.NamedChildCount() == 1 && s.NamedChild(0).Type() == "string" {
			return // a docstring or a directive ('use strict'): nothing runs
		}
		text := b.text(s)
		switch {
		case strings.HasPrefix(text, "using ") || strings.HasPrefix(text, "await using "):
			b.step(StepWith, text, s) // a disposable held to the end of the block
		case b.hasAwait(s):
			b.step(StepAwait, text, s)
		default:
			b.simple(s)
		}
	}
}

// hasAwait reports whether a statement awaits, outside any function it defines.
func (b *logicBuilder) hasAwait(n *Node) bool {
	found := false
	b.t.Walk(n, func(c, _ *Node) bool {
		switch c.Type() {
		case "await", "await_expression":
			found = true
		case "function_definition", "lambda", "arrow_function", "function_expression", "function", "class_definition", "class":
			return false
		}
		return !found
	})
	return found
}

func (b *logicBuilder) labelOf(s *Node) string {
	if l := s.ChildByFieldName("label"); l != nil {
		return b.t.Text(l)
	}
	return ""
}

// simple joins a statement to the current block step, or starts one.
func (b *logicBuilder) simple(s *Node) { b.Simple(b.text(s), Line(s)) }

// ifStmt: Python's if/elif/else and ECMAScript's if/else if/else chain their conditions.
func (b *logicBuilder) ifStmt(s *Node) {
	cons := s.ChildByFieldName("consequence")
	cond := b.step(StepCondition, b.head(s, cons), s)
	b.Open = []logicEnd{{From: cond, Kind: graph.EdgeTrue}}
	b.body(cons)
	ends := b.Open
	b.Open = []logicEnd{{From: cond, Kind: graph.EdgeFalse}}
	b.Block = -1
	b.t.ChildFields(s, func(alt *Node, field string) {
		if field != "alternative" {
			return
		}
		switch alt.Type() {
		case "elif_clause":
			c := alt.ChildByFieldName("consequence")
			id := b.step(StepCondition, b.head(alt, c), alt)
			b.Open = []logicEnd{{From: id, Kind: graph.EdgeTrue}}
			b.body(c)
			ends = append(ends, b.Open...)
			b.Open = []logicEnd{{From: id, Kind: graph.EdgeFalse}}
			b.Block = -1
		case "else_clause":
			if body := alt.ChildByFieldName("body"); body != nil {
				b.body(body)
			} else {
				b.t.Children(alt, func(c *Node) { b.stmt(c) })
			}
		}
	})
	b.Open = append(ends, b.Open...)
	b.Block = -1
}

// loop builds a loop; a Python loop's else runs when the loop ends without a break.
func (b *logicBuilder) loop(kind, text string, s *Node, label string, hasCond bool, body, orElse *Node) {
	head := b.step(kind, text, s)
	t := &logicTarget{Label: label, Loop: head}
	b.Targets = append(b.Targets, t)
	if hasCond {
		b.Open = []logicEnd{{From: head, Kind: graph.EdgeTrue}}
	}
	b.body(body)
	for _, e := range b.Open {
		b.Edge(e.From, head, graph.EdgeLoopBack)
	}
	b.Targets = b.Targets[:len(b.Targets)-1]
	b.Open = nil
	if hasCond {
		b.Open = []logicEnd{{From: head, Kind: graph.EdgeFalse}}
	}
	b.Block = -1
	if orElse != nil {
		b.body(orElse.ChildByFieldName("body"))
	}
	b.Open = append(b.Open, t.Breaks...)
	b.Block = -1
}

// doStmt: the body runs first, then the condition sends control back to it or on.
func (b *logicBuilder) doStmt(s *Node, label string) {
	head := b.step(StepLoop, "do", s)
	t := &logicTarget{Label: label, Loop: head}
	b.Targets = append(b.Targets, t)
	b.body(s.ChildByFieldName("body"))
	b.Targets = b.Targets[:len(b.Targets)-1]
	cond := b.step(StepCondition, "while "+b.text(s.ChildByFieldName("condition")), s.ChildByFieldName("condition"))
	b.Edge(cond, head, graph.EdgeLoopBack)
	b.Open = append([]logicEnd{{From: cond, Kind: graph.EdgeFalse}}, t.Breaks...)
	b.Block = -1
}

// switchStmt chains the case tests in order; a case body that does not leave falls through
// to the next one, and default is taken from the last test's false edge.
func (b *logicBuilder) switchStmt(s *Node, label string) {
	b.step(StepSwitch, "switch "+b.text(s.ChildByFieldName("value")), s)
	t := &logicTarget{Label: label, Loop: -1}
	b.Targets = append(b.Targets, t)
	tests := b.Open
	var fall []logicEnd
	deflt := -1
	b.t.Children(s.ChildByFieldName("body"), func(c *Node) {
		switch c.Type() {
		case "switch_case":
			b.Open = tests
			id := b.step(StepCase, "case "+b.text(c.ChildByFieldName("value")), c)
			tests = []logicEnd{{From: id, Kind: graph.EdgeFalse}}
			b.Open = append([]logicEnd{{From: id, Kind: graph.EdgeTrue}}, fall...)
		case "switch_default":
			b.Open = nil // reached from the last test, wherever default stands
			deflt = b.step(StepCase, "default", c)
			b.Open = append([]logicEnd{{From: deflt, Kind: graph.EdgeNext}}, fall...)
		default:
			return
		}
		b.Block = -1
		entered := slices.Clone(b.Open)
		b.t.ChildFields(c, func(st *Node, field string) {
			if field == "body" {
				b.stmt(st)
			}
		})
		fall = b.Open
		if !slices.Equal(b.Open, entered) {
			// A body that ran and did not leave falls through; an empty one (case 1:
			// case 2:) passes its test's own edge on.
			fall = graph.RelabelEnds(b.Open, edgeFallthrough)
		}
	})
	ends := fall
	if deflt >= 0 {
		for _, e := range tests {
			b.Edge(e.From, deflt, e.Kind)
		}
	} else {
		ends = append(ends, tests...)
	}
	b.Targets = b.Targets[:len(b.Targets)-1]
	b.Open = append(graph.RelabelEnds(ends, graph.EdgeNext), t.Breaks...)
	b.Block = -1
}

// matchStmt: Python's match tries its cases in order; none falls through.
func (b *logicBuilder) matchStmt(s *Node, label string) {
	b.step(StepSwitch, "match "+b.text(s.ChildByFieldName("subject")), s)
	tests := b.Open
	var ends []logicEnd
	b.t.Walk(s.ChildByFieldName("body"), func(c, _ *Node) bool {
		if c.Type() != "case_clause" {
			return c.Type() == "block"
		}
		b.Open = tests
		cons := c.ChildByFieldName("consequence")
		text := b.head(c, cons)
		id := b.step(StepCase, text, c)
		tests = []logicEnd{{From: id, Kind: graph.EdgeFalse}}
		if text == "case _" {
			tests = nil // the wildcard always matches
		}
		b.Open = []logicEnd{{From: id, Kind: graph.EdgeTrue}}
		b.body(cons)
		ends = append(ends, b.Open...)
		return false
	})
	b.Open = append(ends, tests...)
	b.Block = -1
}

// tryStmt: the body, each handler reached from the try by an exception edge, Python's else
// after the body, then finally, which every way out of them reaches.
func (b *logicBuilder) tryStmt(s *Node) {
	returns, raises := len(b.Returns), len(b.raises)
	try := b.step(StepTry, "try", s)
	b.body(s.ChildByFieldName("body"))
	bodyEnds := b.Open
	var handled []logicEnd
	var orElse, final *Node
	b.t.Children(s, func(c *Node) {
		switch c.Type() {
		case "except_clause", "except_group_clause", "catch_clause":
			b.Open = []logicEnd{{From: try, Kind: edgeException}}
			body := b.blockOf(c)
			b.step(StepHandler, b.head(c, body), c)
			b.body(body)
			handled = append(handled, b.Open...)
		case "else_clause":
			orElse = c
		case "finally_clause":
			final = c
		}
	})
	b.Open = bodyEnds
	b.Block = -1
	if orElse != nil { // after the body alone, not after a handler
		b.body(orElse.ChildByFieldName("body"))
	}
	b.Open = append(b.Open, handled...)
	if final != nil {
		// finally runs after the body and handlers however they end: going on, returning
		// (the return then completes after it) or raising (which goes on after it).
		on := len(b.Open) > 0
		routed := b.Returns[returns:]
		b.Returns = b.Returns[:returns]
		b.Open = append(b.Open, routed...)
		id := b.step(StepFinally, "finally", final)
		for _, r := range b.raises[raises:] {
			b.Edge(r, id, edgeException)
		}
		b.body(b.blockOf(final))
		if len(routed) > 0 {
			b.Returns = append(b.Returns, b.Open...)
		}
		if !on {
			b.Open = nil
		}
	}
	b.Block = -1
}

// blockOf is the block child of a clause.
func (b *logicBuilder) blockOf(n *Node) *Node {
	var body *Node
	b.t.Children(n, func(x *Node) {
		if x.Type() == "block" || x.Type() == "statement_block" {
			body = x
		}
	})
	return body
}
