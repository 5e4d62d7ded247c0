package index

import (
	"strings"

	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index/fts5seg"
)

// Counting a row's phrase frequencies in Go, as FTS5 would.
//
// Ranking a base row again needs its weighted frequency of each phrase of the query
// (deltarank.go). Where the row's analyzed text and the phrase are ASCII, FTS5's tokenizer
// (unicode61, whose diacritics and Unicode classes do not arise) makes its tokens the runs of
// ASCII letters and digits, lowercased; so the frequency is counted here, with no scratch
// table to fill (search p50 at 100k over 8 deltas 8.0 ms with the table, 6.1 ms counted here:
// docs/benchmarks.md). Anything else, and any row
// whose token count differs from its indexed size, goes to the scratch table.

// searchColumn is the number of the full-text table's column name, or -1.
func searchColumn(name string) int {
	switch name {
	case "id":
		return 0
	case "name":
		return 1
	case "title":
		return 2
	case "tags":
		return 3
	case "body":
		return 4
	case "code":
		return 5
	}
	return -1
}

// maxCountedToken bounds the tokens counted here: FTS5 handles longer ones its own way.
const maxCountedToken = 256

// countedPhrase is a phrase of a query as FTS5 tokenizes it: its column (-1 for any), its
// tokens, and whether the last one is a prefix.
type countedPhrase struct {
	col    int
	tokens []string
	prefix bool
}

// parsePhrase parses a phrase as parseExpr lists it: an optional column filter ("name : "),
// a quoted text and an optional prefix star. ok is false unless it is ASCII and has tokens.
func parsePhrase(ph string) (c countedPhrase, ok bool) {
	c.col = -1
	if i := strings.Index(ph, " : "); i >= 0 && !strings.HasPrefix(ph, `"`) {
		if c.col = searchColumn(ph[:i]); c.col < 0 {
			return c, false
		}
		ph = ph[i+3:]
	}
	if strings.HasSuffix(ph, "*") {
		c.prefix, ph = true, ph[:len(ph)-1]
	}
	if len(ph) < 2 || ph[0] != '"' || ph[len(ph)-1] != '"' || !lexicon.IsASCII(ph) {
		return c, false
	}
	c.tokens = asciiTokens(strings.ReplaceAll(ph[1:len(ph)-1], `""`, `"`), nil)
	for _, t := range c.tokens {
		if len(t) > maxCountedToken {
			return c, false
		}
	}
	return c, len(c.tokens) > 0
}

// asciiTokens appends the tokens of ASCII text to dst, lowercased: FTS5's tokens of it
// (fts5seg.Tokens).
func asciiTokens(text string, dst []string) []string {
	fts5seg.Tokens(text, func(tok string, lower bool) bool {
		if !lower {
			tok = strings.ToLower(tok)
		}
		dst = append(dst, tok)
		return true
	})
	return dst
}

// phraseCounter counts the query's phrases in rows' analyzed text.
type phraseCounter struct {
	phrases []countedPhrase
	weights [searchColumns]float64
}

// newPhraseCounter returns a counter of phrases with the column weights, or nil when one of
// the phrases is not countable here.
func newPhraseCounter(phrases []string, weights [searchColumns]float64) *phraseCounter {
	c := &phraseCounter{weights: weights}
	for _, ph := range phrases {
		p, ok := parsePhrase(ph)
		if !ok {
			return nil
		}
		c.phrases = append(c.phrases, p)
	}
	return c
}

// count returns a row's size in tokens and its weighted frequency of each phrase, summed as
// FTS5 sums them (each hit's column weight, column by column); ok is false when the row is
// not ASCII or holds a token too long to count here.
func (c *phraseCounter) count(t *searchText) (size int64, freq []float64, ok bool) {
	cols := [searchColumns]string{t.id, t.name, t.title, t.tags, t.body, t.code}
	freq = make([]float64, len(c.phrases))
	var tokens []string
	for col, text := range cols {
		if !lexicon.IsASCII(text) {
			return 0, nil, false
		}
		tokens = asciiTokens(text, tokens[:0])
		size += int64(len(tokens))
		for _, tok := range tokens {
			if len(tok) > maxCountedToken {
				return 0, nil, false
			}
		}
		for j := range c.phrases {
			p := &c.phrases[j]
			if p.col >= 0 && p.col != col {
				continue
			}
			for i := range tokens {
				if p.matchesAt(tokens, i) {
					freq[j] += c.weights[col]
				}
			}
		}
	}
	return size, freq, true
}

// matchesAt says whether the phrase's tokens start at tokens[i].
func (p *countedPhrase) matchesAt(tokens []string, i int) bool {
	if i+len(p.tokens) > len(tokens) {
		return false
	}
	last := len(p.tokens) - 1
	for k, want := range p.tokens {
		got := tokens[i+k]
		if k == last && p.prefix {
			if !strings.HasPrefix(got, want) {
				return false
			}
		} else if got != want {
			return false
		}
	}
	return true
}
