package worker

import (
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
)

func TestCursorRoundTripAndFailures(t *testing.T) {
	c := cursor{Project: "p", Adapter: "a@1", Generation: 4, Operation: "docforge_get_context", Params: "h1", Collection: "h2", Position: 20}
	s := c.encode()
	got, err := decodeCursor(s)
	if err != nil {
		t.Fatal(err)
	}
	if pos, err := got.resume(c); err != nil || pos != 20 {
		t.Fatalf("resume: %d %v", pos, err)
	}
	next := c
	next.Generation = 5
	if _, err := got.resume(next); problem.CodeOf(err) != problem.StaleCursor {
		t.Errorf("other generation: %v, want stale_cursor", err)
	}
	tampered := []byte(s)
	tampered[len(tampered)/2] ^= 1
	for name, bad := range map[string]string{
		"flipped": string(tampered), "empty": "", "garbage": "!!!", "long": strings.Repeat("A", 5000),
		"json_not_cursor": "eyJ4IjoxfQ",
	} {
		if _, err := decodeCursor(bad); problem.CodeOf(err) != problem.InvalidCursor {
			t.Errorf("%s: %v, want invalid_cursor", name, err)
		}
	}
}

// FuzzDecodeCursor: no input may panic, and anything accepted re-encodes to itself.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(cursor{Project: "p", Generation: 1, Operation: "op", Position: 3}.encode())
	f.Add("")
	f.Add("eyJ2IjoxfQ")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s)
		if err != nil {
			return
		}
		if again, err := decodeCursor(c.encode()); err != nil || again != c {
			t.Fatalf("accepted cursor does not round-trip: %v", err)
		}
	})
}
