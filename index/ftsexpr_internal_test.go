package index

import (
	"slices"
	"testing"
)

// The expressions this package builds parse into trees whose phrases are ftsPhrases' list,
// and a phrase under a node that does not match a row does not count in its rank.
func TestExpressionsMaskPhrasesOfBranchesThatFail(t *testing.T) {
	for _, tc := range []struct {
		expr string
		freq []float64 // each phrase's frequency alone, in ftsPhrases' order
		want []float64 // what counts
	}{
		{`"storage"`, []float64{2}, []float64{2}},
		{`"a" OR "b" OR "c"`, []float64{1, 0, 3}, []float64{1, 0, 3}},
		{`("whole" OR ("a" AND "b" AND "c"))`, []float64{5, 5, 0, 0}, []float64{5, 0, 0, 0}},
		{`("whole" OR ("a" AND "b"))`, []float64{5, 1, 2}, []float64{5, 1, 2}},
		{`("w" OR ("a" AND "b")) AND "log"*`, []float64{0, 1, 1, 3}, []float64{0, 1, 1, 3}},
		{`("w" OR ("a" AND "b")) AND ("v" OR ("c" AND "d"))`, []float64{1, 1, 0, 0, 2, 2}, []float64{1, 0, 0, 0, 2, 2}},
		{`name : "max" AND name : "bytes"`, []float64{10, 10}, []float64{10, 10}},
		{`"a" "b"`, []float64{1, 1}, []float64{1, 1}},
		{`"say ""hi"" or and" OR "x"`, []float64{1, 0}, []float64{1, 0}},
		// A row the whole expression does not match counts nothing.
		{`"a" AND "b"`, []float64{1, 0}, []float64{0, 0}},
	} {
		n := parseExpr(tc.expr)
		if n == nil {
			t.Errorf("%s: not parsed", tc.expr)
			continue
		}
		if got := countPhrases(n); got != len(ftsPhrases(tc.expr)) {
			t.Errorf("%s: %d phrases in the tree, %d listed", tc.expr, got, len(ftsPhrases(tc.expr)))
		}
		if got := n.counted(tc.freq); !slices.Equal(got, tc.want) {
			t.Errorf("%s over %v: counts %v, want %v", tc.expr, tc.freq, got, tc.want)
		}
	}
	for _, bad := range []string{`"a" OR`, `("a"`, `a`, `"a" ) "b"`, `NOT "a"`} {
		if parseExpr(bad) != nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
