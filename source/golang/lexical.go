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
	ls := &lexicalScan{f: f, fset: fset, toks: scanAll(&s)}
	if firstErr != nil && !f.Ignored {
		f.Error = firstErr
		return f
	}
	depth := 0 // brace depth: declarations are at 0
	for i := 0; i < len(ls.toks); i++ {
		switch ls.toks[i].tok {
		case token.LBRACE:
			depth++
		case token.RBRACE:
			depth--
		}
		// A declaration keyword starts a top-level declaration only at the start of a
		// statement; "func" also appears inside parameter lists, as a function type.
		if prev := ls.prevSignificant(i); depth != 0 || prev >= 0 && ls.toks[prev].tok != token.SEMICOLON {
			continue
		}
		switch ls.toks[i].tok {
		case token.PACKAGE:
			ls.packageClause(i)
			if f.Ignored {
				return f
			}
		case token.IMPORT:
			ls.imports(i)
		case token.TYPE, token.VAR, token.CONST:
			i = ls.valueDecls(i)
		case token.FUNC:
			ls.funcDecl(i)
		}
	}
	addTerms(f, src)
	return f
}

// lexicalScan is Scan's work on one file's tokens: it adds what it finds to f.
type lexicalScan struct {
	f    *Facts
	fset *token.FileSet
	toks []lexeme
}

func (ls *lexicalScan) line(p token.Pos) int { return ls.fset.Position(p).Line }

// lastLine is the line a token ends on: a raw string may span several.
func (ls *lexicalScan) lastLine(t lexeme) int { return ls.line(t.pos) + strings.Count(t.lit, "\n") }

// doc returns the // comment block ending on the line above token i.
func (ls *lexicalScan) doc(i int) string {
	l := ls.line(ls.toks[i].pos)
	var lines []string
	for j := i - 1; j >= 0 && ls.toks[j].tok == token.COMMENT; j-- {
		if ls.line(ls.toks[j].pos) != l-1-len(lines) || !strings.HasPrefix(ls.toks[j].lit, "//") {
			break
		}
		lines = append([]string{strings.TrimSpace(strings.TrimPrefix(ls.toks[j].lit, "//"))}, lines...)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// next is the next non-comment token after i.
func (ls *lexicalScan) next(i int) int {
	for i++; i < len(ls.toks) && ls.toks[i].tok == token.COMMENT; i++ {
	}
	return i
}

// prevSignificant is the previous non-comment token before i, or -1.
func (ls *lexicalScan) prevSignificant(i int) int {
	for i--; i >= 0 && ls.toks[i].tok == token.COMMENT; i-- {
	}
	return i
}

// packageClause reads the package name and its doc comment.
func (ls *lexicalScan) packageClause(i int) {
	if j := ls.next(i); j < len(ls.toks) && ls.toks[j].tok == token.IDENT {
		ls.f.Package = ls.toks[j].lit
		ls.f.Doc = ls.doc(i)
	}
}

// imports reads one import declaration, single or grouped.
func (ls *lexicalScan) imports(i int) {
	toks := ls.toks
	j := ls.next(i)
	group := j < len(toks) && toks[j].tok == token.LPAREN
	for ; j < len(toks); j = ls.next(j) {
		switch toks[j].tok {
		case token.STRING:
			if p, err := strconv.Unquote(toks[j].lit); err == nil {
				ls.f.Imports = append(ls.f.Imports, ls.importAt(j, p))
			}
			if !group {
				return
			}
		case token.RPAREN:
			return
		}
	}
}

// importAt is the import of path at string token j, with its name when one precedes it.
func (ls *lexicalScan) importAt(j int, path string) Import {
	imp := Import{Path: path, Line: ls.line(ls.toks[j].pos)}
	if k := j - 1; k >= 0 && (ls.toks[k].tok == token.IDENT || ls.toks[k].tok == token.PERIOD) && ls.line(ls.toks[k].pos) == imp.Line {
		imp.Name = ls.toks[k].lit
		if ls.toks[k].tok == token.PERIOD {
			imp.Name = "."
		}
	}
	return imp
}

// valueDecls reads a type, var or const declaration at token i, single or grouped, and
// returns the token where the scan goes on.
func (ls *lexicalScan) valueDecls(i int) int {
	toks := ls.toks
	kind := map[token.Token]string{token.TYPE: KindType, token.VAR: KindVar, token.CONST: KindConst}[toks[i].tok]
	j := ls.next(i)
	if j < len(toks) && toks[j].tok == token.IDENT {
		ls.spec(kind, j, i)
		return i
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
				ls.spec(kind, j, j)
			}
		}
		atSpec = false
		if paren == 0 {
			break
		}
	}
	return j
}

// spec adds the declarations of the spec starting at token j (its doc comment above token
// docAt): a type's one name, or a value spec's comma-separated names, all with the digest of
// the whole spec.
func (ls *lexicalScan) spec(kind string, j, docAt int) {
	toks := ls.toks
	end := spanEnd(toks, j)
	sig := digestLexemes(signatureDomain, toks[j:end])
	k := max(end-1, j)
	for k > j && (toks[k].tok == token.SEMICOLON || toks[k].tok == token.COMMENT) {
		k--
	}
	last := ls.lastLine(toks[k])
	for k := j; k < len(toks) && toks[k].tok == token.IDENT; {
		if toks[k].lit != "_" {
			ls.f.Decls = append(ls.f.Decls, Decl{Kind: kind, Name: toks[k].lit, Line: ls.line(toks[k].pos), End: last, Doc: ls.doc(docAt), Signature: sig})
		}
		if kind == KindType || k+2 >= len(toks) || toks[k+1].tok != token.COMMA {
			break
		}
		k += 2
	}
}

// funcDecl reads a function or method declaration at token i.
func (ls *lexicalScan) funcDecl(i int) {
	toks := ls.toks
	d := Decl{Kind: KindFunc, Doc: ls.doc(i)}
	j := ls.next(i)
	if j < len(toks) && toks[j].tok == token.LPAREN {
		d.Kind = KindMethod
		var end int
		d.Recv, end = receiverName(toks, j)
		j = ls.next(end)
	}
	if j < len(toks) && toks[j].tok == token.IDENT && toks[j].lit != "_" {
		d.Name, d.Line = toks[j].lit, ls.line(toks[i].pos)
		body, end := funcSpans(toks, i)
		d.End = ls.lastLine(toks[max(end-1, i)])
		d.Signature = digestLexemes(signatureDomain, toks[i:body])
		d.Implementation = digestLexemes(implementationDomain, toks[body:end])
		ls.f.Decls = append(ls.f.Decls, d)
	}
}

// receiverName is the type name of the receiver list opening at token j (its last
// identifier outside type parameters), and the token that closes the list.
func receiverName(toks []lexeme, j int) (string, int) {
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
	if len(idents) == 0 {
		return "", j
	}
	return idents[len(idents)-1], j
}
