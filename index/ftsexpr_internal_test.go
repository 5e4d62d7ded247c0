package index

import (
	"slices"
	"testing"
)

// A phrase under a node of the expression that does not match a row does not count in its
// rank.
func TestExpressionsMaskPhrasesOfBranchesThatFail(t *testing.T) {
	for _, tc := range []struct {
		expr string
		freq []float64 // each phrase's frequency alone, left to right
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
		n, phrases := parseExpr(tc.expr)
		if n == nil || len(phrases) != len(tc.freq) {
			t.Errorf("%s: parsed %v with %d phrases, want %d", tc.expr, n, len(phrases), len(tc.freq))
			continue
		}
		if got := n.counted(tc.freq); !slices.Equal(got, tc.want) {
			t.Errorf("%s over %v: counts %v, want %v", tc.expr, tc.freq, got, tc.want)
		}
	}
	for _, bad := range []string{`"a" OR`, `("a"`, `a`, `"a" ) "b"`, `NOT "a"`} {
		if n, _ := parseExpr(bad); n != nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
