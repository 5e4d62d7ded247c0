package lexicon

import "strings"

// Pair is two words of a text that may be one word or identifier written apart ("event
// store" is EventStore, "back up" is backup). Compound says a hyphen joined them
// ("read-only"), so that even a stopword half counts.
type Pair struct {
	A, B     string
	Compound bool
}

// Pairs are the pairs of words of text that may be one written apart: words of one phrase
// next to each other with only white space between them, neither of them part of a
// hyphenated compound; and the two halves of a compound of two words. Never across
// punctuation ("tools, resources"), never out of a compound ("a new read-only tool" gives
// read+only, not new+read).
func Pairs(text string) []Pair {
	type word struct {
		text   string
		after  string // the separator after it
		hyphen bool   // a hyphen joins it to the word before
	}
	var words []word
	start, sep := -1, 0
	for i, r := range text {
		switch inWord := isWordRune(r); {
		case inWord && start < 0:
			w := word{}
			if n := len(words); n > 0 {
				words[n-1].after = text[sep:i]
				w.hyphen = words[n-1].after == "-"
			}
			words = append(words, w)
			start = i
		case !inWord && start >= 0:
			words[len(words)-1].text = text[start:i]
			start, sep = -1, i
		}
	}
	if start >= 0 {
		words[len(words)-1].text = text[start:]
	}
	var out []Pair
	for i := 0; i+1 < len(words); i++ {
		a, b := words[i], words[i+1]
		if a.hyphen || b.after == "-" {
			continue // a word of a longer compound
		}
		switch {
		case a.after == "-":
			out = append(out, Pair{a.text, b.text, true})
		case a.after != "" && strings.TrimSpace(a.after) == "":
			out = append(out, Pair{a.text, b.text, false})
		}
	}
	return out
}
