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
	StepPropagate = "propagate" // Rust's expr?: returns the error or goes on with the value
	StepGoto      = "goto"

	edgeFallthrough = "fallthrough"
	edgeException   = "exception" // from a try to a handler: anything its body raises
	edgeError       = "error"     // from a propagate step out of the function
	edgeGoto        = "goto"
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
	tailValue *Node                       // a Rust function's last expression, its return value
	labels    map[string]int              // label steps seen, which a goto below jumps back to
	gotos     map[string][]graph.LogicEnd // gotos waiting for a label further down
}

// Logic computes the Logic of a function: name labels its entry, body is its body (a block,
// or for an arrow function an expression), limit bounds the steps.
func (t *Tree) Logic(name string, fn, body *Node, limit int) *graph.Logic {
	b := &logicBuilder{LogicBuilder: graph.NewLogicBuilder(limit), t: t, labels: map[string]int{}, gotos: map[string][]graph.LogicEnd{}}
	b.step(graph.StepEntry, name, fn)
	switch {
	case body.Type() == "function_body" && body.NamedChildCount() == 1 && !isBlock(body.NamedChild(0).Type()):
		b.returnValue(body.NamedChild(0)) // Kotlin's fun f() = expr
	case isBlock(body.Type()):
		b.tail(body)
		b.stmts(body)
	default: // an expression body (an arrow function's, C#'s =>) is what it returns
		b.returnValue(body)
	}
	var gotos [][]graph.LogicEnd // gotos to labels never seen: only in code that does not compile
	for _, ends := range b.gotos {
		gotos = append(gotos, ends)
	}
	return b.Finish(EndLine(body), gotos...)
}

// returnValue is a body that is one expression: the function returns it.
func (b *logicBuilder) returnValue(n *Node) {
	if n.Type() == "arrow_expression_clause" && n.NamedChildCount() > 0 {
		n = n.NamedChild(0)
	}
	b.step(graph.StepReturn, b.text(n), n)
	b.Returns = append(b.Returns, b.Open...)
	b.Open = nil
}

// tail: a Rust function's block ends in the value it returns, an expression with no
// semicolon, the block's last named child not wrapped in a statement. A control expression
// (if, match) is built as one; any other value is the function's return.
func (b *logicBuilder) tail(body *Node) {
	n := body.NamedChildCount()
	if n == 0 || body.Type() != "block" || b.Truncated {
		return
	}
	last := body.NamedChild(int(n) - 1)
	if t := last.Type(); !controlExpr[t] && t != "expression_statement" && (strings.HasSuffix(t, "_expression") ||
		strings.HasSuffix(t, "_literal") || t == "identifier" || t == "macro_invocation" || t == "unit_expression") {
		b.tailValue = last
	}
}

// isBlock says a node type is a sequence of statements: a block in each grammar, Kotlin's
// statement lists and bodies.
func isBlock(typ string) bool {
	switch typ {
	case "block", "statement_block", "compound_statement", "statements", "control_structure_body",
		"function_body", "constructor_body", "unsafe_block", "declaration_list":
		return true
	}
	return false
}

// controlExpr are the expression node types that steer control (Rust's and Kotlin's if,
// match, when, loops and jumps), built as statements where they stand as one.
var controlExpr = map[string]bool{
	"if_expression": true, "match_expression": true, "loop_expression": true, "while_expression": true,
	"for_expression": true, "return_expression": true, "break_expression": true, "continue_expression": true,
	"when_expression": true, "try_expression": true, "jump_expression": true, "unsafe_block": true,
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
	if isBlock(n.Type()) {
		b.stmts(n)
		return
	}
	b.stmt(n)
}

func (b *logicBuilder) stmt(s *Node) {
	if s == b.tailValue && !b.panics(s) {
		b.ret(s)
		return
	}
	label := b.nextLabel
	b.nextLabel = ""
	switch s.Type() {
	case "comment", "line_comment", "block_comment", "multiline_comment", "pass_statement", "empty_statement",
		"function_definition", "decorated_definition", "class_definition", "function_declaration",
		"generator_function_declaration", "class_declaration", "function_item", "local_function_statement",
		"attribute_item", "use_declaration":
		// Nothing runs (a nested definition runs when it is called).
	case "block", "statement_block", "compound_statement", "statements", "control_structure_body", "unsafe_block":
		b.stmts(s)
	case "expression_statement":
		if s.NamedChildCount() == 1 && controlExpr[s.NamedChild(0).Type()] {
			b.nextLabel = label
			b.stmt(s.NamedChild(0)) // Rust's if, match and loops stand as statements
			return
		}
		b.other(s)
	case "return_statement", "return_expression":
		b.ret(s)
	case "raise_statement", "throw_statement":
		b.raise(s)
	case "break_statement", "break_expression":
		b.brk(s, b.labelOf(s))
	case "continue_statement", "continue_expression":
		b.cont(s, b.labelOf(s))
	case "jump_expression": // Kotlin's return, throw, break and continue
		b.jump(s)
	case "labeled_statement":
		name := labelName(b.t.Text(s.ChildByFieldName("label")))
		body := s.ChildByFieldName("body")
		if name == "" && s.NamedChildCount() > 0 { // Java's: (labeled_statement (identifier) statement)
			name = b.t.Text(s.NamedChild(0))
		}
		if body == nil && s.NamedChildCount() > 1 {
			body = s.NamedChild(int(s.NamedChildCount()) - 1)
		}
		b.label(name, s)
		if body != nil {
			b.stmt(body)
		}
	case "label": // Kotlin's outer@ before the loop it names
		b.label(labelName(b.t.Text(s)), s)
	case "goto_statement": // C's and C#'s
		b.gotoStmt(s)
	case "if_statement", "if_expression":
		b.ifStmt(s)
	case "for_statement":
		b.forStmt(s, label)
	case "for_in_statement", "enhanced_for_statement", "foreach_statement", "for_range_loop", "for_expression":
		b.loop(StepRange, b.head(s, s.ChildByFieldName("body")), s, label, true, s.ChildByFieldName("body"), nil)
	case "while_statement", "while_expression":
		body := s.ChildByFieldName("body")
		if body == nil { // Kotlin's: (while_statement condition body)
			body = LastNamed(s)
		}
		b.loop(StepLoop, b.head(s, body), s, label, true, body, s.ChildByFieldName("alternative"))
	case "loop_expression": // Rust's loop: no condition, left by break or return
		b.loop(StepLoop, "loop", s, b.loopLabel(s, label), false, s.ChildByFieldName("body"), nil)
	case "do_statement", "do_while_statement":
		b.doStmt(s, label)
	case "switch_statement", "switch_expression", "match_statement", "match_expression", "when_expression":
		b.arms(s, label)
	case "try_statement", "try_expression", "try_with_resources_statement":
		b.tryStmt(s)
	case "with_statement", "using_statement", "lock_statement", "synchronized_statement", "fixed_statement":
		body := s.ChildByFieldName("body")
		if body == nil {
			body = LastNamed(s)
		}
		b.step(StepWith, b.head(s, body), s)
		b.body(body)
	default:
		b.other(s)
	}
}

// other is any other statement: a docstring is none; a disposable held to the end of the
// block (using), a statement that awaits, propagates an error (Rust's ?) or panics is a step
// of its own; the rest join a block.
func (b *logicBuilder) other(s *Node) {
	if s.Type() == "expression_statement" && s.NamedChildCount() == 1 && s.NamedChild(0).Type() == "string" {
		return // a docstring or a directive ('use strict'): nothing runs
	}
	text := b.text(s)
	switch {
	case strings.HasPrefix(text, "using ") || strings.HasPrefix(text, "await using "):
		b.step(StepWith, text, s)
	case b.panics(s):
		b.raise(s)
	case b.has(s, "try_expression"):
		// expr? returns the error from the function, or goes on with the value.
		id := b.step(StepPropagate, text, s)
		b.Returns = append(b.Returns, logicEnd{From: id, Kind: edgeError})
		b.Open = []logicEnd{{From: id, Kind: graph.EdgeNext}}
	case b.has(s, "await", "await_expression"):
		b.step(StepAwait, text, s)
	default:
		b.simple(s)
	}
}

// label is a label step, the target of the loop or switch it names and of gotos.
func (b *logicBuilder) label(name string, s *Node) {
	id := b.step(graph.StepLabel, name, s)
	b.labels[name] = id
	for _, e := range b.gotos[name] {
		b.Edge(e.From, id, e.Kind)
	}
	delete(b.gotos, name)
	b.nextLabel = name
}

// gotoStmt jumps to its label, back to one seen or forward to one waited for.
func (b *logicBuilder) gotoStmt(s *Node) {
	name := b.t.Text(s.ChildByFieldName("label"))
	if name == "" && s.NamedChildCount() > 0 {
		name = b.t.Text(s.NamedChild(0))
	}
	id := b.step(StepGoto, b.text(s), s)
	if to, ok := b.labels[name]; ok {
		b.Edge(id, to, edgeGoto)
	} else if id >= 0 {
		b.gotos[name] = append(b.gotos[name], graph.LogicEnd{From: id, Kind: edgeGoto})
	}
	b.Open = nil
}

// ret ends a path with a return.
func (b *logicBuilder) ret(s *Node) {
	b.step(graph.StepReturn, b.text(s), s)
	b.Returns = append(b.Returns, b.Open...)
	b.Open = nil
}

// raise ends a path with a raise, which only an enclosing finally follows.
func (b *logicBuilder) raise(s *Node) {
	if id := b.step(StepRaise, b.text(s), s); id >= 0 {
		b.raises = append(b.raises, id)
	}
	b.Open = nil
}

func (b *logicBuilder) brk(s *Node, label string) {
	b.step(graph.StepBreak, b.text(s), s)
	if t := b.FindTarget(label, false); t != nil {
		t.Breaks = append(t.Breaks, graph.RelabelEnds(b.Open, graph.EdgeBreak)...)
	}
	b.Open = nil
}

func (b *logicBuilder) cont(s *Node, label string) {
	id := b.step(graph.StepContinue, b.text(s), s)
	if t := b.FindTarget(label, true); t != nil {
		b.Edge(id, t.Loop, graph.EdgeContinue)
	}
	b.Open = nil
}

// jump is Kotlin's jump expression, told apart by its keyword: break@outer names its loop.
func (b *logicBuilder) jump(s *Node) {
	text := b.t.Text(s)
	word, at, _ := strings.Cut(strings.Fields(text + " ")[0], "@")
	switch word {
	case "return":
		b.ret(s)
	case "throw":
		b.raise(s)
	case "break":
		b.brk(s, at)
	case "continue":
		b.cont(s, at)
	default:
		b.simple(s)
	}
}

// panics reports a call of Rust's panic!, unreachable!, todo! or unimplemented! as the
// statement: it ends the path as a raise does.
func (b *logicBuilder) panics(s *Node) bool {
	n := s
	if n.Type() == "expression_statement" && n.NamedChildCount() == 1 {
		n = n.NamedChild(0)
	}
	if n.Type() != "macro_invocation" {
		return false
	}
	switch b.t.Text(n.ChildByFieldName("macro")) {
	case "panic", "unreachable", "todo", "unimplemented":
		return true
	}
	return false
}

// labelName is a loop label as break and continue name it: 'outer and outer@ are outer.
func labelName(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "'"), "@")
}

// loopLabel is the label a Rust loop carries as a child ('outer: loop), else the one a
// labeled statement gave it.
func (b *logicBuilder) loopLabel(s *Node, label string) string {
	b.t.Children(s, func(c *Node) {
		if c.Type() == "label" {
			label = labelName(b.t.Text(c))
		}
	})
	return label
}

// has reports whether a statement holds a node of one of the types, outside any function
// or closure it defines.
func (b *logicBuilder) has(n *Node, types ...string) bool {
	found := false
	b.t.Walk(n, func(c, _ *Node) bool {
		switch {
		case slices.Contains(types, c.Type()):
			found = true
		case isFunction(c.Type()):
			return false
		}
		return !found
	})
	return found
}

// isFunction says a node type defines a function or class whose body runs later.
func isFunction(typ string) bool {
	switch typ {
	case "function_definition", "lambda", "arrow_function", "function_expression", "function", "class_definition", "class",
		"closure_expression", "lambda_expression", "lambda_literal", "anonymous_function", "anonymous_method_expression",
		"function_item", "local_function_statement", "async_block", "token_tree":
		return true
	}
	return false
}

// labelOf is the label a break or continue names: a field (ECMAScript), an identifier
// (Java) or a label (Rust).
func (b *logicBuilder) labelOf(s *Node) string {
	if l := s.ChildByFieldName("label"); l != nil {
		return labelName(b.t.Text(l))
	}
	name := ""
	rust := strings.HasSuffix(s.Type(), "_expression") // break 'a value: the value is no label
	b.t.Children(s, func(c *Node) {
		if c.Type() == "label" || c.Type() == "identifier" && !rust {
			name = labelName(b.t.Text(c))
		}
	})
	return name
}

// simple joins a statement to the current block step, or starts one.
func (b *logicBuilder) simple(s *Node) { b.Simple(b.text(s), Line(s)) }

// ifStmt: Python's if/elif/else and the C family's if/else if/else chain their conditions;
// Kotlin's if is read by position (condition, then, else), having no fields.
func (b *logicBuilder) ifStmt(s *Node) {
	cons := s.ChildByFieldName("consequence")
	var alts []*Node
	b.t.ChildFields(s, func(c *Node, field string) {
		if field == "alternative" {
			alts = append(alts, c)
		}
	})
	if cons == nil && s.Type() == "if_expression" {
		var bodies []*Node
		b.t.Children(s, func(c *Node) {
			if c.Type() == "control_structure_body" {
				bodies = append(bodies, c)
			}
		})
		if len(bodies) > 0 {
			cons, alts = bodies[0], bodies[1:]
		}
	}
	cond := b.step(StepCondition, b.head(s, cons), s)
	b.Open = []logicEnd{{From: cond, Kind: graph.EdgeTrue}}
	b.body(cons)
	ends := b.Open
	b.Open = []logicEnd{{From: cond, Kind: graph.EdgeFalse}}
	b.Block = -1
	for _, alt := range alts {
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
		default: // the else statement itself (Java, C#, Kotlin)
			b.body(alt)
		}
	}
	b.Open = append(ends, b.Open...)
	b.Block = -1
}

// forStmt: a C-style for (init; cond; step), which may lack all three, or Python's for a in xs
// with its else, or Kotlin's for (x in xs).
func (b *logicBuilder) forStmt(s *Node, label string) {
	body := s.ChildByFieldName("body")
	switch {
	case s.ChildByFieldName("left") != nil: // Python
		b.loop(StepRange, b.head(s, body), s, label, true, body, s.ChildByFieldName("alternative"))
	case body == nil: // Kotlin
		body = LastNamed(s)
		b.loop(StepRange, b.head(s, body), s, label, true, body, nil)
	default:
		init := s.ChildByFieldName("initializer")
		if init == nil {
			init = s.ChildByFieldName("init")
		}
		if init != nil {
			b.simple(init)
		}
		cond := s.ChildByFieldName("condition")
		text := "for"
		if cond != nil {
			text = "for " + strings.TrimSuffix(b.text(cond), ";")
		}
		b.loop(StepLoop, text, s, label, cond != nil, body, nil)
	}
}

// loop builds a loop; a Python loop's else runs when the loop ends without a break.
func (b *logicBuilder) loop(kind, text string, s *Node, label string, hasCond bool, body, orElse *Node) {
	head := b.step(kind, text, s)
	t := &logicTarget{Label: b.loopLabel(s, label), Loop: head}
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
	body, cond := s.ChildByFieldName("body"), s.ChildByFieldName("condition")
	if body == nil && s.NamedChildCount() >= 2 { // Kotlin's: (do_while_statement body condition)
		body, cond = s.NamedChild(0), LastNamed(s)
	}
	head := b.step(StepLoop, "do", s)
	t := &logicTarget{Label: label, Loop: head}
	b.Targets = append(b.Targets, t)
	b.body(body)
	b.Targets = b.Targets[:len(b.Targets)-1]
	c := b.step(StepCondition, "while "+b.text(cond), cond)
	b.Edge(c, head, graph.EdgeLoopBack)
	b.Open = append([]logicEnd{{From: c, Kind: graph.EdgeFalse}}, t.Breaks...)
	b.Block = -1
}

// arm is one case of a switch, match or when: its label, whether it is taken when no other
// is (default, _, else), and its statements.
type arm struct {
	at    *Node
	label string
	deflt bool
	body  []*Node
}

// arms builds a switch, match or when. The case tests chain in order. In the C family (and
// ECMAScript) a case body that does not leave falls through to the next one, default is taken
// from the last test's false edge wherever it stands, and break leaves the switch; a match's
// or when's arms never fall through, a wildcard arm always matches, and break there leaves
// the loop around it.
func (b *logicBuilder) arms(s *Node, label string) {
	arms, bodyNode, falls := b.armsOf(s)
	b.step(StepSwitch, strings.TrimSpace(strings.TrimSuffix(b.head(s, bodyNode), "{")), s)
	isSwitch := strings.HasPrefix(s.Type(), "switch")
	t := &logicTarget{Label: label, Loop: -1}
	if isSwitch {
		b.Targets = append(b.Targets, t)
	}
	tests := b.Open
	var fall, ends []logicEnd
	deflt := -1
	for _, a := range arms {
		if a.deflt && falls {
			b.Open = nil // reached from the last test, wherever default stands
			deflt = b.step(StepCase, a.label, a.at)
			b.Open = append([]logicEnd{{From: deflt, Kind: graph.EdgeNext}}, fall...)
		} else {
			b.Open = tests
			id := b.step(StepCase, a.label, a.at)
			tests = []logicEnd{{From: id, Kind: graph.EdgeFalse}}
			if a.deflt {
				tests = nil // the wildcard always matches
			}
			b.Open = append([]logicEnd{{From: id, Kind: graph.EdgeTrue}}, fall...)
		}
		b.Block = -1
		entered := slices.Clone(b.Open)
		for _, st := range a.body {
			b.body(st)
		}
		if !falls {
			ends = append(ends, b.Open...)
			continue
		}
		fall = b.Open
		if !slices.Equal(b.Open, entered) {
			// A body that ran and did not leave falls through; an empty one (case 1:
			// case 2:) passes its test's own edge on.
			fall = graph.RelabelEnds(b.Open, edgeFallthrough)
		}
	}
	if falls {
		ends = fall
		if deflt >= 0 {
			for _, e := range tests {
				b.Edge(e.From, deflt, e.Kind)
			}
			tests = nil
		}
		ends = graph.RelabelEnds(append(ends, tests...), graph.EdgeNext)
		tests = nil
	}
	if isSwitch {
		b.Targets = b.Targets[:len(b.Targets)-1]
	}
	b.Open = append(append(ends, tests...), t.Breaks...)
	b.Block = -1
}

// armsOf reads the arms of each grammar's switch, match or when; bodyNode is where the
// header ends, and falls says the arms fall through.
func (b *logicBuilder) armsOf(s *Node) (arms []arm, bodyNode *Node, falls bool) {
	bodyNode = s.ChildByFieldName("body")
	add := func(at, first *Node, deflt bool, body []*Node) {
		label := b.text(at)
		if first != nil {
			label = b.head(at, first)
		}
		label = strings.TrimSpace(strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(label, "{"), " ->"), " =>"), ":"))
		arms = append(arms, arm{at: at, label: label, deflt: deflt, body: body})
	}
	switch s.Type() {
	case "match_statement": // Python
		b.t.Walk(bodyNode, func(c, _ *Node) bool {
			if c.Type() != "case_clause" {
				return c.Type() == "block"
			}
			cons := c.ChildByFieldName("consequence")
			add(c, cons, b.head(c, cons) == "case _", []*Node{cons})
			return false
		})
		return arms, bodyNode, false
	case "match_expression": // Rust
		b.t.Children(bodyNode, func(c *Node) {
			if c.Type() == "match_arm" {
				v := c.ChildByFieldName("value")
				add(c, v, b.t.Text(c.ChildByFieldName("pattern")) == "_", []*Node{v})
			}
		})
		return arms, bodyNode, false
	case "when_expression": // Kotlin
		b.t.Children(s, func(c *Node) {
			if c.Type() != "when_entry" {
				return
			}
			if bodyNode == nil {
				bodyNode = c
			}
			var body *Node
			conds := 0
			b.t.Children(c, func(x *Node) {
				switch x.Type() {
				case "when_condition":
					conds++
				case "control_structure_body":
					body = x
				}
			})
			add(c, body, conds == 0, []*Node{body})
		})
		return arms, bodyNode, false
	}
	falls = true
	b.t.Children(bodyNode, func(c *Node) {
		switch c.Type() {
		case "switch_case", "switch_default": // ECMAScript
			var body []*Node
			b.t.ChildFields(c, func(x *Node, field string) {
				if field == "body" {
					body = append(body, x)
				}
			})
			label := "default"
			if v := c.ChildByFieldName("value"); v != nil {
				label = "case " + b.text(v)
			}
			arms = append(arms, arm{at: c, label: label, deflt: c.Type() == "switch_default", body: body})
		case "switch_section", "switch_block_statement_group", "case_statement", "switch_rule":
			// C#'s, Java's and C++'s: labels (patterns, switch_label, C++'s value) then
			// statements; a C# section without a label and C++'s case without a value
			// are default, as is Java's default label.
			var body []*Node
			labels, deflt := 0, false
			b.t.ChildFields(c, func(x *Node, field string) {
				switch {
				case field == "value" || x.Type() == "switch_label" || c.Type() == "switch_section" && !isStatement(x.Type()):
					labels++
					deflt = deflt || strings.HasPrefix(b.t.Text(x), "default")
				default:
					body = append(body, x)
				}
			})
			if labels == 0 {
				deflt = true
			}
			if c.Type() == "switch_rule" {
				falls = false // Java's case X -> ...
			}
			var first *Node
			if len(body) > 0 {
				first = body[0]
			}
			add(c, first, deflt, body)
		}
	})
	return arms, bodyNode, falls
}

// isStatement says a node type is a statement (a C# switch section's, after its labels).
func isStatement(typ string) bool {
	return strings.HasSuffix(typ, "_statement") || isBlock(typ)
}

// tryStmt: the body, each handler reached from the try by an exception edge, Python's else
// after the body, then finally, which every way out of them reaches. Java's resources are
// held (a with step) around it all.
func (b *logicBuilder) tryStmt(s *Node) {
	returns, raises := len(b.Returns), len(b.raises)
	if res := s.ChildByFieldName("resources"); res != nil {
		b.step(StepWith, "try "+b.text(res), res)
	}
	try := b.step(StepTry, "try", s)
	body := s.ChildByFieldName("body")
	if body == nil { // Kotlin's try { ... }: its statements
		body = b.blockOf(s)
	}
	b.body(body)
	bodyEnds := b.Open
	var handled []logicEnd
	var orElse, final *Node
	b.t.Children(s, func(c *Node) {
		switch c.Type() {
		case "except_clause", "except_group_clause", "catch_clause", "catch_block":
			b.Open = []logicEnd{{From: try, Kind: edgeException}}
			body := c.ChildByFieldName("body")
			if body == nil {
				body = b.blockOf(c)
			}
			b.step(StepHandler, strings.TrimSpace(strings.TrimSuffix(b.head(c, body), "{")), c)
			b.body(body)
			handled = append(handled, b.Open...)
		case "else_clause":
			orElse = c
		case "finally_clause", "finally_block":
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
		if body == nil && isBlock(x.Type()) {
			body = x
		}
	})
	return body
}
