package index

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
)

// The headings and list columns are written by hand; they must read back as json.Marshal
// wrote them, escapes included.
func TestColumnsJSONIsEncodingJSONs(t *testing.T) {
	for _, hs := range [][]graph.Heading{
		nil,
		{{Level: 1, Text: "Title", Anchor: "title", Line: 3}},
		{{Level: 2, Text: `Quotes "q" <b> & \ é` + "\u2028\t\x01\xff", Anchor: "quotes-q-b", Line: 10}, {Level: 6, Text: "", Anchor: "", Line: 0}},
	} {
		want, _ := json.Marshal(hs)
		if hs == nil {
			want = []byte("[]")
		}
		if got := headingsJSON(hs); got != string(want) {
			t.Errorf("headingsJSON(%+v) = %s, want %s", hs, got, want)
		}
	}
	for _, ss := range [][]string{nil, {"a"}, {"x<y>", `"q"`, "\xfe", "é"}} {
		want, _ := json.Marshal(ss)
		if ss == nil {
			want = []byte("[]")
		}
		if got := jsonList(ss); got != string(want) {
			t.Errorf("jsonList(%q) = %s, want %s", ss, got, want)
		}
	}
}

// Every diff item is encoded by hand for the full collection hash; the encoding must be
// json.Marshal's, for every shape of item and every escape.
func TestDiffItemJSONIsEncodingJSONs(t *testing.T) {
	odd := `"q" <b> & \ é` + "\u2028\t\x01\xff"
	rec := func(s string, tags []string) *graph.Record {
		return &graph.Record{ID: "n" + s, Kind: s, Family: "f", Title: s, Status: "", Authority: s, Tags: tags, Language: "en",
			Capabilities: nil, SourcePath: "docs/" + s + ".md", Anchor: s, ContentHash: "sha256:" + s}
	}
	for _, it := range []DiffItem{
		{Type: "node", Change: "added", NodeID: "a", After: rec("a", nil)},
		{Type: "node", Change: "removed", NodeID: odd, Before: rec(odd, []string{})},
		{Type: "node", Change: "changed", NodeID: "c", Fields: []string{"title", "tags"}, Before: rec("c", []string{"x", odd}), After: rec("c2", []string{"y"})},
		{Type: "node", Change: "changed", NodeID: "d", Fields: []string{}, Before: rec("d", nil), After: rec("d", nil)},
		{Type: "edge", Change: "added", Edge: &graph.Edge{Source: "a", Relation: "depends_on", Target: odd}},
		{Type: "edge", Change: "removed", Edge: &graph.Edge{}},
		{},
	} {
		want, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		if got := it.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON = %s\nwant           %s", got, want)
		}
	}
}

// A cold build's tag and capability rows are written together at the end, many a statement:
// every row arrives once, across statement boundaries, and a repeated row is ignored as the
// insert a node at a time ignored it.
func TestLabelsAreWrittenOnceEach(t *testing.T) {
	conn := newTestSegment(t)
	w := &writer{conn: conn, labels: &labelRows{}}
	want := map[string]int{}
	for k := range 2*rowsPerInsert + 5 {
		tag := fmt.Sprint("t", k%7)
		w.labels.tags = append(w.labels.tags, labelRow{tag, int64(k)})
		want[tag]++
	}
	w.labels.tags = append(w.labels.tags, labelRow{"t0", 0}) // a repeat
	w.labels.caps = append(w.labels.caps, labelRow{"c", 1})
	if err := w.insertLabels(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	err := sqlitex.Execute(conn, `SELECT tag, count(*) FROM node_tags GROUP BY tag`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error { got[s.ColumnText(0)] = s.ColumnInt(1); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("node_tags rows by tag %v, want %v", got, want)
	}
	var caps int64
	if err := execInt(conn, `SELECT count(*) FROM node_caps`, &caps); err != nil || caps != 1 {
		t.Errorf("node_caps: %d rows (%v), want 1", caps, err)
	}
}
