package graph

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The adapters' Logic builders share this core: each step is fed by the ends left open
// before it, a limit cuts the steps short with a truncation marker, simple statements join one
// block step, and break and continue leave to the targets that enclose them. An adapter walks
// its own syntax and calls these.

// Step and edge kinds every builder uses.
const (
	StepEntry     = "entry"
	StepBlock     = "block" // consecutive simple statements
	StepReturn    = "return"
	StepBreak     = "break"
	StepContinue  = "continue"
	StepLabel     = "label"
	StepTruncated = "truncated"
	StepExit      = "exit"

	EdgeNext     = "next"
	EdgeTrue     = "true"
	EdgeFalse    = "false"
	EdgeLoopBack = "loop_back"
	EdgeBreak    = "break"
	EdgeContinue = "continue"

	// MaxLogicLabelRunes bounds a step's label.
	MaxLogicLabelRunes = 80
)

// LogicEnd is a step whose outgoing edge, of Kind, waits for the step that follows it.
type LogicEnd struct {
	From int
	Kind string
}

// LogicTarget is an enclosing statement that break (and, for a loop, continue) may leave.
type LogicTarget struct {
	Label  string
	Loop   int // the step continue returns to; -1 for a switch or select
	Breaks []LogicEnd
}

// LogicBuilder holds one function's Logic while it is built.
type LogicBuilder struct {
	Limit     int
	Steps     []Step
	Edges     []LogicEdge
	Truncated bool
	Open      []LogicEnd // ends waiting for the next step
	Block     int        // the block step simple statements join, or -1
	Returns   []LogicEnd // ends that leave the function normally
	Targets   []*LogicTarget
}

// NewLogicBuilder starts a builder of at most limit steps (at least 4).
func NewLogicBuilder(limit int) LogicBuilder { return LogicBuilder{Limit: max(limit, 4), Block: -1} }

// Step adds a step fed by every open end and makes it the only open end, or returns -1 once
// the limit is reached.
func (b *LogicBuilder) Step(kind, label string, line int) int {
	id := b.NewStep(kind, label, line)
	if id < 0 {
		return id
	}
	for _, e := range b.Open {
		b.Edge(e.From, id, e.Kind)
	}
	b.Open = []LogicEnd{{id, EdgeNext}}
	b.Block = -1
	return id
}

// NewStep adds a step with no incoming edges, or returns -1 once the limit is reached (two
// steps stay reserved for the truncation marker and the exit).
func (b *LogicBuilder) NewStep(kind, label string, line int) int {
	if b.Truncated || len(b.Steps) >= b.Limit-2 {
		b.Truncated = true
		return -1
	}
	return b.Force(kind, label, line)
}

// Force adds a step whatever the limit; the truncation marker and the exit take every open
// end.
func (b *LogicBuilder) Force(kind, label string, line int) int {
	id := len(b.Steps)
	b.Steps = append(b.Steps, Step{ID: id, Kind: kind, Label: label, Line: line})
	if kind == StepTruncated || kind == StepExit {
		for _, e := range b.Open {
			b.Edge(e.From, id, e.Kind)
		}
		b.Open = []LogicEnd{{id, EdgeNext}}
	}
	return id
}

// Edge adds an edge between two steps that exist.
func (b *LogicBuilder) Edge(from, to int, kind string) {
	if from >= 0 && to >= 0 {
		b.Edges = append(b.Edges, LogicEdge{From: from, To: to, Kind: kind})
	}
}

// RelabelEnds returns ends with their edge kind replaced.
func RelabelEnds(ends []LogicEnd, kind string) []LogicEnd {
	out := make([]LogicEnd, len(ends))
	for i, e := range ends {
		out[i] = LogicEnd{e.From, kind}
	}
	return out
}

// Simple joins a simple statement's text to the current block step, or starts one.
func (b *LogicBuilder) Simple(text string, line int) {
	if b.Block >= 0 && len(b.Open) == 1 && b.Open[0].From == b.Block {
		st := &b.Steps[b.Block]
		if next := st.Label + "; " + text; len([]rune(next)) <= MaxLogicLabelRunes {
			st.Label = next
		} else if !strings.HasSuffix(st.Label, "…") {
			st.Label += "; …"
		}
		return
	}
	b.Block = b.Step(StepBlock, text, line)
}

// FindTarget returns the statement a break or continue leaves: the labelled one, or the
// innermost (for continue, the innermost loop).
func (b *LogicBuilder) FindTarget(label string, loopOnly bool) *LogicTarget {
	for i := len(b.Targets) - 1; i >= 0; i-- {
		t := b.Targets[i]
		if label != "" && t.Label != label {
			continue
		}
		if loopOnly && t.Loop < 0 {
			if label != "" {
				return nil
			}
			continue
		}
		return t
	}
	return nil
}

// Finish ends the Logic at line: the truncation marker when the limit was reached, then the
// exit, which every return and open end reaches (and more, ends waiting elsewhere).
func (b *LogicBuilder) Finish(line int, more ...[]LogicEnd) *Logic {
	if b.Truncated {
		b.Open = append(b.Open, b.Returns...)
		b.Returns = nil
		b.Force(StepTruncated, "more than "+strconv.Itoa(b.Limit)+" steps", line)
	}
	b.Open = append(b.Open, b.Returns...)
	for _, m := range more {
		b.Open = append(b.Open, m...)
	}
	b.Force(StepExit, "", line)
	slices.SortFunc(b.Edges, func(x, y LogicEdge) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.To, y.To), strings.Compare(x.Kind, y.Kind))
	})
	return &Logic{Steps: b.Steps, Edges: slices.Compact(b.Edges), Truncated: b.Truncated}
}

// Label is a text on one line, shortened for a step's label.
func Label(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > MaxLogicLabelRunes {
		s = string(r[:MaxLogicLabelRunes-1]) + "…"
	}
	return s
}
