package golang

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// Step kinds.
const (
	StepEntry       = "entry"
	StepBlock       = "block" // consecutive simple statements
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
	StepReturn      = "return"
	StepPanic       = "panic"
	StepLabel       = "label"
	StepBreak       = "break"
	StepContinue    = "continue"
	StepGoto        = "goto"
	StepTruncated   = "truncated"
	StepExit        = "exit"
	maxLabelRunes   = 80
	edgeNext        = "next"
	edgeTrue        = "true"
	edgeFalse       = "false"
	edgeLoopBack    = "loop_back"
	edgeBreak       = "break"
	edgeContinue    = "continue"
	edgeFallthrough = "fallthrough"
	edgeGoto        = "goto"
)

// end is a step whose outgoing edge waits for the step that follows it.
type end struct {
	from int
	kind string
}

// target is an enclosing statement that break (and, for loops, continue) may leave.
type target struct {
	label  string
	loop   int // the loop step continue returns to; -1 for switch and select
	breaks []end
}

type logicBuilder struct {
	fset      *token.FileSet
	src       []byte
	limit     int
	steps     []Step
	edges     []LogicEdge
	truncated bool

	open      []end // ends waiting for the next step
	block     int   // the block step simple statements are appended to, or -1
	returns   []end // ends that leave the function normally
	targets   []*target
	labels    map[string]int
	gotos     map[string][]end // gotos waiting for a label further down
	fall      []end            // a fallthrough waiting for the next case body
	nextLabel string           // label of the statement being entered
}

// buildLogic computes the Logic of one function declaration.
func buildLogic(fset *token.FileSet, src []byte, fd *ast.FuncDecl, limit int) *Logic {
	b := &logicBuilder{fset: fset, src: src, limit: max(limit, 4), block: -1, labels: map[string]int{}, gotos: map[string][]end{}}
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		name = receiverType(fd.Recv.List[0].Type) + "." + name
	}
	b.step(StepEntry, name, fd.Pos())
	b.stmts(fd.Body.List)
	if b.truncated {
		b.open = append(b.open, b.returns...)
		b.returns = nil
		b.force(StepTruncated, fmt.Sprintf("more than %d steps", b.limit), fd.Body.End())
	}
	b.open = append(b.open, b.returns...)
	for _, ends := range b.gotos { // gotos to labels never seen: only in code that does not compile
		b.open = append(b.open, ends...)
	}
	b.force(StepExit, "", fd.Body.End())
	slices.SortFunc(b.edges, func(x, y LogicEdge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), strings.Compare(x.Kind, y.Kind))
	})
	return &Logic{Steps: b.steps, Edges: slices.Compact(b.edges), Truncated: b.truncated}
}

func (b *logicBuilder) line(p token.Pos) int { return b.fset.Position(p).Line }

// text returns the source of a node on one line, shortened for a label.
func (b *logicBuilder) text(n ast.Node) string {
	start, end := b.fset.Position(n.Pos()).Offset, b.fset.Position(n.End()).Offset
	if start < 0 || end > len(b.src) || start >= end {
		return ""
	}
	s := strings.Join(strings.Fields(string(b.src[start:end])), " ")
	if r := []rune(s); len(r) > maxLabelRunes {
		s = string(r[:maxLabelRunes-1]) + "…"
	}
	return s
}

// step adds a step fed by every open end and makes it the only open end.
func (b *logicBuilder) step(kind, label string, pos token.Pos) int {
	id := b.newStep(kind, label, pos)
	if id < 0 {
		return id
	}
	for _, e := range b.open {
		b.edge(e.from, id, e.kind)
	}
	b.open = []end{{id, edgeNext}}
	b.block = -1
	return id
}

// newStep adds a step with no incoming edges, or returns -1 once the limit is reached (two
// steps stay reserved for the truncation marker and the exit).
func (b *logicBuilder) newStep(kind, label string, pos token.Pos) int {
	if b.truncated || len(b.steps) >= b.limit-2 {
		b.truncated = true
		return -1
	}
	return b.force(kind, label, pos)
}

func (b *logicBuilder) force(kind, label string, pos token.Pos) int {
	id := len(b.steps)
	b.steps = append(b.steps, Step{ID: id, Kind: kind, Label: label, Line: b.line(pos)})
	if kind == StepTruncated || kind == StepExit {
		for _, e := range b.open {
			b.edge(e.from, id, e.kind)
		}
		b.open = []end{{id, edgeNext}}
	}
	return id
}

func (b *logicBuilder) edge(from, to int, kind string) {
	if from >= 0 && to >= 0 {
		b.edges = append(b.edges, LogicEdge{From: from, To: to, Kind: kind})
	}
}

// relabel returns ends with their edge kind replaced.
func relabel(ends []end, kind string) []end {
	out := make([]end, len(ends))
	for i, e := range ends {
		out[i] = end{e.from, kind}
	}
	return out
}

func (b *logicBuilder) stmts(list []ast.Stmt) {
	for _, s := range list {
		if b.truncated {
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
			b.open = nil
			return
		}
		b.simple(s)
	case *ast.AssignStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.DeclStmt:
		b.simple(s)
	case *ast.ReturnStmt:
		b.step(StepReturn, b.text(s), s.Pos())
		b.returns = append(b.returns, b.open...)
		b.open = nil
	case *ast.DeferStmt:
		b.step(StepDefer, b.text(s), s.Pos())
	case *ast.GoStmt:
		b.step(StepGo, b.text(s), s.Pos())
	case *ast.LabeledStmt:
		id := b.step(StepLabel, s.Label.Name, s.Pos())
		b.labels[s.Label.Name] = id
		for _, e := range b.gotos[s.Label.Name] {
			b.edge(e.from, id, e.kind)
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
func (b *logicBuilder) simple(s ast.Stmt) {
	if b.block >= 0 && len(b.open) == 1 && b.open[0].from == b.block {
		st := &b.steps[b.block]
		if next := st.Label + "; " + b.text(s); len([]rune(next)) <= maxLabelRunes {
			st.Label = next
		} else if !strings.HasSuffix(st.Label, "…") {
			st.Label += "; …"
		}
		return
	}
	id := b.step(StepBlock, b.text(s), s.Pos())
	b.block = id
}

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
	b.open = []end{{cond, edgeTrue}}
	b.stmts(s.Body.List)
	then := b.open
	b.open = []end{{cond, edgeFalse}}
	b.block = -1
	if s.Else != nil {
		b.stmt(s.Else)
	}
	b.open = append(then, b.open...)
	b.block = -1
}

func (b *logicBuilder) loop(kind, text string, pos token.Pos, label string, hasCond bool, body *ast.BlockStmt) {
	head := b.step(kind, text, pos)
	t := &target{label: label, loop: head}
	b.targets = append(b.targets, t)
	if hasCond {
		b.open = []end{{head, edgeTrue}}
	}
	b.stmts(body.List)
	for _, e := range b.open {
		b.edge(e.from, head, edgeLoopBack)
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.open = nil
	if hasCond {
		b.open = []end{{head, edgeFalse}}
	}
	b.open = append(b.open, t.breaks...)
	b.block = -1
}

// switchStmt chains the case tests in source order, each false edge leading to the next
// test; the default clause, wherever it stands, is taken from the last test's false edge.
func (b *logicBuilder) switchStmt(kind, text string, pos token.Pos, label string, body *ast.BlockStmt) {
	b.step(kind, text, pos)
	t := &target{label: label, loop: -1}
	b.targets = append(b.targets, t)
	tests := b.open // ends leading to the next case test
	var ends []end
	deflt := -1
	for _, clause := range body.List {
		cc := clause.(*ast.CaseClause)
		fall := b.fall
		b.fall = nil
		if cc.List == nil {
			deflt = b.newStep(StepCase, "default", cc.Pos())
			b.open = append([]end{{deflt, edgeNext}}, fall...)
		} else {
			b.open = tests
			c := b.step(StepCase, "case "+b.exprs(cc.List), cc.Pos())
			tests = []end{{c, edgeFalse}}
			b.open = append([]end{{c, edgeTrue}}, fall...)
		}
		b.block = -1
		b.stmts(cc.Body)
		if b.fall == nil {
			ends = append(ends, b.open...)
		}
	}
	if deflt >= 0 {
		for _, e := range tests {
			b.edge(e.from, deflt, e.kind)
		}
	} else {
		ends = append(ends, tests...)
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.open = append(ends, t.breaks...)
	b.block = -1
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
	t := &target{label: label, loop: -1}
	b.targets = append(b.targets, t)
	var ends []end
	for _, clause := range s.Body.List {
		cc := clause.(*ast.CommClause)
		b.open = []end{{sel, edgeNext}}
		text := "default"
		if cc.Comm != nil {
			text = "case " + b.text(cc.Comm)
		}
		b.step(StepSelectCase, text, cc.Pos())
		b.stmts(cc.Body)
		ends = append(ends, b.open...)
	}
	b.targets = b.targets[:len(b.targets)-1]
	b.open = append(ends, t.breaks...)
	b.block = -1
}

func (b *logicBuilder) branch(s *ast.BranchStmt) {
	name := ""
	if s.Label != nil {
		name = s.Label.Name
	}
	switch s.Tok {
	case token.FALLTHROUGH:
		b.fall = relabel(b.open, edgeFallthrough)
		b.open = nil
	case token.BREAK:
		b.step(StepBreak, b.text(s), s.Pos())
		if t := b.findTarget(name, false); t != nil {
			t.breaks = append(t.breaks, relabel(b.open, edgeBreak)...)
		}
		b.open = nil
	case token.CONTINUE:
		id := b.step(StepContinue, b.text(s), s.Pos())
		if t := b.findTarget(name, true); t != nil {
			b.edge(id, t.loop, edgeContinue)
		}
		b.open = nil
	case token.GOTO:
		id := b.step(StepGoto, b.text(s), s.Pos())
		if to, ok := b.labels[name]; ok {
			b.edge(id, to, edgeGoto)
		} else {
			b.gotos[name] = append(b.gotos[name], end{id, edgeGoto})
		}
		b.open = nil
	}
}

// findTarget returns the statement a break or continue leaves: the labelled one, or the
// innermost (for continue, the innermost loop).
func (b *logicBuilder) findTarget(label string, loopOnly bool) *target {
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
