package golang

import (
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// Scan is the no-AST extractor: it finds the package clause, imports and top-level
// declarations from the token stream alone, with their doc comments (the comment lines
// directly above). It produces no calls, no test evidence and no Logic.
func Scan(name string, src []byte) *Facts {
	f := &Facts{}
	if !buildMatches(name, src) {
		f.Ignored = true
	}
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	var firstErr *SyntaxError
	s.Init(file, src, func(pos token.Position, msg string) {
		if firstErr == nil {
			firstErr = &SyntaxError{Line: pos.Line, Column: pos.Column, Message: msg}
		}
	}, scanner.ScanComments)

	toks := scanAll(&s)
	if firstErr != nil && !f.Ignored {
		f.Error = firstErr
		return f
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	// lastLine is the line a token ends on: a raw string may span several.
	lastLine := func(t lexeme) int { return line(t.pos) + strings.Count(t.lit, "\n") }
	// doc returns the comment block ending on the line above l.
	doc := func(i int) string {
		l := line(toks[i].pos)
		var lines []string
		for j := i - 1; j >= 0 && toks[j].tok == token.COMMENT; j-- {
			if line(toks[j].pos) != l-1-len(lines) || !strings.HasPrefix(toks[j].lit, "//") {
				break
			}
			lines = append([]string{strings.TrimSpace(strings.TrimPrefix(toks[j].lit, "//"))}, lines...)
		}
		return strings.TrimSpace(strings.Join(lines, "\n"))
	}
	next := func(i int) int { // the next non-comment token after i
		for i++; i < len(toks) && toks[i].tok == token.COMMENT; i++ {
		}
		return i
	}
	prevSignificant := func(i int) int { // the previous non-comment token before i, or -1
		for i--; i >= 0 && toks[i].tok == token.COMMENT; i-- {
		}
		return i
	}
	depth := 0 // brace depth: declarations are at 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.tok {
		case token.LBRACE:
			depth++
		case token.RBRACE:
			depth--
		}
		if depth != 0 {
			continue
		}
		// A declaration keyword starts a top-level declaration only at the start of a
		// statement; "func" also appears inside parameter lists, as a function type.
		if prev := prevSignificant(i); prev >= 0 && toks[prev].tok != token.SEMICOLON {
			continue
		}
		switch t.tok {
		case token.PACKAGE:
			if j := next(i); j < len(toks) && toks[j].tok == token.IDENT {
				f.Package = toks[j].lit
				f.Doc = doc(i)
			}
			if f.Ignored {
				return f
			}
		case token.IMPORT:
			j := next(i)
			group := j < len(toks) && toks[j].tok == token.LPAREN
			for ; j < len(toks); j = next(j) {
				switch toks[j].tok {
				case token.STRING:
					if p, err := strconv.Unquote(toks[j].lit); err == nil {
						imp := Import{Path: p, Line: line(toks[j].pos)}
						if k := j - 1; k >= 0 && (toks[k].tok == token.IDENT || toks[k].tok == token.PERIOD) && line(toks[k].pos) == imp.Line {
							imp.Name = toks[k].lit
							if toks[k].tok == token.PERIOD {
								imp.Name = "."
							}
						}
						f.Imports = append(f.Imports, imp)
					}
					if !group {
						j = len(toks)
					}
				case token.RPAREN:
					j = len(toks)
				}
				if j >= len(toks) {
					break
				}
			}
		case token.TYPE, token.VAR, token.CONST:
			kind := map[token.Token]string{token.TYPE: KindType, token.VAR: KindVar, token.CONST: KindConst}[t.tok]
			// spec adds the declarations of the spec starting at toks[j]: a type's one name, or
			// a value spec's comma-separated names, all with the digest of the whole spec.
			spec := func(j int, docAt int) {
				end := spanEnd(toks, j)
				sig := digestLexemes(signatureDomain, toks[j:end])
				k := max(end-1, j)
				for k > j && (toks[k].tok == token.SEMICOLON || toks[k].tok == token.COMMENT) {
					k--
				}
				last := lastLine(toks[k])
				for k := j; k < len(toks) && toks[k].tok == token.IDENT; {
					if toks[k].lit != "_" {
						f.Decls = append(f.Decls, Decl{Kind: kind, Name: toks[k].lit, Line: line(toks[k].pos), End: last, Doc: doc(docAt), Signature: sig})
					}
					if kind == KindType || k+2 >= len(toks) || toks[k+1].tok != token.COMMA {
						break
					}
					k += 2
				}
			}
			j := next(i)
			if j < len(toks) && toks[j].tok == token.IDENT {
				spec(j, i)
				continue
			}
			// A group: each spec starts at parenthesis depth 1, after a semicolon.
			paren, brace, atSpec := 0, 0, true
			for ; j < len(toks); j++ {
				switch toks[j].tok {
				case token.LPAREN:
					paren++
					continue
				case token.RPAREN:
					paren--
				case token.LBRACE:
					brace++
				case token.RBRACE:
					brace--
				case token.SEMICOLON:
					atSpec = paren == 1 && brace == 0
					continue
				case token.COMMENT:
					continue
				case token.IDENT:
					if atSpec && paren == 1 && brace == 0 {
						spec(j, j)
					}
				}
				atSpec = false
				if paren == 0 {
					break
				}
			}
			i = j
		case token.FUNC:
			d := Decl{Kind: KindFunc, Doc: doc(i)}
			j := next(i)
			if j < len(toks) && toks[j].tok == token.LPAREN {
				d.Kind = KindMethod
				var idents []string
				paren, bracket := 0, 0
				for ; j < len(toks); j++ {
					switch toks[j].tok {
					case token.LPAREN:
						paren++
					case token.RPAREN:
						paren--
					case token.LBRACK:
						bracket++
					case token.RBRACK:
						bracket--
					case token.IDENT:
						if bracket == 0 {
							idents = append(idents, toks[j].lit)
						}
					}
					if paren == 0 {
						break
					}
				}
				if len(idents) > 0 {
					d.Recv = idents[len(idents)-1]
				}
				j = next(j)
			}
			if j < len(toks) && toks[j].tok == token.IDENT && toks[j].lit != "_" {
				d.Name, d.Line = toks[j].lit, line(toks[i].pos)
				body, end := funcSpans(toks, i)
				d.End = lastLine(toks[max(end-1, i)])
				d.Signature = digestLexemes(signatureDomain, toks[i:body])
				d.Implementation = digestLexemes(implementationDomain, toks[body:end])
				f.Decls = append(f.Decls, d)
			}
		}
	}
	addTerms(f, src)
	return f
}
