package problem

import (
	"strings"
	"testing"
)

// The entry for problems left out of a full list is an error only when errors were left out.
func TestTooManyProblemsIsAnErrorOnlyForErrors(t *testing.T) {
	for _, tc := range []struct {
		name             string
		warnings, errors int
		want             Severity
	}{
		{"warnings only", 5, 0, SeverityWarning},
		{"an error left out", 3, 3, SeverityError},
	} {
		l := List{Limit: 2}
		for range tc.warnings {
			l.Add(Warn(DanglingLink, Location{Path: "a.md"}, "w"))
		}
		for range tc.errors {
			l.Add(New(DanglingLink, Location{Path: "b.md"}, "e"))
		}
		ps := l.Problems()
		last := ps[len(ps)-1]
		if last.Code != TooManyProblems || last.Severity != tc.want {
			t.Errorf("%s: last %v, want too_many_problems of severity %s", tc.name, last, tc.want)
		}
		if got := len(Errors(ps)) > 0; got != (tc.errors > 0) {
			t.Errorf("%s: errors reported %v", tc.name, got)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"serch", []string{"search", "sync", "status"}, ` (did you mean "search"?)`},
		{"fnuc", []string{"func", "file"}, ` (did you mean "func"?)`},
		{"depnds_on", []string{"depends_on", "documents"}, ` (did you mean "depends_on"?)`},
		{"Requirements", []string{"requirements"}, ` (did you mean "requirements"?)`},
		{"xyz", []string{"search", "sync"}, ""},
		{"a", []string{"b"}, ""},
	} {
		if got := Suggest(tc.word, tc.candidates); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{{0, "error", "0 errors"}, {1, "error", "1 error"}, {2, "warning", "2 warnings"}, {1, "node", "1 node"}} {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}

// A remediation is read by the user of an installed binary, whose project is not DocForge's
// repository: it names commands and help topics, never a file of that repository.
func TestRemediationsNameNoRepositoryFile(t *testing.T) {
	for _, c := range All() {
		if r := Describe(c).Remediation; strings.Contains(r, "docs/") || strings.Contains(r, ".md") {
			t.Errorf("%s: remediation names a repository file: %q", c, r)
		}
	}
}
