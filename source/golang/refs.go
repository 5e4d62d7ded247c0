package golang

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// references are the package-level names a declaration uses without calling them: the types
// of its signature, fields and variables, the variables and constants it reads, functions it
// passes as values. They are found as calls are: an identifier is taken for a declaration of
// the same package, and pkg.Name through an import of the file. Names the declaration binds
// itself (parameters, results, locals, struct field names and composite-literal keys) are
// left out, and so is everything called, which calls already covers. Like calls, each is a
// candidate: it becomes a depends_on edge only when the project allows depends_on and the
// name is a node (so predeclared types and the standard library fall away).
func references(decl ast.Node, imports map[string]string, self string) []Callee {
	local := map[string]bool{}
	skip := map[*ast.Ident]bool{}
	bind := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil {
				local[id.Name] = true
				skip[id] = true
			}
		}
	}
	called := map[ast.Expr]bool{}
	ast.Inspect(decl, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Field:
			bind(x.Names...)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						bind(id)
					}
				}
			}
		case *ast.ValueSpec:
			bind(x.Names...)
		case *ast.TypeSpec:
			bind(x.Name)
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						bind(id)
					}
				}
			}
		case *ast.LabeledStmt:
			skip[x.Label] = true
		case *ast.BranchStmt:
			skip[x.Label] = true
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok {
				skip[id] = true // a field name in a composite literal
			}
		case *ast.CallExpr:
			called[unwrapCall(x.Fun)] = true
		case *ast.SelectorExpr:
			skip[x.Sel] = true // x.Sel names a field, method or a package member (below)
		}
		return true
	})
	seen := map[Callee]bool{}
	ast.Inspect(decl, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if called[x] {
				return true
			}
			if pkg, ok := x.X.(*ast.Ident); ok && !local[pkg.Name] {
				if p, ok := imports[pkg.Name]; ok {
					seen[Callee{Pkg: p, Name: x.Sel.Name}] = true
				}
			}
		case *ast.Ident:
			if skip[x] || called[x] || local[x.Name] || x.Name == "_" || x.Name == self || predeclared[x.Name] {
				return true
			}
			if _, isImport := imports[x.Name]; !isImport {
				seen[Callee{Name: x.Name}] = true
			}
		}
		return true
	})
	out := make([]Callee, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Callee) int {
		return strings.Compare(a.Pkg+"\x00"+a.Name, b.Pkg+"\x00"+b.Name)
	})
	return out
}

// predeclared are the universe scope's names that are not builtin functions (those are in
// builtins): they are never a package's declarations.
var predeclared = map[string]bool{
	"bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true, "error": true,
	"float32": true, "float64": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"rune": true, "string": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true, "true": true, "false": true, "iota": true, "nil": true,
}
