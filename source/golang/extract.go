package golang

import (
	"bytes"
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/lexicon"
)

// DefaultLogicLimit bounds the steps of one function's Logic.
const DefaultLogicLimit = 400

// Extract parses one Go file with go/parser and returns its facts. name is the file's base
// name (build constraints in it, such as _linux, count). logicLimit bounds each function's
// Logic; 0 produces none. It never fails: a file that does not parse yields facts with Error.
func Extract(name string, src []byte, logicLimit int) *Facts {
	f := &Facts{}
	fset := token.NewFileSet()
	if !buildMatches(name, src) {
		f.Ignored = true
		if file, err := parser.ParseFile(fset, name, src, parser.PackageClauseOnly); err == nil {
			f.Package = file.Name.Name
		}
		return f
	}
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		f.Error = syntaxError(err)
		return f
	}
	f.Package = file.Name.Name
	f.Doc = docText(file.Doc)
	imports := f.readImports(fset, file)
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			f.Decls = append(f.Decls, genDecls(fset, src, d, imports)...)
		case *ast.FuncDecl:
			if d.Name.Name != "_" {
				f.Decls = append(f.Decls, funcDecl(fset, src, d, imports, logicLimit))
			}
		}
	}
	addTerms(f, src)
	return f
}

// readImports records the file's imports and returns the names they bind in it (blank and
// dot imports bind none).
func (f *Facts) readImports(fset *token.FileSet, file *ast.File) map[string]string {
	imports := map[string]string{} // name in this file -> import path
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		imp := Import{Path: p, Line: fset.Position(spec.Pos()).Line}
		local := DefaultImportName(p)
		if spec.Name != nil {
			imp.Name = spec.Name.Name
			local = spec.Name.Name
		}
		if local != "_" && local != "." {
			imports[local] = p
		}
		f.Imports = append(f.Imports, imp)
	}
	return imports
}

// genDecls are the declarations of a var, const or type block (a lone spec's doc comment is
// the block's).
func genDecls(fset *token.FileSet, src []byte, d *ast.GenDecl, imports map[string]string) []Decl {
	if d.Tok == token.VAR || d.Tok == token.CONST {
		return valueDecls(fset, src, d, imports)
	}
	if d.Tok != token.TYPE {
		return nil
	}
	var out []Decl
	for _, spec := range d.Specs {
		ts := spec.(*ast.TypeSpec)
		if ts.Name.Name == "_" {
			continue
		}
		doc := ts.Doc
		if doc == nil && len(d.Specs) == 1 {
			doc = d.Doc
		}
		out = append(out, Decl{Kind: KindType, Name: ts.Name.Name, Line: fset.Position(ts.Pos()).Line, End: fset.Position(ts.End()).Line, Doc: docText(doc),
			Signature: digestSource(signatureDomain, src, offset(fset, ts.Pos()), offset(fset, ts.End())), Refs: references(ts, imports, ts.Name.Name)})
	}
	return out
}

// funcDecl is a function or method with its digests, references, calls and Logic.
func funcDecl(fset *token.FileSet, src []byte, d *ast.FuncDecl, imports map[string]string, logicLimit int) Decl {
	dc := Decl{Kind: KindFunc, Name: d.Name.Name, Line: fset.Position(d.Pos()).Line, End: fset.Position(d.End()).Line, Doc: docText(d.Doc),
		Signature: digestSource(signatureDomain, src, offset(fset, d.Type.Pos()), offset(fset, d.Type.End()))}
	recvName := ""
	if d.Recv != nil && len(d.Recv.List) > 0 {
		dc.Kind = KindMethod
		dc.Recv = receiverType(d.Recv.List[0].Type)
		if names := d.Recv.List[0].Names; len(names) > 0 {
			recvName = names[0].Name
		}
	}
	dc.Refs = references(d, imports, d.Name.Name)
	if d.Body == nil {
		return dc
	}
	dc.Implementation = digestSource(implementationDomain, src, offset(fset, d.Body.Pos()), offset(fset, d.Body.End()))
	dc.Calls = calls(d.Body, imports, recvName, dc.Recv, localTypes(d, imports))
	if logicLimit > 0 {
		dc.Logic = buildLogic(fset, src, d, logicLimit)
	}
	return dc
}

// maxDeclTerms bounds the distinct terms kept of one declaration's source.
const maxDeclTerms = 400

// addTerms sets each declaration's Terms from its source lines.
func addTerms(f *Facts, src []byte) {
	spans := make([][2]int, len(f.Decls))
	for i, d := range f.Decls {
		spans[i] = [2]int{d.Line, d.End}
	}
	for i, t := range lexicon.LineSpanTerms(src, spans, maxDeclTerms) {
		f.Decls[i].Terms = t
	}
}

// valueDecls are the package-level variables or constants of one var or const declaration:
// a node per name (blank names excepted), each carrying its spec's doc comment, or the
// declaration's when it has a single spec, and the digest of the whole spec.
func valueDecls(fset *token.FileSet, src []byte, d *ast.GenDecl, imports map[string]string) []Decl {
	kind := KindVar
	if d.Tok == token.CONST {
		kind = KindConst
	}
	var out []Decl
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		doc := vs.Doc
		if doc == nil && len(d.Specs) == 1 {
			doc = d.Doc
		}
		sig := digestSource(signatureDomain, src, offset(fset, vs.Pos()), offset(fset, vs.End()))
		refs := references(vs, imports, "")
		for _, n := range vs.Names {
			if n.Name == "_" {
				continue
			}
			out = append(out, Decl{Kind: kind, Name: n.Name, Line: fset.Position(n.Pos()).Line, End: fset.Position(vs.End()).Line, Doc: docText(doc), Signature: sig, Refs: refs})
		}
	}
	return out
}

func offset(fset *token.FileSet, p token.Pos) int { return fset.Position(p).Offset }

// buildMatches applies the build constraints of the file name and its //go:build lines for
// the platform DocForge runs on, as the go command would.
func buildMatches(name string, src []byte) bool {
	ctx := build.Default
	ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	ok, err := ctx.MatchFile(".", name)
	return err != nil || ok // a malformed constraint is the compiler's to report, not ours
}

func syntaxError(err error) *SyntaxError {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &SyntaxError{Line: list[0].Pos.Line, Column: list[0].Pos.Column, Message: list[0].Msg}
	}
	return &SyntaxError{Line: 1, Column: 1, Message: err.Error()}
}

func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// receiverType returns the base type name of a receiver: T for T, *T, T[K] and *T[K].
func receiverType(e ast.Expr) string {
	if id, ok := baseType(e).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// baseType strips pointers, parentheses and type arguments from a type expression: T or
// pkg.T for *T, (T), T[K] and *pkg.T[K, V].
func baseType(e ast.Expr) ast.Expr {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		default:
			return e
		}
	}
}

// DefaultImportName guesses the package name of an import path without loading it: the last
// element, skipping a major-version element (v2) and a gopkg.in-style .vN suffix.
func DefaultImportName(p string) string {
	elems := strings.Split(p, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && isMajorVersion(last) {
		last = elems[len(elems)-2]
	}
	if i := strings.LastIndex(last, ".v"); i > 0 && isMajorVersion(last[i+1:]) {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(path.Base(last), "-", "_")
}

func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

var builtins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// calls collects the call candidates of a body: unqualified calls (the same package),
// package-qualified calls through an import of this file, and method calls through the
// receiver of the enclosing method. Calls inside closures count for the enclosing function.
func calls(body *ast.BlockStmt, imports map[string]string, recvName, recvType string, locals map[string]Callee) []Callee {
	seen := map[Callee]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := unwrapCall(call.Fun)
		switch f := fun.(type) {
		case *ast.Ident:
			if !builtins[f.Name] {
				seen[Callee{Name: f.Name}] = true
			}
		case *ast.SelectorExpr:
			x, ok := f.X.(*ast.Ident)
			if !ok {
				break
			}
			if recvName != "" && x.Name == recvName {
				seen[Callee{Recv: recvType, Name: f.Sel.Name}] = true
			} else if t, ok := locals[x.Name]; ok {
				seen[Callee{Pkg: t.Pkg, Recv: t.Name, Name: f.Sel.Name}] = true
			} else if p, ok := imports[x.Name]; ok {
				seen[Callee{Pkg: p, Name: f.Sel.Name}] = true
			}
		}
		return true
	})
	out := make([]Callee, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Callee) int {
		return strings.Compare(a.Pkg+"\x00"+a.Recv+"\x00"+a.Name, b.Pkg+"\x00"+b.Recv+"\x00"+b.Name)
	})
	return out
}

// localTypes are the named types of a function's parameters and of the locals it declares
// with an evident type (var x T, x := T{...}, x := &T{...}, x := new(T)), by name: a method
// call on one of them (x.M()) resolves to that type's method. The type is a Callee: Pkg for
// an imported type, Name the type's name. Shadowing is not tracked, as for calls.
func localTypes(d *ast.FuncDecl, imports map[string]string) map[string]Callee {
	out := map[string]Callee{}
	bind := func(names []*ast.Ident, typ ast.Expr) {
		if c, ok := namedType(typ, imports); ok {
			for _, n := range names {
				out[n.Name] = c
			}
		}
	}
	if d.Type.Params != nil {
		for _, f := range d.Type.Params.List {
			bind(f.Names, f.Type)
		}
	}
	if d.Body == nil {
		return out
	}
	ast.Inspect(d.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			if x.Type != nil {
				bind(x.Names, x.Type)
			}
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE || len(x.Lhs) != len(x.Rhs) {
				break
			}
			for i, r := range x.Rhs {
				if id, ok := x.Lhs[i].(*ast.Ident); ok {
					if typ := evidentType(r); typ != nil {
						bind([]*ast.Ident{id}, typ)
					}
				}
			}
		}
		return true
	})
	return out
}

// namedType is the named type an expression names (through pointers), as a Callee: Pkg for
// an imported type; a predeclared type is none.
func namedType(e ast.Expr, imports map[string]string) (Callee, bool) {
	switch t := baseType(e).(type) {
	case *ast.Ident:
		return Callee{Name: t.Name}, !predeclared[t.Name]
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			if p, ok := imports[x.Name]; ok {
				return Callee{Pkg: p, Name: t.Sel.Name}, true
			}
		}
	}
	return Callee{}, false
}

// evidentType is the type an initializer shows: T{...}, &T{...} or new(T); nil otherwise.
func evidentType(r ast.Expr) ast.Expr {
	switch v := r.(type) {
	case *ast.CompositeLit:
		return v.Type
	case *ast.UnaryExpr:
		if lit, ok := v.X.(*ast.CompositeLit); ok && v.Op == token.AND {
			return lit.Type
		}
	case *ast.CallExpr:
		if fn, ok := v.Fun.(*ast.Ident); ok && fn.Name == "new" && len(v.Args) == 1 {
			return v.Args[0]
		}
	}
	return nil
}

// unwrapCall strips generic instantiation and parentheses from a called expression.
func unwrapCall(e ast.Expr) ast.Expr {
	for {
		switch f := e.(type) {
		case *ast.IndexExpr: // f[T](x)
			e = f.X
		case *ast.IndexListExpr:
			e = f.X
		case *ast.ParenExpr:
			e = f.X
		default:
			return e
		}
	}
}

// IsExported reports whether a Go identifier is exported.
func IsExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// IsTestFunc reports whether name is a test function the go tool would run: Test, or Test
// followed by something that does not start with a lower-case letter.
func IsTestFunc(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}
