package source

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/docforge/docforge/base/tomlpos"
)

// frontMatterForms are front matters the fast decoder must take (the common forms) and must
// decline (what only the TOML decoder may read).
func frontMatterForms() (taken, declined []string) {
	taken = []string{
		"id = \"n050559\"\nkind = \"test\"\nfamily = \"tests\"\ntitle = \"wyloboze rugujo\"\nstatus = \"accepted\"\nauthority = \"normative\"\ntags = [\"t28\", \"t21\"]\n[relations]\nimplemented_by = [\"n050610\"]\ntested_by = [\"n050727\", \"n050650\"]\n",
		"",
		"\n\n# only a comment\n",
		"id = 'lit\\eral' # a comment\r\ntitle = \"caf\u00e9 \t tab\"\r\n",
		"tags = []\ncapabilities = [ 'a' , \"b\", ]\nlanguage=\"en\"\n",
		"[ relations ]\n[stamps]\nn1 = \"x\"\n",
		"[relations]\n",
		"[stamps]\nn1 = \"sha256:ab\"\nn-2_x = ''\n[relations]\ndepends_on = []\n",
		"id = \"a\"\n  kind = \"b\"   \n\tfamily = \"c\"#c\n",
		"title = \"\"\nstatus = ''\n",
		"[relations]\nid = [\"x\"]\ntags = [\"y\"]\n",
	}
	declined = []string{
		"id = \"a\\\"b\"\n",           // an escape
		"title = \"\"\"multi\"\"\"\n", // a multi-line string
		"title = '''multi'''\n",
		"tags = [\n\"a\"]\n", // a multi-line array
		"line = 3\n",
		"id = 3\n",
		"a.b = \"x\"\n",
		"\"id\" = \"x\"\n",
		"id = \"a\"\nid = \"b\"\n",
		"unknown = \"x\"\n",
		"body = \"x\"\n",
		"ID = \"x\"\n",
		"title = \"a\x01b\"\n",
		"title = \"a\xffb\"\n",
		"# comment \x01\n",
		"tags = [\"a\", 1]\n",
		"tags = \"a\"\n",
		"id = [\"a\"]\n",
		"[relations]\ndepends_on = \"a\"\n",
		"[stamps]\nn1 = [\"a\"]\n",
		"[relations]\n[relations]\n",
		"[other]\n",
		"[[node]]\n",
		"[relations]]\n",
		"relations = [\"a\"]\n",
		"id = {a = \"b\"}\n",
		"id = \"a\" b\n",
		"id = \"a\"\r",
		"id \"a\"\n",
		"= \"a\"\n",
		"title = \"unterminated\n",
		"tags = [\"a\" \"b\"]\n",
		"tags = [,]\n",
		"\ufeffid = \"a\"\n",
		"[stamps]\n\"\" = \"x\"\n",
	}
	return taken, declined
}

// checkSimpleFrontMatter reports whether the fast decoder takes text, failing the test unless
// what it takes the TOML decoder reads alike (the same fields, nothing left undecoded, no
// error, the same key and value positions) and what it declines it leaves untouched.
func checkSimpleFrontMatter(t *testing.T, text string) bool {
	t.Helper()
	var fast nodeFields
	pos, ok := decodeSimpleFrontMatter(text, 2, &fast)
	if !ok {
		if !reflect.DeepEqual(fast, nodeFields{}) {
			t.Fatalf("declined %q but changed the fields: %+v", text, fast)
		}
		return false
	}
	var slow nodeFields
	md, err := toml.NewDecoder(strings.NewReader(text)).Decode(&slow)
	if err != nil {
		t.Fatalf("took %q, which the decoder refuses: %v", text, err)
	}
	if u := md.Undecoded(); len(u) > 0 || md.IsDefined("body") {
		t.Fatalf("took %q, where the decoder leaves %v undecoded or defines body", text, u)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q decoded as\n%#v\nthe decoder's\n%#v", text, fast, slow)
	}
	// The positions are those a scan finds, for every key the text sets.
	scan := tomlpos.Scan(text, 2)
	paths := []string{"id", "kind", "family", "title", "status", "authority", "language", "tags", "capabilities", "relations", "stamps", "body", "none"}
	for k := range fast.Relations {
		paths = append(paths, "relations."+k)
	}
	for k := range fast.Stamps {
		paths = append(paths, "stamps."+k)
	}
	for _, p := range paths {
		gk, gok := pos.Key(p)
		wk, wok := scan.Key(p)
		if gk != wk || gok != wok {
			t.Fatalf("%q: key %s at %v %v, scanned at %v %v", text, p, gk, gok, wk, wok)
		}
		for i := -1; i < 4; i++ {
			gv, gok := pos.Value(p, i)
			wv, wok := scan.Value(p, i)
			if gv != wv || gok != wok {
				t.Fatalf("%q: value %d of %s at %v %v, scanned at %v %v", text, i, p, gv, gok, wv, wok)
			}
		}
	}
	return true
}

// The fast front-matter decoder must agree with the TOML decoder on everything it takes: the
// same fields, no field the decoder would leave undecoded, no error the decoder would raise.
// Everything else it must decline. It must also take the common forms, or it saves nothing.
func TestSimpleFrontMatterDecodesAsTOML(t *testing.T) {
	taken, declined := frontMatterForms()
	check := checkSimpleFrontMatter
	for _, text := range taken {
		if !check(t, text) {
			t.Errorf("declined the common form %q", text)
		}
	}
	for _, text := range declined {
		if check(t, text) {
			t.Errorf("took %q, which only the decoder may read", text)
		}
	}
	// Mutations of the common forms: whatever the fast decoder takes, the decoder agrees with.
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"\"", "'", "[", "]", ",", "=", "#", " ", "\t", "\n", "\r", "\\", ".", "a", "é", "\x00", "\xff", "1", "{", "}", "relations", "stamps", "tags", "body", "\"\"\""}
	tookMutants := 0
	for range 30000 {
		b := []byte(taken[r.IntN(len(taken))])
		for range 1 + r.IntN(3) {
			i := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = append(b[:i], append([]byte(alphabet[r.IntN(len(alphabet))]), b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = alphabet[r.IntN(len(alphabet))][0]
				}
			}
		}
		if check(t, string(b)) {
			tookMutants++
		}
	}
	t.Logf("took %d of 30000 mutants", tookMutants)
	if tookMutants == 0 {
		t.Errorf("took no mutant: the comparison tested nothing")
	}
}

// FuzzSimpleFrontMatterDecodesAsTOML holds the fast decoder to the TOML decoder on any text,
// seeded with the forms above ('go test -fuzz FuzzSimpleFrontMatterDecodesAsTOML ./source'
// explores further; 'go test' runs the seeds).
func FuzzSimpleFrontMatterDecodesAsTOML(f *testing.F) {
	taken, declined := frontMatterForms()
	for _, text := range append(taken, declined...) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkSimpleFrontMatter(t, text)
	})
}
