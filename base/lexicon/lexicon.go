package lexicon

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Term is one unit of the index: a whole identifier, or a stemmed word.
type Term struct {
	Text string
	// Whole marks an identifier kept whole (never stemmed); its parts follow as words.
	Whole bool
}

// Words splits text into its tokens: maximal runs of letters, digits and underscores.
func Words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// Analyze returns the terms of one token: for an identifier its whole form and then its
// parts, stemmed; for a word its stem. A part of one letter is joined to the part after it
// (OAuthClient gives oauth, auth and client); a one-letter token is kept as it is.
func Analyze(token string) []Term {
	var out []Term
	analyze(token, func(t string, whole bool) { out = append(out, Term{Text: t, Whole: whole}) })
	return out
}

// analyze calls fn with the terms of one token, as Analyze lists them. An ASCII token is
// lowercased once and its parts sliced from that, rather than each part lowercased on its own
// (lowercasing keeps an ASCII string's byte offsets; it may not keep others').
func analyze(token string, fn func(term string, whole bool)) {
	var buf [8]bounds
	parts := appendParts(buf[:0], token)
	ascii := IsASCII(token)
	lower := token
	if ascii {
		lower = strings.ToLower(token)
	}
	part := func(b bounds) string {
		if ascii {
			return lower[b.start:b.end]
		}
		return strings.ToLower(token[b.start:b.end])
	}
	switch len(parts) {
	case 0:
		return
	case 1:
		fn(Stem(part(parts[0])), false)
		return
	}
	if ascii && !strings.Contains(token, "_") {
		fn(lower, true) // the parts joined are the whole token
	} else {
		var whole strings.Builder
		for _, b := range parts {
			whole.WriteString(part(b))
		}
		fn(whole.String(), true)
	}
	for i, b := range parts {
		p := part(b)
		if utf8.RuneCountInString(p) > 1 {
			fn(Stem(p), false)
		} else if i+1 < len(parts) && len(parts) > 2 && isLetterLed(p) && isLetterLed(part(parts[i+1])) {
			// A one-letter part is a prefix of the next one as people write it: the oauth of
			// OAuthClient (with two parts, the join is the whole token, already given).
			fn(Stem(p+part(parts[i+1])), false)
		}
	}
}

func isLetterLed(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// Split breaks a token into lowercase parts at underscores, at lower-to-upper case changes
// ("getID" is get, id), before the last capital of a run followed by a lowercase letter
// ("HTTPServer" is http, server), and between letters and digits ("Base64Encode" is base,
// 64, encode). A token of one plain word is one part.
func Split(token string) []string {
	var parts []string
	for _, b := range appendParts(nil, token) {
		parts = append(parts, strings.ToLower(token[b.start:b.end]))
	}
	return parts
}

// bounds are a part's byte offsets in its token.
type bounds struct{ start, end int }

// appendParts appends the bounds of each part of a token in order, by Split's rule.
func appendParts(dst []bounds, token string) []bounds {
	start := 0 // byte offset of the current part
	var prev rune
	for i := 0; i < len(token); {
		r, size := utf8.DecodeRuneInString(token[i:])
		if r == '_' {
			if i > start {
				dst = append(dst, bounds{start, i})
			}
			start, prev, i = i+size, r, i+size
			continue
		}
		if i > start {
			next, _ := utf8.DecodeRuneInString(token[i+size:])
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev),
				unicode.IsUpper(r) && unicode.IsUpper(prev) && i+size < len(token) && unicode.IsLower(next),
				unicode.IsDigit(r) != unicode.IsDigit(prev):
				dst = append(dst, bounds{start, i})
				start = i
			}
		}
		prev, i = r, i+size
	}
	if start < len(token) {
		dst = append(dst, bounds{start, len(token)})
	}
	return dst
}

// IsASCII says whether s is all ASCII.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Text is the analyzed form of a text for the full-text index: every term of every token,
// separated by spaces.
func Text(text string) string { return (&Analyzer{}).Text(text) }

// Names is the analyzed form of a name column: each token whole and lowercase, neither split
// nor stemmed, so a match there is a match of the exact name.
func Names(text string) string {
	var b strings.Builder
	for _, w := range Words(text) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Join(Split(w), ""))
	}
	return b.String()
}

// Stem reduces a lowercase English word to a stem by stripping inflections: plurals
// ("policies", "classes", "tools"), past forms ("registered", "copied") and gerunds
// ("starting", "running"). It is deliberately light (no derivational suffixes, so "handler"
// stays apart from "handle"): a wrong merge costs more than a missed one when identifiers
// share the index. Words of four letters or fewer, and non-ASCII words, are left alone.
func Stem(w string) string {
	if len(w) <= 4 || !isASCIILower(w) {
		return w
	}
	s := inflection(w)
	// A final e goes too, so that "change", "changed" and "changing" meet at "chang"; and
	// one l of a final double l, so that British "cancelled" meets "cancel" (and
	// "installed" meets "install" at "instal").
	switch {
	case len(s) > 4 && s[len(s)-1] == 'e' && s[len(s)-2] != 'e':
		s = s[:len(s)-1]
	case len(s) > 4 && strings.HasSuffix(s, "ll"):
		s = s[:len(s)-1]
	}
	return s
}

// inflection strips one inflectional suffix.
func inflection(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	case strings.HasSuffix(w, "ied"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "eed"):
		return w
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		return undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		return undouble(w[:len(w)-3])
	}
	return w
}

// undouble drops one of a doubled final consonant ("runn" is run, "stopp" is stop), but not
// of l, s or z ("install", "pass", "buzz"), which English doubles in the stem itself.
func undouble(s string) string {
	n := len(s)
	if n >= 2 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}

func hasVowel(s string) bool { return strings.ContainsAny(s, "aeiouy") }

func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// IsStopword reports English function words: they match nearly every document, so a query
// that may match any of its words leaves them out.
func IsStopword(w string) bool { return stopwords[w] }

// IsTaskFiller reports words that say what to do to a subject rather than what it is ("add a
// new tool"): when a task's words are too many to rank by, they give way first.
func IsTaskFiller(w string) bool { return taskFillers[w] }

var taskFillers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`add new existing current implement ensure fix properly correctly`) {
		m[w] = true
	}
	return m
}()

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also an and any are as at be been but by can could do does
		doe each for from get gets has have how i if in into is it its itself just me more most my need needs no not of
		on once only or other our out over own should so some such than that the their them then there these they this
		those through to too under up upon us use used using very via want was we were what when where which while who
		whom why will with would you your instead without make made`) {
		m[w] = true
	}
	return m
}()

// Terms calls fn with every term of text, as Text would list them, without building the
// text. fn must not keep its argument past the call.
func Terms(text string, fn func(term string)) {
	tokens(text, func(tok string) { analyze(tok, func(t string, _ bool) { fn(t) }) })
}

// tokens calls fn with each token of text: a run of letters, digits and underscores. ASCII,
// most of any source, is classified without decoding.
func tokens(text string, fn func(tok string)) {
	start := -1
	for i := 0; i < len(text); {
		word, size := true, 1
		if c := text[i]; c < utf8.RuneSelf {
			word = isASCIIWord(c)
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			word = isWordRune(r)
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			fn(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(text[start:])
	}
}

func isASCIIWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// Analyzer is Text with a memory: it keeps each distinct token's terms, since prose repeats
// its words and an index build analyzes every body (on go-sdk's design notes and two large
// files, 112 MB/s against 66 without; docs/benchmarks.md). It is not safe for concurrent use;
// the zero Analyzer remembers nothing.
type Analyzer struct {
	cache map[string][]string
	terms []string
}

// maxCachedTokens bounds an Analyzer's memory; past it, tokens are analyzed afresh.
const maxCachedTokens = 1 << 17

// spanBudget bounds the text LineSpanTerms analyzes, in multiples of the file's size (real
// code nests its declarations two or three deep).
const spanBudget = 8

// NewAnalyzer returns an Analyzer with an empty memory.
func NewAnalyzer() *Analyzer { return &Analyzer{cache: map[string][]string{}} }

// Terms is the package's Terms, remembering tokens.
func (a *Analyzer) Terms(text string, fn func(term string)) {
	tokens(text, func(tok string) {
		for _, t := range a.tokenTerms(tok) {
			fn(t)
		}
	})
}

// tokenTerms returns the terms of one token, from memory when it was seen before. The slice
// is valid until the next call.
func (a *Analyzer) tokenTerms(tok string) []string {
	// A lowercase ASCII word is one part, its stem: stemming it again costs less than the
	// lookup, and keeping it out of memory leaves room for the tokens worth remembering.
	if isASCIILower(tok) {
		a.terms = append(a.terms[:0], Stem(tok))
		return a.terms
	}
	if ts, ok := a.cache[tok]; ok {
		return ts
	}
	a.terms = a.terms[:0]
	analyze(tok, func(t string, _ bool) { a.terms = append(a.terms, t) })
	if a.cache != nil && len(a.cache) < maxCachedTokens {
		a.cache[strings.Clone(tok)] = slices.Clone(a.terms)
	}
	return a.terms
}

// Text is the package's Text, remembering tokens.
func (a *Analyzer) Text(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/4)
	write := func(t string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	tokens(text, func(tok string) {
		for _, t := range a.tokenTerms(tok) {
			write(t)
		}
	})
	return b.String()
}

// LineSpanTerms gives each span of lines of src (1-based, inclusive: a declaration's lines)
// the distinct terms longer than one character of its text, at most limit of them, in order
// of first appearance, joined by spaces. One Analyzer serves all spans: a file's declarations
// share their identifiers.
//
// The text analyzed for all spans together is bounded by spanBudget times src's size: spans
// nest (a class holds its methods), and a malformed file can nest every declaration in the
// one before it, which would analyze the file once a declaration. The span that reaches the
// budget has the terms of the whole lines within it (or of its text up to a space); the
// spans after it have none.
func LineSpanTerms(src []byte, spans [][2]int, limit int) []string {
	out := make([]string, len(spans))
	if len(spans) == 0 {
		return out
	}
	text := string(src) // one copy: each span's text is then a slice of it
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineAt := func(l int) int { return starts[min(max(l-1, 0), len(starts)-1)] }
	budget := spanBudget*len(src) + 1<<20
	a := NewAnalyzer()
	seen := map[string]bool{}
	var terms []string
	for i, sp := range spans {
		from, to := lineAt(sp[0]), len(src)
		if sp[1] < len(starts) {
			to = lineAt(sp[1] + 1)
		}
		if from >= to {
			continue
		}
		if to-from > budget {
			// Whole lines within the budget, else up to the last space within it.
			cut := text[from : from+max(budget, 0)]
			if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
				cut = cut[:i+1]
			} else {
				cut = cut[:max(strings.LastIndexByte(cut, ' '), 0)]
			}
			to = from + len(cut)
			budget = to - from // spent with this span
		}
		budget -= to - from
		terms = terms[:0]
		clear(seen)
		a.Terms(text[from:to], func(t string) {
			if len(terms) < limit && len(t) > 1 && !seen[t] {
				seen[t] = true
				terms = append(terms, t)
			}
		})
		out[i] = strings.Join(terms, " ")
	}
	return out
}

// Unseen reports a character a reader cannot see for what it is: a control character, an
// invisible format character (Unicode category Cf: bidi controls, zero-width characters), a
// line or paragraph separator, or a Hangul filler (a letter that shows as nothing).
func Unseen(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) ||
		r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

// BidiControl reports a character that reorders the text after it (an embedding, override or
// isolate): prose in a right-to-left script does not need one, a forged line does.
func BidiControl(r rune) bool { return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 }
