package treesit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
)

// Step kinds of the Logic of a Python, TypeScript or JavaScript function: the Go adapter's
// where they mean the same, and the kinds these languages add (try, handler, finally, with,
// await, raise).
const (
	StepEntry     = "entry"
	StepBlock     = "block"
	StepCondition = "condition"
	StepLoop      = "loop"
	StepRange     = "range" // for x in / for (x of)
	StepSwitch    = "switch"
	StepCase      = "case"
	StepReturn    = "return"
	StepRaise     = "raise" // raise, throw
	StepTry       = "try"
	StepHandler   = "handler" // except, catch
	StepFinally   = "finally"
	StepWith      = "with" // with, using
	StepAwait     = "await"
	StepLabel     = "label"
	StepBreak     = "break"
	StepContinue  = "continue"
	StepTruncated = "truncated"
	StepExit      = "exit"

	edgeNext        = "next"
	edgeTrue        = "true"
	edgeFalse       = "false"
	edgeLoopBack    = "loop_back"
	edgeBreak       = "break"
	edgeContinue    = "continue"
	edgeFallthrough = "fallthrough"
	edgeException   = "exception" // from a try to a handler: anything its body raises
	maxLabelRunes   = 80
)

type logicEnd struct {
	from int
	kind string
}

type logicTarget struct {
	label  string
	loop   int // the step continue goes to; -1 for a switch
	breaks []logicEnd
}

// logicBuilder builds one function's Logic from its syntax tree, statement by statement, as
// the Go adapter's builder does from go/ast: each step is fed by the ends left open before
// it.
type logicBuilder struct {
	t         *Tree
	limit     int
	steps     []graph.Step
	edges     []graph.LogicEdge
	truncated bool
	open      []logicEnd
	block     int // the block step simple statements join, or -1
	returns   []logicEnd
	raises    []int // raise steps, which a finally around them runs after
	targets   []*logicTarget
	nextLabel string
}

// Logic computes the Logic of a function: name labels its entry, body is its body (a block,
// or for an arrow function an expression), limit bounds the steps.
func (t *Tree) Logic(name string, fn, body *Node, limit int) *graph.Logic {
	b := &logicBuilder{t: t, limit: max(limit, 4), block: -1}
	b.step(StepEntry, name, fn)
	switch body.Type() {
	case "block", "statement_block":
		b.stmts(body)
	default: // an arrow function's expression body is what it returns
		b.step(StepReturn, b.text(body), body)
		b.returns = append(b.returns, b.open...)
		b.open = nil
	}
	if b.truncated {
		b.open = append(b.open, b.returns...)
		b.returns = nil
		b.force(StepTruncated, fmt.Sprintf("more than %d steps", b.limit), EndLine(body))
	}
	b.open = append(b.open, b.returns...)
	b.force(StepExit, "", EndLine(body))
	slices.SortFunc(b.edges, func(x, y graph.LogicEdge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), strings.Compare(x.Kind, y.Kind))
	})
	return &graph.Logic{Steps: b.steps, Edges: slices.Compact(b.edges), Truncated: b.truncated}
}

// text is a node's source on one line, shortened for a label.
func (b *logicBuilder) text(n *Node) string {
	if n == nil {
		return ""
	}
	s := strings.Join(strings.Fields(b.t.Text(n)), " ")
	if r := []rune(s); len(r) > maxLabelRunes {
		s = string(r[:maxLabelRunes-1]) + "…"
	}
	return s
}

// head is the text of a compound statement up to its body: "if x > 0", "for a in xs".
func (b *logicBuilder) head(n, body *Node) string {
	if body == nil {
		return b.text(n)
	}
	s := strings.Join(strings.Fields(string(b.t.Src[n.StartByte():body.StartByte()])), " ")
	s = strings.TrimSpace(strings.TrimSuffix(s, ":"))
	if r := []rune(s); len(r) > maxLabelRunes {
		s = string(r[:maxLabelRunes-1]) + "…"
	}
	return s
}

func (b *logicBuilder) step(kind, label string, at *Node) int {
	if b.truncated || len(b.steps) >= b.limit-2 {
		b.truncated = true
		return -1
	}
	id := b.force(kind, label, Line(at))
	if kind != StepTruncated && kind != StepExit {
		for _, e := range b.open {
			b.edge(e.from, id, e.kind)
		}
		b.open = []logicEnd{{id, edgeNext}}
	}
	b.block = -1
	return id
}

func (b *logicBuilder) force(kind, label string, line int) int {
	id := len(b.steps)
	b.steps = append(b.steps, graph.Step{ID: id, Kind: kind, Label: label, Line: line})
	if kind == StepTruncated || kind == StepExit {
		for _, e := range b.open {
			b.edge(e.from, id, e.kind)
		}
		b.open = []logicEnd{{id, edgeNext}}
	}
	return id
}

func (b *logicBuilder) edge(from, to int, kind string) {
	if from >= 0 && to >= 0 {
		b.edges = append(b.edges, graph.LogicEdge{From: from, To: to, Kind: kind})
	}
}

func relabelEnds(ends []logicEnd, kind string) []logicEnd {
	out := make([]logicEnd, len(ends))
	for i, e := range ends {
		out[i] = logicEnd{e.from, kind}
	}
	return out
}

// stmts builds the statements of a block node in order.
func (b *logicBuilder) stmts(block *Node) {
	if block == nil {
		return
	}
	Children(block, func(s *Node) {
		if !b.truncated {
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
		b.step(StepReturn, b.text(s), s)
		b.returns = append(b.returns, b.open...)
		b.open = nil
	case "raise_statement", "throw_statement":
		if id := b.step(StepRaise, b.text(s), s); id >= 0 {
			b.raises = append(b.raises, id)
		}
		b.open = nil
	case "break_statement":
		b.step(StepBreak, b.text(s), s)
		if t := b.findTarget(b.labelOf(s), false); t != nil {
			t.breaks = append(t.breaks, relabelEnds(b.open, edgeBreak)...)
		}
		b.open = nil
	case "continue_statement":
		id := b.step(StepContinue, b.text(s), s)
		if t := b.findTarget(b.labelOf(s), true); t != nil {
			b.edge(id, t.loop, edgeContinue)
		}
		b.open = nil
	case "labeled_statement":
		name := b.t.Text(s.ChildByFieldName("label"))
		b.step(StepLabel, name, s)
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
		case hasAwait(s):
			b.step(StepAwait, text, s)
		default:
			b.simple(s)
		}
	}
}

// hasAwait reports whether a statement awaits, outside any function it defines.
func hasAwait(n *Node) bool {
	found := false
	Walk(n, func(c *Node) bool {
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
func (b *logicBuilder) simple(s *Node) {
	if b.block >= 0 && len(b.open) == 1 && b.open[0].from == b.block {
		st := &b.steps[b.block]
		if next := st.Label + "; " + b.text(s); len([]rune(next)) <= maxLabelRunes {
			st.Label = next
		} else if !strings.HasSuffix(st.Label, "…") {
			st.Label += "; …"
		}
		return
	}
	b.block = b.step(StepBlock, b.text(s), s)
}

// ifStmt: Python's if/elif/else and ECMAScript's if/else if/else chain their conditions.
func (b *logicBuilder) ifStmt(s *Node) {
	cons := s.ChildByFieldName("consequence")
	cond := b.step(StepCondition, b.head(s, cons), s)
	b.open = []logicEnd{{cond, edgeTrue}}
	b.body(cons)
	ends := b.open
	b.open = []logicEnd{{cond, edgeFalse}}
	b.block = -1
	for i := range int(s.NamedChildCount()) {
		alt := s.NamedChild(i)
		if alt == nil || s.FieldNameForChild(namedChildIndex(s, i)) != "alternative" {
			continue
		}
		switch alt.Type() {
		case "elif_clause":
			c := alt.ChildByFieldName("consequence")
			id := b.step(StepCondition, b.head(alt, c), alt)
			b.open = []logicEnd{{id, edgeTrue}}
			b.body(c)
			ends = append(ends, b.open...)
			b.open = []logicEnd{{id, edgeFalse}}
			b.block = -1
		case "else_clause":
			if body := alt.ChildByFieldName("body"); body != nil {
				b.body(body)
			} else {
				Children(alt, func(c *Node) { b.stmt(c) })
			}
		}
	}
	b.open = append(ends, b.open...)
	b.block = -1
}

// namedChildIndex is the index among all children of n's i-th named child.
func namedChildIndex(n *Node, i int) int {
	named := -1
	for j := range int(n.ChildCount()) {
		if c := n.Child(j); c != nil && c.IsNamed() {
			named++
			if named == i {
				return j
			}
		}
	}
	return -1
}

// loop builds a loop; a Python loop's else runs when the loop ends without a break.
func (b *logicBuilder) loop(kind, text string, s *Node, label string, hasCond bool, body, orElse *Node) {
	head := b.step(kind, text, s)
	t := &logicTarget{label: label, loop: head}
	b.targets = append(b.targets, t)
	if hasCond {
		b.open = []logicEnd{{head, edgeTrue}}
	}
	b.body(body)
	for _, e := range b.open {
		b.edge(e.from, head, edgeLoopBack)
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.open = nil
	if hasCond {
		b.open = []logicEnd{{head, edgeFalse}}
	}
	b.block = -1
	if orElse != nil {
		b.body(orElse.ChildByFieldName("body"))
	}
	b.open = append(b.open, t.breaks...)
	b.block = -1
}

// doStmt: the body runs first, then the condition sends control back to it or on.
func (b *logicBuilder) doStmt(s *Node, label string) {
	head := b.step(StepLoop, "do", s)
	t := &logicTarget{label: label, loop: head}
	b.targets = append(b.targets, t)
	b.body(s.ChildByFieldName("body"))
	b.targets = b.targets[:len(b.targets)-1]
	cond := b.step(StepCondition, "while "+b.text(s.ChildByFieldName("condition")), s.ChildByFieldName("condition"))
	b.edge(cond, head, edgeLoopBack)
	b.open = append([]logicEnd{{cond, edgeFalse}}, t.breaks...)
	b.block = -1
}

// switchStmt chains the case tests in order; a case body that does not leave falls through
// to the next one, and default is taken from the last test's false edge.
func (b *logicBuilder) switchStmt(s *Node, label string) {
	b.step(StepSwitch, "switch "+b.text(s.ChildByFieldName("value")), s)
	t := &logicTarget{label: label, loop: -1}
	b.targets = append(b.targets, t)
	tests := b.open
	var fall []logicEnd
	deflt := -1
	Children(s.ChildByFieldName("body"), func(c *Node) {
		switch c.Type() {
		case "switch_case":
			b.open = tests
			id := b.step(StepCase, "case "+b.text(c.ChildByFieldName("value")), c)
			tests = []logicEnd{{id, edgeFalse}}
			b.open = append([]logicEnd{{id, edgeTrue}}, fall...)
		case "switch_default":
			b.open = nil // reached from the last test, wherever default stands
			deflt = b.step(StepCase, "default", c)
			b.open = append([]logicEnd{{deflt, edgeNext}}, fall...)
		default:
			return
		}
		b.block = -1
		entered := slices.Clone(b.open)
		for i := range int(c.NamedChildCount()) {
			if c.FieldNameForChild(namedChildIndex(c, i)) == "body" {
				b.stmt(c.NamedChild(i))
			}
		}
		fall = b.open
		if !slices.Equal(b.open, entered) {
			// A body that ran and did not leave falls through; an empty one (case 1:
			// case 2:) passes its test's own edge on.
			fall = relabelEnds(b.open, edgeFallthrough)
		}
	})
	ends := fall
	if deflt >= 0 {
		for _, e := range tests {
			b.edge(e.from, deflt, e.kind)
		}
	} else {
		ends = append(ends, tests...)
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.open = append(relabelEnds(ends, edgeNext), t.breaks...)
	b.block = -1
}

// matchStmt: Python's match tries its cases in order; none falls through.
func (b *logicBuilder) matchStmt(s *Node, label string) {
	b.step(StepSwitch, "match "+b.text(s.ChildByFieldName("subject")), s)
	tests := b.open
	var ends []logicEnd
	Walk(s.ChildByFieldName("body"), func(c *Node) bool {
		if c.Type() != "case_clause" {
			return c.Type() == "block"
		}
		b.open = tests
		cons := c.ChildByFieldName("consequence")
		text := b.head(c, cons)
		id := b.step(StepCase, text, c)
		tests = []logicEnd{{id, edgeFalse}}
		if text == "case _" {
			tests = nil // the wildcard always matches
		}
		b.open = []logicEnd{{id, edgeTrue}}
		b.body(cons)
		ends = append(ends, b.open...)
		return false
	})
	b.open = append(ends, tests...)
	b.block = -1
}

// tryStmt: the body, each handler reached from the try by an exception edge, Python's else
// after the body, then finally, which every way out of them reaches.
func (b *logicBuilder) tryStmt(s *Node) {
	returns, raises := len(b.returns), len(b.raises)
	try := b.step(StepTry, "try", s)
	b.body(s.ChildByFieldName("body"))
	bodyEnds := b.open
	var handled []logicEnd
	var orElse, final *Node
	Children(s, func(c *Node) {
		switch c.Type() {
		case "except_clause", "except_group_clause", "catch_clause":
			b.open = []logicEnd{{try, edgeException}}
			body := blockOf(c)
			b.step(StepHandler, b.head(c, body), c)
			b.body(body)
			handled = append(handled, b.open...)
		case "else_clause":
			orElse = c
		case "finally_clause":
			final = c
		}
	})
	b.open = bodyEnds
	b.block = -1
	if orElse != nil { // after the body alone, not after a handler
		b.body(orElse.ChildByFieldName("body"))
	}
	b.open = append(b.open, handled...)
	if final != nil {
		// finally runs after the body and handlers however they end: going on, returning
		// (the return then completes after it) or raising (which goes on after it).
		on := len(b.open) > 0
		routed := b.returns[returns:]
		b.returns = b.returns[:returns]
		b.open = append(b.open, routed...)
		id := b.step(StepFinally, "finally", final)
		for _, r := range b.raises[raises:] {
			b.edge(r, id, edgeException)
		}
		b.body(blockOf(final))
		if len(routed) > 0 {
			b.returns = append(b.returns, b.open...)
		}
		if !on {
			b.open = nil
		}
	}
	b.block = -1
}

// blockOf is the block child of a clause.
func blockOf(n *Node) *Node {
	var body *Node
	Children(n, func(x *Node) {
		if x.Type() == "block" || x.Type() == "statement_block" {
			body = x
		}
	})
	return body
}

func (b *logicBuilder) findTarget(label string, loopOnly bool) *logicTarget {
	for i := len(b.targets) - 1; i >= 0; i-- {
		t := b.targets[i]
		if label != "" && t.label != label {
			continue
		}
		if loopOnly && t.loop < 0 {
			if label != "" {
				return nil
			}
			continue
		}
		return t
	}
	return nil
}
