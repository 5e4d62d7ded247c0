package graph

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// A document's content hash is its head's encoding with the body spliced in; the hashes are
// pinned to those of the encoding done whole (the code before the splice), on bodies the JSON
// encoder escapes in every way it can: HTML characters, quotes, control characters, line
// separators, invalid UTF-8.
func TestContentHashPinned(t *testing.T) {
	edges := []Edge{{Source: "b", Relation: "depends_on", Target: "a"}, {Source: "b", Relation: "links_to", Target: "<c>"}}
	for _, tc := range []struct {
		node             *Node
		hash, head, body string
	}{
		{&Node{Record: Record{ID: "a", Kind: "page", Family: "docs", Title: "A"}},
			"sha256:2a32144c22f4f13b162e487e92011c8128a8532419a61c0bdd6f46354ffffacd", "6cd38c8ce2f809ad", "11c486407490f1ee"},
		{&Node{Record: Record{ID: "b", Kind: "req", Family: "requirements", Title: `Quotes "and" <tags> & more`, Status: "draft", Authority: "x",
			Tags: []string{"t1", "<t2>"}, Language: "en", Capabilities: []string{"c"}},
			Body: "<a href=\"x\">&amp;</a>\n\t\"q\"\u2028\u2029 é \x00\x1f \xff\xfe end"},
			"sha256:c6b8877626a52cfcd2c4308f3f37c11743b56e5bf6e2a4ac73738217ae8eab17", "3321a9227bdcbad8", "eee15a435b2e140b"},
		{&Node{Record: Record{ID: "c/d.md", Kind: "page", Family: "docs"}, Body: "plain body of text\n\n## Heading\n"},
			"sha256:a856d48114cd765456dd2654be1e6045cd473d7ff4d61087bf5f66d73e8befef", "bdd725482f8d85fb", "248854a8b45194e0"},
	} {
		if got := ContentHash(tc.node, edges); got != tc.hash {
			t.Errorf("%s: content hash %s, want %s", tc.node.ID, got, tc.hash)
		}
		if tc.node.Parts != (Parts{Head: tc.head, Body: tc.body}) {
			t.Errorf("%s: parts %+v, want head %s body %s", tc.node.ID, tc.node.Parts, tc.head, tc.body)
		}
	}
}

// An edge of plain strings is encoded by hand for its hash; every edge's hash is that of its
// triple's JSON encoding, plain or not.
func TestEdgeHashIsTheTriplesEncoding(t *testing.T) {
	for _, e := range []Edge{
		{Source: "go:fmt.Println", Relation: "calls", Target: "go:os.Stdout"},
		{Source: "docs/a b.md#x", Relation: "links_to", Target: "n050559"},
		{},
		{Source: `say "hi"`, Relation: "calls", Target: `C:\path`},
		{Source: "a<b>", Relation: "x&y", Target: "tab\there"},
		{Source: "café", Relation: "calls", Target: "\u2028"},
		{Source: "\xff", Relation: "\x7f", Target: "~"},
	} {
		if got, want := EdgeHash(e), marshalHash(t, "docforge.edge.v1", [3]string{e.Source, e.Relation, e.Target}); got != want {
			t.Errorf("EdgeHash(%q) = %s, want %s", e, got, want)
		}
	}
}

func marshalHash(t *testing.T, domain string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return hashBytes(domain, b)
}

// A record's and a content's hashes are of encoding/json's encodings of their fields
// (base/jsonenc writes them): the same bytes for fields of every escape.
func TestHashesAreOfEncodingJSONs(t *testing.T) {
	strs := []string{"", "plain", "\u2028", "é", "\xff", "<b>&amp;", `"q" \`, "tab\there", "\x00\x1f\x7f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var sb strings.Builder
		for range r.IntN(20) {
			sb.WriteByte(byte(r.IntN(256)))
		}
		strs = append(strs, sb.String())
	}
	for i := 0; i+12 <= len(strs); i += 12 {
		s := strs[i : i+12]
		rec := Record{ID: s[0], Kind: s[1], Family: s[2], Title: s[3], Status: s[4], Authority: s[5], Tags: s[6:8], Language: s[8],
			SourcePath: s[9], Anchor: s[10], ContentHash: s[11]}
		want := rec
		want.Capabilities = []string{}
		if got, w := rec.Hash(), marshalHash(t, "docforge.node.record.v1", want); got != w {
			t.Fatalf("Record%+v.Hash() = %s, want %s", rec, got, w)
		}
		n := &Node{Record: rec, Body: s[3] + s[4]}
		code := Parts{Head: s[5], Body: s[6]}
		edges := []Edge{{Source: s[0], Relation: s[7], Target: s[8]}}
		doc := struct {
			ID           string      `json:"id"`
			Kind         string      `json:"kind"`
			Family       string      `json:"family"`
			Title        string      `json:"title"`
			Status       string      `json:"status"`
			Authority    string      `json:"authority"`
			Tags         []string    `json:"tags"`
			Language     string      `json:"language"`
			Capabilities []string    `json:"capabilities"`
			Relations    [][2]string `json:"relations"`
			Body         string      `json:"body"`
			Signature    string      `json:"signature,omitempty"`
			Code         string      `json:"code,omitempty"`
		}{n.ID, n.Kind, n.Family, n.Title, n.Status, n.Authority, n.Tags, n.Language, []string{}, [][2]string{{s[7], s[8]}}, n.Body, code.Head, code.Body}
		if code != (Parts{}) {
			doc := doc
			doc.Relations = [][2]string{} // a declaration's relations are not in its hash
			if got, w := CodeContentHash(n, code.Head, code.Body), marshalHash(t, "docforge.node.content.v1", doc); got != w {
				t.Fatalf("CodeContentHash of %+v = %s, want %s", n, got, w)
			}
		}
		doc.Signature, doc.Code = "", ""
		if got, w := ContentHash(n, edges), marshalHash(t, "docforge.node.content.v1", doc); got != w {
			t.Fatalf("ContentHash of %+v = %s, want %s", n, got, w)
		}
	}
}
