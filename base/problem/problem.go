package problem

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity says whether a problem blocks publication.
type Severity string

const (
	// SeverityError problems block index publication and make validation fail.
	SeverityError Severity = "error"
	// SeverityWarning problems are reported but do not block anything.
	SeverityWarning Severity = "warning"
	// SeverityInfo problems are what DocForge could not do rather than what the user got
	// wrong (a parser's limit on a file its compiler may accept): validation lists them, a
	// sync does not repeat them.
	SeverityInfo Severity = "info"
)

// Location is a position in a project file. Path is slash-separated and relative to the project
// root; Line and Column are 1-based, and zero when unknown.
type Location struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (l Location) String() string {
	switch {
	case l.Line == 0:
		return l.Path
	case l.Column == 0:
		return fmt.Sprintf("%s:%d", l.Path, l.Line)
	}
	return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column)
}

// Problem is one reported issue with a stable code, where it is, and what to do.
type Problem struct {
	Code        Code     `json:"code"`
	Severity    Severity `json:"severity"`
	Location             // where the problem is; Path is empty for project-wide problems
	Message     string   `json:"message"`
	Remediation string   `json:"remediation"`
	// NodeID names the node concerned, when there is one.
	NodeID string `json:"node_id,omitempty"`
	// Related lists other places involved, such as the first definition of a duplicate ID.
	Related []Location `json:"related,omitempty"`
}

// New returns an error-severity problem with the code's default remediation.
func New(c Code, at Location, format string, args ...any) Problem {
	return Problem{Code: c, Severity: SeverityError, Location: at, Message: fmt.Sprintf(format, args...),
		Remediation: Describe(c).Remediation}
}

// Warn returns a warning-severity problem with the code's default remediation.
func Warn(c Code, at Location, format string, args ...any) Problem {
	p := New(c, at, format, args...)
	p.Severity = SeverityWarning
	return p
}

// Note returns an info-severity problem with the code's default remediation.
func Note(c Code, at Location, format string, args ...any) Problem {
	p := New(c, at, format, args...)
	p.Severity = SeverityInfo
	return p
}

func (p Problem) String() string {
	where := p.Location.String()
	if where == "" {
		where = "project"
	}
	return fmt.Sprintf("%s: %s %s: %s", where, p.Severity, p.Code, p.Message)
}

// DefaultLimit bounds how many problems one validation reports.
const DefaultLimit = 1000

// List collects problems up to a bound; the zero value has DefaultLimit.
type List struct {
	Limit   int
	items   []Problem
	dropped int
	// droppedErrors counts the dropped problems of error severity.
	droppedErrors int
	errors        int
}

// Add records p, or counts it as dropped when the list is full.
func (l *List) Add(p Problem) {
	if p.Severity == SeverityError {
		l.errors++
	}
	limit := l.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(l.items) >= limit {
		l.dropped++
		if p.Severity == SeverityError {
			l.droppedErrors++
		}
		return
	}
	l.items = append(l.items, p)
}

// AddAll records each problem of ps.
func (l *List) AddAll(ps []Problem) {
	for _, p := range ps {
		l.Add(p)
	}
}

// Errors reports how many error-severity problems were added, including dropped ones.
func (l *List) Errors() int { return l.errors }

// Len reports how many problems were added, including dropped ones.
func (l *List) Len() int { return len(l.items) + l.dropped }

// Problems returns the kept problems sorted by path, line, column and code, followed by a
// too_many_problems entry when some were dropped.
func (l *List) Problems() []Problem {
	out := slices.Clone(l.items)
	Sort(out)
	switch {
	case l.droppedErrors > 0:
		out = append(out, New(TooManyProblems, Location{}, "%d more problems were not reported (%d of them errors)", l.dropped, l.droppedErrors))
	case l.dropped > 0:
		// Only warnings were left out: the entry says so, and makes nothing invalid.
		out = append(out, Warn(TooManyProblems, Location{}, "%d more warnings were not reported", l.dropped))
	}
	return out
}

// Sort orders problems deterministically: by path, line, column, code, then message.
func Sort(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
	})
}

// Errors returns the problems of error severity, the ones that block publication.
func Errors(probs []Problem) []Problem { return OfSeverity(probs, SeverityError) }

// OfSeverity returns the problems of severity s, in order.
func OfSeverity(probs []Problem, s Severity) []Problem {
	var out []Problem
	for _, p := range probs {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}
