package graph

import (
	"fmt"
	"math/rand"
	"testing"
)

// The set digest is order independent and exact under removal: any order of adds, and adds
// followed by removes of other items, give the digest of the set that remains; it survives a
// text round trip, and a different count is a different digest.
func TestSetDigest(t *testing.T) {
	items := make([]string, 200)
	for i := range items {
		items[i] = DomainHash("test.item", i)
	}
	var want SetDigest
	for _, it := range items[:150] {
		want.Add(it)
	}
	r := rand.New(rand.NewSource(1))
	for round := range 5 {
		var got SetDigest
		for _, i := range r.Perm(len(items)) {
			got.Add(items[i])
		}
		for _, i := range r.Perm(50) {
			got.Remove(items[150+i])
		}
		if got.Sum() != want.Sum() || got.Count() != 150 {
			t.Fatalf("round %d: %s (%d), want %s", round, got.Sum(), got.Count(), want.Sum())
		}
	}
	text, _ := want.MarshalText()
	var back SetDigest
	if err := back.UnmarshalText(text); err != nil || back.Sum() != want.Sum() {
		t.Errorf("round trip: %v %s", err, back.Sum())
	}
	for _, bad := range []string{"", "12", "x:00", "1:zz", "1:" + fmt.Sprintf("%062d", 0)} {
		if err := back.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) accepted", bad)
		}
	}
	// Parts digested apart and included into one are the whole set.
	var parts [3]SetDigest
	for i, it := range items[:150] {
		parts[i%3].Add(it)
	}
	var whole SetDigest
	for _, p := range parts {
		whole.Include(p)
	}
	if whole.Sum() != want.Sum() || whole.Count() != 150 {
		t.Errorf("included parts: %s (%d), want %s", whole.Sum(), whole.Count(), want.Sum())
	}
	var empty, one SetDigest
	one.Add(items[0])
	one.Remove(items[0])
	if one.Sum() != empty.Sum() {
		t.Errorf("add then remove differs from the empty set")
	}
}

// DomainHash separates domains and values.
func TestDomainHash(t *testing.T) {
	a, b := DomainHash("d1", []string{"x"}), DomainHash("d2", []string{"x"})
	if a == b || a != DomainHash("d1", []string{"x"}) || a == DomainHash("d1", []string{"y"}) {
		t.Errorf("domain hashes do not separate: %s %s", a, b)
	}
}

// A node's content hash follows its content, relations and body, not where it sits; parts
// say which half changed.
func TestContentHashIgnoresLocation(t *testing.T) {
	base := func() *Node {
		return &Node{Record: Record{ID: "a", Kind: "page", Family: "docs", Title: "A", SourcePath: "docs/a.md", Anchor: "a"}, Line: 1, Body: "text"}
	}
	edges := []Edge{{Source: "a", Relation: "depends_on", Target: "b"}, {Source: "a", Relation: "depends_on", Target: "c"}}
	h := ContentHash(base(), edges)
	for _, tc := range []struct {
		name string
		edit func(n *Node) []Edge
		same bool
		part string // "head" or "body": which part digest changes
	}{
		{"moved", func(n *Node) []Edge { n.SourcePath, n.Line, n.Anchor = "other/a.md", 9, "x"; return edges }, true, ""},
		{"relations reordered", func(n *Node) []Edge {
			return []Edge{edges[1], edges[0]}
		}, true, ""},
		{"title", func(n *Node) []Edge { n.Title = "B"; return edges }, false, "head"},
		{"relation", func(n *Node) []Edge { return nil }, false, "head"},
		{"body", func(n *Node) []Edge { n.Body = "other"; return edges }, false, "body"},
	} {
		n0, n := base(), base()
		ContentHash(n0, edges)
		got := ContentHash(n, tc.edit(n))
		if (got == h) != tc.same {
			t.Errorf("%s: same hash %v, want %v", tc.name, got == h, tc.same)
		}
		if tc.part == "head" && n.Parts.Head == n0.Parts.Head || tc.part == "body" && n.Parts.Body == n0.Parts.Body {
			t.Errorf("%s: the %s part did not change", tc.name, tc.part)
		}
	}
}

// A stamp's text parses back to the same stamp; malformed ones say why; review states.
func TestStamps(t *testing.T) {
	n := &Node{Record: Record{ID: "t", SourcePath: "docs/my t.md", ContentHash: DomainHash("x", 1)}, Parts: Parts{Head: "0123456789abcdef", Body: "fedcba9876543210"}}
	st := StampOf(n)
	back, err := ParseStamp("t", st.Text())
	if err != nil || back != st {
		t.Fatalf("round trip: %v %+v != %+v", err, back, st)
	}
	for _, bad := range []string{"", "sha256:abc", "md5:" + n.ContentHash[7:], n.ContentHash + " head=xyz"} {
		if _, err := ParseStamp("t", bad); err == nil {
			t.Errorf("ParseStamp(%q) accepted", bad)
		}
	}
	for _, tc := range []struct{ stamp, now, want string }{
		{"", "h", Unreviewed}, {"h", "", Dangling}, {"h", "h", Confirmed}, {"h", "g", Suspect},
	} {
		if got := ReviewState(tc.stamp, tc.now); got != tc.want {
			t.Errorf("ReviewState(%q, %q) = %s, want %s", tc.stamp, tc.now, got, tc.want)
		}
	}
}

// Relation candidates become relations when both ends are nodes and the relation is allowed,
// once each.
func TestResolveRefs(t *testing.T) {
	nodes := map[string]bool{"a": true, "b": true}
	refs := []Edge{{"a", "calls", "b"}, {"a", "calls", "b"}, {"a", "calls", "zz"}, {"a", "reads", "b"}}
	got := ResolveRefs(refs, func(id string) bool { return nodes[id] }, func(r string) bool { return r == "calls" })
	if len(got) != 1 || got[0] != (Edge{"a", "calls", "b"}) {
		t.Errorf("ResolveRefs = %v", got)
	}
}
