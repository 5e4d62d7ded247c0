package golang

import (
	"go/scanner"
	"go/token"

	"github.com/docforge/docforge/base/graph"
)

// A declaration's signature and implementation digests cover its tokens, not its bytes: a
// function moved, re-indented or re-commented keeps them, so review stamps on it stay
// confirmed. Both extractors compute them from the same token rules, so switching to
// --no-ast does not turn every stamp suspect.

// lexeme is one token as the scanner produced it.
type lexeme struct {
	pos token.Pos
	tok token.Token
	lit string
}

// lexemeDigest digests a run of tokens given one at a time. Comments and the semicolons the
// scanner inserts at line ends are left out, so only a change to the code itself changes the
// digest. Tokens are gathered in a buffer of at most a KB and hashed from there: every
// declaration is digested, and a slice of its tokens, then the text they made, were a fifth
// of what a GOROOT build allocated.
type lexemeDigest struct {
	d   graph.Digester
	buf []byte
	any bool
}

// digestBuffer bounds the buffer of a lexemeDigest.
const digestBuffer = 1024

// newLexemeDigest starts a digest of tokens whose text is about size bytes: a token's text
// is its kind's name and its literal, about twice the source it was scanned from.
func newLexemeDigest(domain string, size int) lexemeDigest {
	return lexemeDigest{d: graph.NewDigester(domain), buf: make([]byte, 0, min(max(size, 64), digestBuffer))}
}

func (l *lexemeDigest) add(tok token.Token, lit string) {
	l.any = true
	if tok == token.COMMENT || (tok == token.SEMICOLON && lit == "\n") {
		return
	}
	l.buf = append(l.buf, tok.String()...)
	if lit != "" && tok != token.SEMICOLON {
		l.buf = append(append(l.buf, ' '), lit...)
	}
	l.buf = append(l.buf, '\n')
	if len(l.buf) > digestBuffer*3/4 {
		l.d.Write(l.buf)
		l.buf = l.buf[:0]
	}
}

// sum returns the digest, or "" when no token at all was given.
func (l *lexemeDigest) sum() string {
	if !l.any {
		return ""
	}
	l.d.Write(l.buf)
	return l.d.Sum()
}

// digestLexemes digests a run of tokens.
func digestLexemes(domain string, toks []lexeme) string {
	l := newLexemeDigest(domain, 16*len(toks))
	for _, t := range toks {
		l.add(t.tok, t.lit)
	}
	return l.sum()
}

const (
	signatureDomain      = "docforge.go.signature.v1"
	implementationDomain = "docforge.go.implementation.v1"
)

// digestSource digests the tokens of src[from:to].
func digestSource(domain string, src []byte, from, to int) string {
	if from < 0 || to > len(src) || from >= to {
		return ""
	}
	fset := token.NewFileSet()
	part := src[from:to]
	file := fset.AddFile("", -1, len(part))
	var s scanner.Scanner
	s.Init(file, part, nil, 0)
	l := newLexemeDigest(domain, 2*len(part)+16)
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			return l.sum()
		}
		l.add(t, lit)
	}
}

// scanAll reads every token up to the end of the file.
func scanAll(s *scanner.Scanner) []lexeme {
	var toks []lexeme
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			return toks
		}
		toks = append(toks, lexeme{pos, t, lit})
	}
}

// spanEnd returns the index after the token run that starts at toks[from] and ends before a
// semicolon at its own bracket depth (the end of a type spec), or at the bracket that closes
// an enclosing group.
func spanEnd(toks []lexeme, from int) int {
	depth := 0
	for i := from; i < len(toks); i++ {
		switch toks[i].tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth == 0 {
				return i
			}
			depth--
		case token.SEMICOLON:
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// funcSpans splits the function declaration starting at toks[from] (its func keyword) into
// its signature [from, body) and its body [body, end); body == end when it has none.
func funcSpans(toks []lexeme, from int) (body, end int) {
	depth := 0
	for i := from; i < len(toks); i++ {
		switch toks[i].tok {
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK:
			depth--
		case token.LBRACE:
			if i > from && (toks[i-1].tok == token.STRUCT || toks[i-1].tok == token.INTERFACE) {
				// A type literal in the signature (func F() <-chan struct{}), not the body.
				i = matchingBrace(toks, i) - 1
				continue
			}
			if depth == 0 {
				return i, matchingBrace(toks, i)
			}
			depth++
		case token.RBRACE:
			depth--
		case token.SEMICOLON:
			if depth == 0 {
				return i, i
			}
		}
	}
	return len(toks), len(toks)
}

// matchingBrace returns the index after the brace that closes toks[open].
func matchingBrace(toks []lexeme, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].tok {
		case token.LBRACE:
			depth++
		case token.RBRACE:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(toks)
}
