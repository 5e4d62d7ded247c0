package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"github.com/docforge/docforge/base/graph"
)

// Step kinds.
const (
	StepEntry       = graph.StepEntry
	StepBlock       = graph.StepBlock // consecutive simple statements
	StepCondition   = "condition"
	StepLoop        = "loop"
	StepRange       = "range"
	StepSwitch      = "switch"
	StepTypeSwitch  = "type_switch"
	StepCase        = "case"
	StepSelect      = "select"
	StepSelectCase  = "select_case"
	StepDefer       = "defer"
	StepGo          = "go"
	StepReturn      = graph.StepReturn
	StepPanic       = "panic"
	StepLabel       = graph.StepLabel
	StepBreak       = graph.StepBreak
	StepContinue    = graph.StepContinue
	StepGoto        = "goto"
	StepTruncated   = graph.StepTruncated
	StepExit        = graph.StepExit
	edgeNext        = graph.EdgeNext
	edgeTrue        = graph.EdgeTrue
	edgeFalse       = graph.EdgeFalse
	edgeLoopBack    = graph.EdgeLoopBack
	edgeBreak       = graph.EdgeBreak
	edgeContinue    = graph.EdgeContinue
	edgeFallthrough = "fallthrough"
	edgeGoto        = "goto"
)

type (
	end    = graph.LogicEnd
	target = graph.LogicTarget
)

// logicBuilder builds one Go function's Logic from go/ast over the shared core.
type logicBuilder struct {
	graph.LogicBuilder
	fset      *token.FileSet
	src       []byte
	labels    map[string]int
	gotos     map[string][]end // gotos waiting for a label further down
	fall      []end            // a fallthrough waiting for the next case body
	nextLabel string           // label of the statement being entered
}

// buildLogic computes the Logic of one function declaration.
func buildLogic(fset *token.FileSet, src []byte, fd *ast.FuncDecl, limit int) *Logic {
	b := &logicBuilder{LogicBuilder: graph.NewLogicBuilder(limit), fset: fset, src: src, labels: map[string]int{}, gotos: map[string][]end{}}
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		name = receiverType(fd.Recv.List[0].Type) + "." + name
	}
	b.step(StepEntry, name, fd.Pos())
	b.stmts(fd.Body.List)
	var gotos [][]end // gotos to labels never seen: only in code that does not compile
	for _, ends := range b.gotos {
		gotos = append(gotos, ends)
	}
	return b.Finish(b.line(fd.Body.End()), gotos...)
}

func (b *logicBuilder) line(p token.Pos) int { return b.fset.Position(p).Line }

// text returns the source of a node on one line, shortened for a label.
func (b *logicBuilder) text(n ast.Node) string {
	start, end := b.fset.Position(n.Pos()).Offset, b.fset.Position(n.End()).Offset
	if start < 0 || end > len(b.src) || start >= end {
		return ""
	}
	return graph.Label(string(b.src[start:end]))
}

func (b *logicBuilder) step(kind, label string, pos token.Pos) int {
	return b.Step(kind, label, b.line(pos))
}

func (b *logicBuilder) newStep(kind, label string, pos token.Pos) int {
	return b.NewStep(kind, label, b.line(pos))
}

func (b *logicBuilder) stmts(list []ast.Stmt) {
	for _, s := range list {
		if b.Truncated {
			return
		}
		b.stmt(s)
	}
}

func (b *logicBuilder) stmt(s ast.Stmt) {
	label := b.nextLabel
	b.nextLabel = ""
	switch s := s.(type) {
	case *ast.BlockStmt:
		b.stmts(s.List)
	case *ast.EmptyStmt:
	case *ast.ExprStmt:
		if isPanic(s.X) {
			b.step(StepPanic, b.text(s), s.Pos())
			b.Open = nil
			return
		}
		b.simple(s)
	case *ast.AssignStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.DeclStmt:
		b.simple(s)
	case *ast.ReturnStmt:
		b.step(StepReturn, b.text(s), s.Pos())
		b.Returns = append(b.Returns, b.Open...)
		b.Open = nil
	case *ast.DeferStmt:
		b.step(StepDefer, b.text(s), s.Pos())
	case *ast.GoStmt:
		b.step(StepGo, b.text(s), s.Pos())
	case *ast.LabeledStmt:
		id := b.step(StepLabel, s.Label.Name, s.Pos())
		b.labels[s.Label.Name] = id
		for _, e := range b.gotos[s.Label.Name] {
			b.Edge(e.From, id, e.Kind)
		}
		delete(b.gotos, s.Label.Name)
		b.nextLabel = s.Label.Name
		b.stmt(s.Stmt)
	case *ast.BranchStmt:
		b.branch(s)
	case *ast.IfStmt:
		b.ifStmt(s)
	case *ast.ForStmt:
		if s.Init != nil {
			b.simple(s.Init)
		}
		text := "for"
		if s.Cond != nil {
			text = "for " + b.text(s.Cond)
		}
		b.loop(StepLoop, text, s.Pos(), label, s.Cond != nil, s.Body)
	case *ast.RangeStmt:
		b.loop(StepRange, "range "+b.text(s.X), s.Pos(), label, true, s.Body)
	case *ast.SwitchStmt:
		if s.Init != nil {
			b.simple(s.Init)
		}
		text := "switch"
		if s.Tag != nil {
			text = "switch " + b.text(s.Tag)
		}
		b.switchStmt(StepSwitch, text, s.Pos(), label, s.Body)
	case *ast.TypeSwitchStmt:
		if s.Init != nil {
			b.simple(s.Init)
		}
		b.switchStmt(StepTypeSwitch, "switch "+b.text(s.Assign), s.Pos(), label, s.Body)
	case *ast.SelectStmt:
		b.selectStmt(s, label)
	default:
		b.simple(s)
	}
}

// simple appends a statement to the current block step, or starts one.
func (b *logicBuilder) simple(s ast.Stmt) { b.Simple(b.text(s), b.line(s.Pos())) }

func isPanic(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && id.Name == "panic"
}

func (b *logicBuilder) ifStmt(s *ast.IfStmt) {
	if s.Init != nil {
		b.simple(s.Init)
	}
	cond := b.step(StepCondition, "if "+b.text(s.Cond), s.Pos())
	b.Open = []end{{From: cond, Kind: edgeTrue}}
	b.stmts(s.Body.List)
	then := b.Open
	b.Open = []end{{From: cond, Kind: edgeFalse}}
	b.Block = -1
	if s.Else != nil {
		b.stmt(s.Else)
	}
	b.Open = append(then, b.Open...)
	b.Block = -1
}

func (b *logicBuilder) loop(kind, text string, pos token.Pos, label string, hasCond bool, body *ast.BlockStmt) {
	head := b.step(kind, text, pos)
	t := &target{Label: label, Loop: head}
	b.Targets = append(b.Targets, t)
	if hasCond {
		b.Open = []end{{From: head, Kind: edgeTrue}}
	}
	b.stmts(body.List)
	for _, e := range b.Open {
		b.Edge(e.From, head, edgeLoopBack)
	}
	b.Targets = b.Targets[:len(b.Targets)-1]
	b.Open = nil
	if hasCond {
		b.Open = []end{{From: head, Kind: edgeFalse}}
	}
	b.Open = append(b.Open, t.Breaks...)
	b.Block = -1
}

// switchStmt chains the case tests in source order, each false edge leading to the next
// test; the default clause, wherever it stands, is taken from the last test's false edge.
func (b *logicBuilder) switchStmt(kind, text string, pos token.Pos, label string, body *ast.BlockStmt) {
	b.step(kind, text, pos)
	t := &target{Label: label, Loop: -1}
	b.Targets = append(b.Targets, t)
	tests := b.Open // ends leading to the next case test
	var ends []end
	deflt := -1
	for _, clause := range body.List {
		cc := clause.(*ast.CaseClause)
		fall := b.fall
		b.fall = nil
		if cc.List == nil {
			deflt = b.newStep(StepCase, "default", cc.Pos())
			b.Open = append([]end{{From: deflt, Kind: edgeNext}}, fall...)
		} else {
			b.Open = tests
			c := b.step(StepCase, "case "+b.exprs(cc.List), cc.Pos())
			tests = []end{{From: c, Kind: edgeFalse}}
			b.Open = append([]end{{From: c, Kind: edgeTrue}}, fall...)
		}
		b.Block = -1
		b.stmts(cc.Body)
		if b.fall == nil {
			ends = append(ends, b.Open...)
		}
	}
	if deflt >= 0 {
		for _, e := range tests {
			b.Edge(e.From, deflt, e.Kind)
		}
	} else {
		ends = append(ends, tests...)
	}
	b.Targets = b.Targets[:len(b.Targets)-1]
	b.Open = append(ends, t.Breaks...)
	b.Block = -1
}

func (b *logicBuilder) exprs(list []ast.Expr) string {
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = b.text(e)
	}
	return strings.Join(parts, ", ")
}

func (b *logicBuilder) selectStmt(s *ast.SelectStmt, label string) {
	sel := b.step(StepSelect, "select", s.Pos())
	t := &target{Label: label, Loop: -1}
	b.Targets = append(b.Targets, t)
	var ends []end
	for _, clause := range s.Body.List {
		cc := clause.(*ast.CommClause)
		b.Open = []end{{From: sel, Kind: edgeNext}}
		text := "default"
		if cc.Comm != nil {
			text = "case " + b.text(cc.Comm)
		}
		b.step(StepSelectCase, text, cc.Pos())
		b.stmts(cc.Body)
		ends = append(ends, b.Open...)
	}
	b.Targets = b.Targets[:len(b.Targets)-1]
	b.Open = append(ends, t.Breaks...)
	b.Block = -1
}

func (b *logicBuilder) branch(s *ast.BranchStmt) {
	name := ""
	if s.Label != nil {
		name = s.Label.Name
	}
	switch s.Tok {
	case token.FALLTHROUGH:
		b.fall = graph.RelabelEnds(b.Open, edgeFallthrough)
		b.Open = nil
	case token.BREAK:
		b.step(StepBreak, b.text(s), s.Pos())
		if t := b.FindTarget(name, false); t != nil {
			t.Breaks = append(t.Breaks, graph.RelabelEnds(b.Open, edgeBreak)...)
		}
		b.Open = nil
	case token.CONTINUE:
		id := b.step(StepContinue, b.text(s), s.Pos())
		if t := b.FindTarget(name, true); t != nil {
			b.Edge(id, t.Loop, edgeContinue)
		}
		b.Open = nil
	case token.GOTO:
		id := b.step(StepGoto, b.text(s), s.Pos())
		if to, ok := b.labels[name]; ok {
			b.Edge(id, to, edgeGoto)
		} else {
			b.gotos[name] = append(b.gotos[name], end{From: id, Kind: edgeGoto})
		}
		b.Open = nil
	}
}

// FormatLogic renders Logic as text: one line per step, then one per edge.
func FormatLogic(l *Logic) string {
	var sb strings.Builder
	for _, s := range l.Steps {
		fmt.Fprintf(&sb, "s%d %s", s.ID, s.Kind)
		if s.Label != "" {
			fmt.Fprintf(&sb, " %q", s.Label)
		}
		fmt.Fprintf(&sb, " L%d\n", s.Line)
	}
	for _, e := range l.Edges {
		fmt.Fprintf(&sb, "s%d -> s%d %s\n", e.From, e.To, e.Kind)
	}
	if l.Truncated {
		sb.WriteString("truncated\n")
	}
	return sb.String()
}
