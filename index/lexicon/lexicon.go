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
// parts, stemmed; for a word its stem. Parts of one letter are dropped, except that a
// one-letter token is kept as it is.
func Analyze(token string) []Term {
	parts := Split(token)
	if len(parts) == 0 {
		return nil
	}
	if len(parts) == 1 {
		return []Term{{Text: Stem(parts[0])}}
	}
	out := []Term{{Text: strings.Join(parts, ""), Whole: true}}
	for _, p := range parts {
		if utf8.RuneCountInString(p) > 1 {
			out = append(out, Term{Text: Stem(p)})
		}
	}
	return out
}

// Split breaks a token into lowercase parts at underscores, at lower-to-upper case changes
// ("getID" is get, id), before the last capital of a run followed by a lowercase letter
// ("HTTPServer" is http, server), and between letters and digits ("Base64Encode" is base,
// 64, encode). A token of one plain word is one part.
func Split(token string) []string {
	var parts []string
	rs := []rune(token)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(string(rs[start:end])))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		case unicode.IsDigit(r) != unicode.IsDigit(prev) && prev != '_':
			flush(i)
		}
	}
	flush(len(rs))
	return parts
}

// Text is the analyzed form of a text for the full-text index: every term of every token,
// separated by spaces.
func Text(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/4)
	Terms(text, func(t string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	})
	return b.String()
}

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
	// A final e goes too, so that "change", "changed" and "changing" meet at "chang".
	if len(s) > 4 && s[len(s)-1] == 'e' && s[len(s)-2] != 'e' {
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
// text: the focus ranking reads whole documents for a handful of terms, and allocation
// dominated. fn must not keep its argument past the call.
func Terms(text string, fn func(term string)) {
	var buf []byte
	tokens(text, func(tok string, ascii bool) {
		if !ascii {
			for _, t := range Analyze(tok) {
				fn(t.Text)
			}
			return
		}
		buf = asciiTerms(buf, tok, fn)
	})
}

// tokens calls fn with each token of text (a run of letters, digits and underscores), and
// whether it is all ASCII.
func tokens(text string, fn func(tok string, ascii bool)) {
	i := 0
	for i < len(text) {
		c := text[i]
		if c < 0x80 && !isASCIIWord(c) {
			i++
			continue
		}
		j, ascii := i, true
		for j < len(text) {
			if text[j] < 0x80 {
				if !isASCIIWord(text[j]) {
					break
				}
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			j += size
		}
		if j == i { // a non-ASCII character that is not a word character
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		fn(text[i:j], ascii)
		i = j
	}
}

// asciiTerms emits the terms of an ASCII token as Analyze would, splitting it as Split does
// into buf (returned for reuse).
func asciiTerms(buf []byte, tok string, fn func(string)) []byte {
	var parts [16][2]int // part boundaries in buf
	buf = buf[:0]
	np, start := 0, 0
	flush := func() {
		if len(buf) > start && np < len(parts) {
			parts[np] = [2]int{start, len(buf)}
			np++
		}
		start = len(buf)
	}
	for k := 0; k < len(tok); k++ {
		ch := tok[k]
		if ch == '_' {
			flush()
			continue
		}
		if k > 0 && len(buf) > start {
			prev := tok[k-1]
			switch {
			case isUpper(ch) && isLower(prev):
				flush()
			case isUpper(ch) && isUpper(prev) && k+1 < len(tok) && isLower(tok[k+1]):
				flush()
			case isDigit(ch) != isDigit(prev) && prev != '_':
				flush()
			}
		}
		if isUpper(ch) {
			ch += 'a' - 'A'
		}
		buf = append(buf, ch)
	}
	flush()
	switch {
	case np == 0:
	case np == 1:
		fn(Stem(string(buf[parts[0][0]:parts[0][1]])))
	default:
		fn(string(buf))
		for _, p := range parts[:np] {
			if p[1]-p[0] > 1 {
				fn(Stem(string(buf[p[0]:p[1]])))
			}
		}
	}
	return buf
}

// Analyzer is Text with a memory: it keeps each distinct token's terms, since prose repeats
// its words and an index build analyzes every body. It is not safe for concurrent use.
type Analyzer struct {
	cache map[string][]string
	buf   []byte
	terms []string
}

// maxCachedTokens bounds an Analyzer's memory; past it, tokens are analyzed afresh.
const maxCachedTokens = 1 << 17

// NewAnalyzer returns an Analyzer with an empty memory.
func NewAnalyzer() *Analyzer { return &Analyzer{cache: map[string][]string{}} }

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
	tokens(text, func(tok string, ascii bool) {
		if ts, ok := a.cache[tok]; ok {
			for _, t := range ts {
				write(t)
			}
			return
		}
		a.terms = a.terms[:0]
		if ascii {
			a.buf = asciiTerms(a.buf, tok, func(t string) { a.terms = append(a.terms, t) })
		} else {
			for _, t := range Analyze(tok) {
				a.terms = append(a.terms, t.Text)
			}
		}
		for _, t := range a.terms {
			write(t)
		}
		if len(a.cache) < maxCachedTokens {
			a.cache[strings.Clone(tok)] = slices.Clone(a.terms)
		}
	})
	return b.String()
}

func isASCIIWord(c byte) bool { return isLower(c) || isUpper(c) || isDigit(c) || c == '_' }
func isLower(c byte) bool     { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool     { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
