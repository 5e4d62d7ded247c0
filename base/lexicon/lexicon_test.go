package lexicon

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	for token, want := range map[string][]string{
		"GetDiscussionComments":   {"get", "discussion", "comments"},
		"get_discussion_comments": {"get", "discussion", "comments"},
		"HTTPServer":              {"http", "server"},
		"getID":                   {"get", "id"},
		"Base64Encode":            {"base", "64", "encode"},
		"Test_ListIssues":         {"test", "list", "issues"},
		"server":                  {"server"},
		"_private":                {"private"},
	} {
		if got := Split(token); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", token, got, want)
		}
	}
}

// Inflected forms of one word meet; words that differ in meaning stay apart.
func TestStem(t *testing.T) {
	same := [][]string{
		{"start", "starts", "started", "starting"},
		{"register", "registered", "registers", "registering"},
		{"change", "changed", "changes", "changing"},
		{"notification", "notifications"},
		{"policy", "policies"},
		{"run", "running"},
		{"stop", "stopped", "stopping"},
		{"coalesce", "coalesced"},
		{"call", "called", "calls"},
		{"cancel", "cancelled", "canceled", "cancels", "cancelling"},
		{"install", "installed", "installs", "installing"},
	}
	for _, group := range same {
		for _, w := range group[1:] {
			if Stem(w) != Stem(group[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want equal", w, Stem(w), group[0], Stem(group[0]))
			}
		}
	}
	for _, pair := range [][2]string{{"handler", "handle"}, {"status", "state"}, {"string", "str"}, {"process", "proces"}} {
		if Stem(pair[0]) == Stem(pair[1]) {
			t.Errorf("Stem(%q) == Stem(%q) = %q: want apart", pair[0], pair[1], Stem(pair[0]))
		}
	}
}

// The analyzed index text keeps identifiers whole and adds their stemmed parts; prose words
// are stemmed; a snake_case and a camelCase spelling of one name share the whole form.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"GetDiscussionComments starts": "getdiscussioncomments get discussion comment start",
		"get_discussion_comments":      "getdiscussioncomments get discussion comment",
		"the Server registered tools":  "the server register tool",
		"x":                            "x",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Names("Server.changeAndNotify"); got != "server changeandnotify" {
		t.Errorf("Names = %q", got)
	}
}

// Terms lists exactly the terms Text holds, on mixed text: identifiers, digits, underscores,
// non-ASCII words, punctuation.
func TestTermsAgreesWithText(t *testing.T) {
	for _, in := range []string{
		"GetDiscussionComments starts; the Server registered tools",
		"get_discussion_comments HTTP2Server base64Encode __x__ a_b_",
		"naïve café résumé déjàVu HTTPServer ÜberHandler",
		"ABC abc ABCdef x1y2 9lives _ __",
	} {
		var got []string
		Terms(in, func(term string) { got = append(got, term) })
		if want := strings.Fields(Text(in)); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q\nText gives %q", in, got, want)
		}
	}
}

// An Analyzer gives exactly Text's terms, whether a token is remembered or not.
func TestAnalyzerAgreesWithText(t *testing.T) {
	a := NewAnalyzer()
	for _, in := range []string{
		"GetDiscussionComments starts; the Server registered tools",
		"the Server registered tools again, GetDiscussionComments",
		"naïve café résumé déjàVu HTTPServer ÜberHandler café",
	} {
		if got, want := a.Text(in), Text(in); got != want {
			t.Errorf("Analyzer.Text(%q) = %q, Text gives %q", in, got, want)
		}
		var got, want []string
		a.Terms(in, func(term string) { got = append(got, term) })
		Terms(in, func(term string) { want = append(want, term) })
		if !slices.Equal(got, want) {
			t.Errorf("Analyzer.Terms(%q) = %q, Terms gives %q", in, got, want)
		}
	}
}

// Analyze slices an ASCII token's parts from its lowercased whole; it must give exactly the
// terms of the rule written out from Split: the parts joined, then each part of more than one
// letter stemmed, a one-letter part joined to a next part of letters (one part alone: its
// stem).
func TestAnalyzeAgreesWithSplit(t *testing.T) {
	tokens := []string{"GetDiscussionComments", "get_discussion_comments", "HTTPServer", "getID", "Base64Encode",
		"Test_ListIssues", "server", "_private", "a_b_", "__x__", "X", "x1y2", "9lives", "ABC", "ABCdef", "déjàVu",
		"ÜberHandler", "İstanbulCity", "naïve_Café", "MAX_INT64", "utf8RuneSelf", "ID", "OAuthClientProvider", "useOAuth", "scanXMcpHeader"}
	for _, file := range []string{"lexicon.go", "lexicon_test.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, Words(string(src))...)
	}
	for _, tok := range tokens {
		var want []Term
		switch parts := Split(tok); len(parts) {
		case 0:
		case 1:
			want = []Term{{Text: Stem(parts[0])}}
		default:
			want = []Term{{Text: strings.Join(parts, ""), Whole: true}}
			for i, p := range parts {
				switch {
				case utf8.RuneCountInString(p) > 1:
					want = append(want, Term{Text: Stem(p)})
				case len(parts) > 2 && i+1 < len(parts) && unicode.IsLetter([]rune(p)[0]) && unicode.IsLetter([]rune(parts[i+1])[0]):
					want = append(want, Term{Text: Stem(p + parts[i+1])})
				}
			}
		}
		if got := Analyze(tok); !slices.Equal(got, want) {
			t.Errorf("Analyze(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestPairs(t *testing.T) {
	got := func(text string) []string {
		var out []string
		for _, p := range Pairs(text) {
			s := p.A + "+" + p.B
			if p.Compound {
				s += "!"
			}
			out = append(out, s)
		}
		return out
	}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"event store", []string{"event+store"}},
		{"a new read-only tool", []string{"a+new", "read+only!"}},
		{"labels, prompts and tools.", []string{"prompts+and", "and+tools"}},
		{"JSON-RPC message", []string{"JSON+RPC!"}},
		{"a-b-c d", []string{}},
		{"back\tup", []string{"back+up"}},
	} {
		g := got(tt.text)
		if strings.Join(g, " ") != strings.Join(tt.want, " ") {
			t.Errorf("Pairs(%q) = %v, want %v", tt.text, g, tt.want)
		}
	}
}

// Nested spans analyze at most spanBudget times the text: a span past the budget keeps the
// whole lines that fit, or the text up to a space, or nothing; spans within it are whole.
func TestLineSpanTermsBudget(t *testing.T) {
	line := strings.Repeat("alpha beta gamma ", 64) + "\n" // 1,089 bytes
	src := []byte(strings.Repeat(line, 1000) + "delta epsilon\n")
	// 1,000 spans each from its line to the end: about 545 times the text's size in all.
	spans := make([][2]int, 1000)
	for i := range spans {
		spans[i] = [2]int{i + 1, 1001}
	}
	got := LineSpanTerms(src, spans, 10)
	budget := spanBudget*len(src) + 1<<20
	analyzed := 0
	for i, terms := range got {
		whole := len(src) - i*len(line)
		switch {
		case analyzed+whole <= budget:
			if terms != "alpha beta gamma delta epsilon" {
				t.Fatalf("span %d within the budget: %q", i, terms)
			}
			analyzed += whole
		case analyzed < budget:
			if terms != "alpha beta gamma" {
				t.Fatalf("span %d across the budget's end: %q", i, terms)
			}
			analyzed = budget
		default:
			if terms != "" {
				t.Fatalf("span %d past the budget: %q", i, terms)
			}
		}
	}
	if analyzed != budget {
		t.Errorf("no span passed the budget")
	}
}
