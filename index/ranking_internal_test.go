package index

import (
	"slices"
	"testing"
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
		got := appendVarint(nil, tc.v)
		if !slices.Equal(got, tc.want) {
			t.Errorf("appendVarint(%d) = %x, want %x", tc.v, got, tc.want)
		}
		rec := append(appendVarint(nil, 5), append(got, 0x01)...)
		if back := decodeVarints(rec); !slices.Equal(back, []uint64{5, tc.v, 1}) {
			t.Errorf("decodeVarints(%x) = %v, want [5 %d 1]", rec, back, tc.v)
		}
	}
}

// The phrases of the expressions this package builds, in FTS5's order, each as a query of
// its own with its column filter and prefix star.
func TestFTSPhrases(t *testing.T) {
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
		if got := ftsPhrases(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("ftsPhrases(%s) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestDoubledWeights(t *testing.T) {
	if got, want := doubledWeights(), "6, 20, 10, 6, 2, 0.8"; got != want {
		t.Errorf("doubledWeights() = %q, want %q", got, want)
	}
}
