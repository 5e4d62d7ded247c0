package jsonenc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// testStrings are every byte alone and between letters, the runes encoding/json escapes, and
// random strings of bytes and runes.
func testStrings() []string {
	strs := []string{"", "plain", "\u2028", "\u2029", "é", "日本", "\xc3", "\xe2\x80", "\xed\xa0\x80", "a\u2028b\u2029c<>&\"\\"}
	for b := range 256 {
		strs = append(strs, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	r := rand.New(rand.NewPCG(1, 2))
	pool := []rune{'a', 'Z', '0', ' ', '"', '\\', '<', '>', '&', '\n', '\t', 0, 0x1f, 0x7f, 0x80, 0xe9, 0x2028, 0x2029, 0xfffd, 0x1f600}
	for range 2000 {
		var sb strings.Builder
		for range r.IntN(40) {
			if r.IntN(4) == 0 {
				sb.WriteByte(byte(r.IntN(256)))
			} else {
				sb.WriteRune(pool[r.IntN(len(pool))])
			}
		}
		strs = append(strs, sb.String())
	}
	return strs
}

// Every string, list and object the package writes is the bytes json.Marshal writes for the
// same value, escapes and invalid UTF-8 included.
func TestEncodingIsEncodingJSONs(t *testing.T) {
	strs := testStrings()
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", s, got, want)
		}
	}
	for _, ss := range [][]string{nil, {}, {"a"}, strs[:50], strs[len(strs)-50:]} {
		want, _ := json.Marshal(ss)
		if ss == nil {
			want = []byte("[]")
		}
		if got := Strings(nil, ss); string(got) != string(want) {
			t.Fatalf("Strings(%q) = %s, want %s", ss, got, want)
		}
	}
	type inner struct {
		A string `json:"a"`
	}
	type shape struct {
		S     string   `json:"s"`
		N     int64    `json:"n"`
		L     []string `json:"l"`
		Empty []string `json:"empty"`
		In    inner    `json:"in"`
	}
	for i := 0; i+3 <= len(strs); i += 97 {
		v := shape{S: strs[i], N: int64(i) - 500, L: strs[i+1 : i+3], In: inner{strs[i+2]}}
		want, _ := json.Marshal(v)
		o := NewObject(nil)
		o.Str("s", v.S)
		o.Int("n", v.N)
		o.List("l", v.L, false)
		o.List("empty", v.Empty, false)
		o.Value("in", func(dst []byte) []byte {
			in := NewObject(dst)
			in.Str("a", v.In.A)
			return in.End()
		})
		if got := o.End(); string(got) != string(want) {
			t.Fatalf("object %s, want %s", got, want)
		}
	}
	o := NewObject(nil)
	o.List("l", nil, true)
	if got := string(o.End()); got != `{"l":[]}` {
		t.Errorf("a nil list as empty = %s", got)
	}
}

// FuzzEncodingIsEncodingJSONs holds String, Strings and an object to json.Marshal's bytes for
// any input, seeded with the strings the table test above uses ('go test -fuzz
// FuzzEncodingIsEncodingJSONs ./base/jsonenc' explores further; 'go test' runs the seeds).
func FuzzEncodingIsEncodingJSONs(f *testing.F) {
	strs := testStrings()
	for i, s := range strs {
		f.Add(s, strs[(i+1)%len(strs)], int64(i)-1000)
	}
	f.Fuzz(func(t *testing.T, a, b string, n int64) {
		want, _ := json.Marshal(a)
		if got := String(nil, a); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", a, got, want)
		}
		want, _ = json.Marshal([]string{a, b})
		if got := Strings(nil, []string{a, b}); string(got) != string(want) {
			t.Fatalf("Strings(%q, %q) = %s, want %s", a, b, got, want)
		}
		want, _ = json.Marshal(struct {
			A string   `json:"a"`
			N int64    `json:"n"`
			L []string `json:"l"`
		}{a, n, []string{b}})
		o := NewObject(nil)
		o.Str("a", a)
		o.Int("n", n)
		o.List("l", []string{b}, false)
		if got := o.End(); string(got) != string(want) {
			t.Fatalf("object %s, want %s", got, want)
		}
	})
}
