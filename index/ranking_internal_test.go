package index

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docforge/docforge/index/fts5seg"
)

// SQLite's varints, as FTS5 writes its records: one byte below 128, big-endian groups of
// seven bits above, and a ninth byte of eight bits for the largest values.
func TestVarints(t *testing.T) {
	for _, tc := range []struct {
		v    uint64
		want []byte
	}{
		{0, []byte{0x00}},
		{127, []byte{0x7f}},
		{128, []byte{0x81, 0x00}},
		{300, []byte{0x82, 0x2c}},
		{1<<56 - 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
		{1 << 56, []byte{0x80, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}},
		{^uint64(0), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	} {
		got := fts5seg.AppendVarint(nil, tc.v)
		if !slices.Equal(got, tc.want) {
			t.Errorf("AppendVarint(%d) = %x, want %x", tc.v, got, tc.want)
		}
		rec := append(fts5seg.AppendVarint(nil, 5), append(got, 0x01)...)
		if back := fts5seg.RowSizes(rec); !slices.Equal(back, []uint64{5, tc.v, 1}) {
			t.Errorf("RowSizes(%x) = %v, want [5 %d 1]", rec, back, tc.v)
		}
	}
}

// The phrases of the expressions this package builds, in FTS5's order, each as a query of
// its own with its column filter and prefix star; and every expression its builders make
// parses.
func TestExpressionPhrases(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`"storage"`, []string{`"storage"`}},
		{`("maxbytesreader" OR ("max" AND "bytes" AND "reader")) AND "log"*`,
			[]string{`"maxbytesreader"`, `"max"`, `"bytes"`, `"reader"`, `"log"*`}},
		{`name : "max" AND name : "bytes"`, []string{`name : "max"`, `name : "bytes"`}},
		{`"say ""hi""" OR "x"`, []string{`"say ""hi"""`, `"x"`}},
		{`"a" "b"`, []string{`"a"`, `"b"`}},
	} {
		if _, got := parseExpr(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("parseExpr(%s) phrases %q, want %q", tc.expr, got, tc.want)
		}
	}
	var built []string
	for _, q := range []string{"storage", "MaxBytesReader log*", "http.Handler", `say "hi" now`, "foo_bar baz", "naïve café", "x y z w"} {
		terms := queryTerms(q)
		built = append(built, ftsQuery(terms, nil, true), ftsQuery(terms, nil, false))
		if nq := nameQuery(q); nq != "" {
			built = append(built, nq)
		}
	}
	// Rank focus (RankAny): quoted terms, OR'ed or side by side.
	built = append(built, quoteTerm("alpha")+" OR "+quoteTerm("beta"), quoteTerm("alpha")+" "+quoteTerm("beta"))
	for _, expr := range built {
		if expr == "" {
			continue
		}
		if n, _ := parseExpr(expr); n == nil {
			t.Errorf("%s: built by this package but not parsed", expr)
		}
	}
}

// The weights of a phrase's ranks: as searched, twice them, and both without the code
// column, whose weight alone is not whole (phraseFreq rebuilds FTS5's sum on that).
func TestBM25Weights(t *testing.T) {
	p := newBM25()
	want := [4]string{"3, 10, 5, 3, 1, 0.4", "6, 20, 10, 6, 2, 0.8", "3, 10, 5, 3, 1, 0", "6, 20, 10, 6, 2, 0"}
	if p.weights != want || p.code != 0.4 {
		t.Errorf("weights %q, code %v; want %q and 0.4", p.weights, p.code, want)
	}
	ws := strings.Split(searchWeights, ",")
	for _, w := range ws[:len(ws)-1] {
		if f, err := strconv.ParseFloat(strings.TrimSpace(w), 64); err != nil || f != math.Trunc(f) {
			t.Errorf("weight %s is not whole: only the code column's may be", w)
		}
	}
}

// FTS5 adds a row's weights hit by hit, so three hits in the code column weigh
// 0.4+0.4+0.4, not 1.2.
func TestWithCodeSumsAsFTS5(t *testing.T) {
	p := newBM25()
	for _, tc := range []struct {
		whole, total float64
		hits         int
	}{{0, 1.2, 3}, {10, 10.8, 2}, {13, 13, 0}, {0, 0.4, 1}, {3, 5, 5}} {
		want := tc.whole
		for range tc.hits {
			want += 0.4
		}
		if got := p.withCode(tc.whole, tc.total); got != want {
			t.Errorf("withCode(%v, %v) = %.17g, want %.17g", tc.whole, tc.total, got, want)
		}
	}
	if p.withCode(0, 1.2) == 1.2 {
		t.Errorf("the test needs a sum that differs from its rounded value")
	}
}
