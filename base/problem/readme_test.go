package problem_test

import (
	"os"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
)

// TestReadmeListsEveryCode keeps the README's error-code table and the catalogue in step.
func TestReadmeListsEveryCode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range problem.All() {
		info := problem.Describe(c)
		row := "| `" + string(c) + "` | " + info.Summary + " | " + info.Remediation + " |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row for %s:\n%s", c, row)
		}
	}
}

func TestEveryCodeIsDescribedOnce(t *testing.T) {
	seen := map[problem.Code]bool{}
	for _, c := range problem.All() {
		if seen[c] {
			t.Errorf("%s listed twice", c)
		}
		seen[c] = true
		if strings.HasPrefix(problem.Describe(c).Summary, "unrecognised") {
			t.Errorf("%s has no description", c)
		}
	}
}
