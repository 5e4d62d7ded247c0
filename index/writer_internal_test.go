package index

import (
	"encoding/json"
	"testing"

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
