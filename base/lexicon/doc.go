// Package lexicon turns text into the terms DocForge's full-text index holds and queries ask
// for, so that both sides meet: a prose word is lowercased and stemmed ("registered" and
// "registers" are "register"); an identifier ("GetDiscussionComments", "get_discussion_comments",
// "HTTP2Server") is kept whole, lowercased without separators, and is also split into its
// parts, each treated as a prose word. A tool name written in snake_case therefore reaches the
// Go function written in camelCase, and a word of a sentence reaches the identifier that holds
// it, while the whole identifier stays exact.
//
// It is pure string work with no state, shared by the index writer and every query.
package lexicon
