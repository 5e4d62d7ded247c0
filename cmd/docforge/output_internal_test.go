package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
)

// TestProblemSummaryPutsErrorsFirst checks the summary of a long problem list: errors before
// warnings, each grouped by code with its count, most frequent first, and only the first few
// warnings of a code.
func TestProblemSummaryPutsErrorsFirst(t *testing.T) {
	var probs []problem.Problem
	add := func(c problem.Code, sev problem.Severity, n int) {
		for i := range n {
			probs = append(probs, problem.Problem{Code: c, Severity: sev, Location: problem.Location{Path: fmt.Sprintf("docs/%s-%d.md", c, i), Line: 1, Column: 1},
				Message: fmt.Sprintf("%s number %d", c, i), Remediation: "do something"})
		}
	}
	add(problem.DanglingTarget, problem.SeverityWarning, 9)
	add(problem.DuplicateID, problem.SeverityError, 2)
	add(problem.UnknownField, problem.SeverityWarning, 1)
	add(problem.DanglingTarget, problem.SeverityError, 3)
	var b bytes.Buffer
	printProblemSummary(&b, probs)
	out := b.String()
	for _, want := range []string{
		"5 errors:\n  dangling_target (3)\n", "  duplicate_id (2)\n",
		"10 warnings:\n  dangling_target (9), the first 5:\n", "  unknown_field (1)\n",
		"'docforge validate' lists every one\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	order := []string{"5 errors:", "dangling_target (3)", "duplicate_id (2)", "10 warnings:", "dangling_target (9)", "unknown_field (1)"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q not after %d in:\n%s", s, at, out)
		}
		at += i
	}
	if n := strings.Count(out, "warning dangling_target"); n != 5 {
		t.Errorf("%d dangling_target warnings printed, want the first 5:\n%s", n, out)
	}
	if n := strings.Count(out, "error "); n != 5 {
		t.Errorf("%d errors printed, want all 5:\n%s", n, out)
	}
}
