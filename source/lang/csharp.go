package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// CSharp reads .cs files: namespaces, classes, structs, interfaces, enums and their members,
// records, delegates, methods, constructors, properties, fields (const ones are constants).
// Methods with a test attribute (NUnit, xUnit, MSTest), and every method of a file in a test
// project (a folder or file named *Tests or *Test), are tests.
func CSharp() *Language {
	return &Language{
		Name: "csharp", Prefix: graph.CSharpPrefix, Grammar: treesit.CSharp, Extensions: []string{".cs"}, Builds: []string{"*.csproj", "*.sln"},
		Decls: map[string]Rule{
			"namespace_declaration":   {Kind: code.KindModule, Name: "name", Body: "body"},
			"class_declaration":       {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"base_list"}},
			"struct_declaration":      {Kind: code.KindStruct, Name: "name", Body: "body", Bases: []string{"base_list"}},
			"interface_declaration":   {Kind: code.KindInterface, Name: "name", Body: "body", Bases: []string{"base_list"}},
			"enum_declaration":        {Kind: code.KindEnum, Name: "name", Body: "body"},
			"enum_member_declaration": {Kind: code.KindConst, Name: "name"},
			"record_declaration":      {Kind: code.KindRecord, Name: "name", Body: "body", Bases: []string{"base_list"}},
			"delegate_declaration":    {Kind: code.KindType, Name: "name"},
			"method_declaration":      {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"constructor_declaration": {Kind: code.KindConstructor, Name: "name", Body: "body"},
			"property_declaration":    {Kind: code.KindField, Name: "name"},
			"field_declaration":       {Kind: code.KindField, Names: "variable_declarator", Name: "name", Const: csharpConst},
		},
		Calls: map[string]Call{
			"invocation_expression":      {Callee: "function"},
			"object_creation_expression": {Callee: "type", New: true},
		},
		ImplicitThis: true,
		TypeNames:    []string{"identifier"},
		Comments:     []string{"comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "///") || strings.HasPrefix(text, "/**") },
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			m := csharpModifiers(t, n)
			return strings.Contains(m, "public") || strings.Contains(m, "protected")
		},
		Test: func(t *treesit.Tree, n *treesit.Node) bool {
			if n.Type() != "method_declaration" {
				return false
			}
			found := false
			t.Children(n, func(c *treesit.Node) {
				if c.Type() == "attribute_list" {
					a := t.Text(c)
					for _, name := range []string{"Test", "Fact", "Theory", "TestMethod", "TestCase", "DataTestMethod"} {
						found = found || strings.Contains(a, "["+name) || strings.Contains(a, " "+name) || strings.Contains(a, ","+name)
					}
				}
			})
			return found
		},
		Imports: csharpImports,
		Module:  csharpModule,
		TestFile: func(rel string) bool {
			for _, seg := range strings.Split(path.Dir(rel), "/") {
				if strings.HasSuffix(seg, "Tests") || strings.HasSuffix(seg, ".Test") || strings.HasSuffix(seg, ".Tests") {
					return true
				}
			}
			base := strings.TrimSuffix(path.Base(rel), ".cs")
			return strings.HasSuffix(base, "Tests") || strings.HasSuffix(base, "Test")
		},
		Logic: true,
		Kinds: []string{code.KindModule, code.KindClass, code.KindStruct, code.KindInterface, code.KindEnum, code.KindRecord,
			code.KindType, code.KindMethod, code.KindFunc, code.KindConstructor, code.KindField, code.KindConst},
	}
}

// csharpModifiers are a declaration's modifier keywords, space-separated.
func csharpModifiers(t *treesit.Tree, n *treesit.Node) string {
	var out []string
	t.Children(n, func(c *treesit.Node) {
		if c.Type() == "modifier" {
			out = append(out, t.Text(c))
		}
	})
	return strings.Join(out, " ")
}

// csharpConst reports whether a field is a constant: const, or static readonly.
func csharpConst(t *treesit.Tree, n *treesit.Node) bool {
	m := " " + csharpModifiers(t, n) + " "
	return strings.Contains(m, " const ") || strings.Contains(m, " static ") && strings.Contains(m, " readonly ")
}

// csharpImports reads a C# file's namespace (its first) and using directives: using A.B
// imports a namespace whole, using X = A.B.C names a type; the types the file names bind as
// Java's do (packageImports), qualified in their files by their namespace (Shop.Core.Cart).
func csharpImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	var named []code.Import
	var wholes []string
	t.Walk(root, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "namespace_declaration", "file_scoped_namespace_declaration":
			if f.Package == "" {
				f.Package = strings.Join(strings.Fields(t.Text(c.ChildByFieldName("name"))), "")
			}
			return true
		case "using_directive":
			spec := strings.TrimSuffix(strings.TrimSpace(t.Text(c)), ";")
			spec = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(spec, "global "), "using"))
			if strings.HasPrefix(spec, "static ") {
				return false
			}
			if alias, target, ok := strings.Cut(spec, "="); ok {
				target = strings.Join(strings.Fields(target), "")
				if i := strings.LastIndexByte(target, '.'); i > 0 {
					named = append(named, code.Import{Module: target, Local: strings.TrimSpace(alias), Name: target, Line: treesit.Line(c)})
				}
				return false
			}
			wholes = append(wholes, strings.Join(strings.Fields(spec), ""))
			return false
		}
		return c == root || c.Type() == "declaration_list"
	})
	packageImports(f, named, wholes, func(pkg, head string) string {
		if pkg == "" {
			return head
		}
		return pkg + "." + head
	})
}

// csharpModule is the file a type's qualified name (A.B.C) names by convention: C.cs in the
// folder of namespace A.B, or of B where the folders leave the root namespace out, under the
// root of the file at rel.
func csharpModule(rel string, f *code.Facts, module string) []string {
	return typeFiles(sourceRoots(rel, f.Package, nil), module, lastPart, ".cs", true)
}
