package lang

import (
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Swift reads .swift files: classes, structs, enums and their cases, actors, protocols and
// their requirements, functions and methods (an extension's are the extended type's),
// properties. test* methods of test files (XCTest: a Tests folder or *Tests.swift) are tests.
// A type the file names but does not declare is its module's (no import needed: a SwiftPM
// target's folder, Sources/Shop) or an imported module's, in the file named as the type
// (Cart.swift, Cart+Codable.swift).
func Swift() *Language {
	return &Language{
		Name: "swift", Prefix: graph.SwiftPrefix, Grammar: treesit.Swift, Extensions: []string{".swift"}, Builds: []string{"Package.swift"},
		Decls: map[string]Rule{
			"class_declaration":             {KindOf: swiftKind, Name: "name", Body: "body", Bases: []string{"inheritance_specifier"}},
			"protocol_declaration":          {Kind: code.KindInterface, Name: "name", Body: "body", Bases: []string{"inheritance_specifier"}},
			"protocol_function_declaration": {Kind: code.KindFunc, Method: code.KindMethod, Name: "name"},
			"function_declaration":          {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"property_declaration":          {Kind: code.KindField, Name: "name/bound_identifier"},
			"enum_entry":                    {Kind: code.KindConst, Names: "simple_identifier"},
		},
		Calls:        map[string]Call{"call_expression": {Callee: "simple_identifier|navigation_expression"}},
		ImplicitThis: true,
		UpperIsType:  true,
		Comments:     []string{"comment", "multiline_comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "///") || strings.HasPrefix(text, "/**") },
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			private := false
			t.Children(n, func(c *treesit.Node) {
				m := t.Text(c)
				private = private || c.Type() == "modifiers" && (strings.Contains(m, "private") || strings.Contains(m, "fileprivate"))
			})
			return !private
		},
		TestFile: func(rel string) bool {
			base := path.Base(rel)
			return underDir(rel, "Tests") || strings.HasSuffix(base, "Tests.swift") || strings.HasSuffix(base, "Test.swift")
		},
		Imports:   swiftImports,
		ModuleIn:  swiftModule,
		FileNames: true,
		Kinds: []string{code.KindClass, code.KindStruct, code.KindEnum, code.KindInterface, code.KindFunc, code.KindMethod,
			code.KindField, code.KindConst},
	}
}

// swiftKind is a class_declaration's kind by its keyword; an extension is none ("").
func swiftKind(t *treesit.Tree, n *treesit.Node) string {
	for i := 0; i < int(n.ChildCount()); i++ {
		switch t.Text(n.Child(i)) {
		case "struct":
			return code.KindStruct
		case "enum":
			return code.KindEnum
		case "extension":
			return ""
		case "class", "actor":
			return code.KindClass
		}
	}
	return code.KindClass
}

// swiftImports reads the modules a Swift file imports (import Shop, @testable import Shop),
// kept as "@Shop", which bind no name, and binds each type its declarations name but do not
// declare to the files of its module or an imported one (swiftModule).
func swiftImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	var modules []code.Import
	t.Children(root, func(c *treesit.Node) {
		if c.Type() != "import_declaration" {
			return
		}
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(t.Text(c)), "@testable"))
		if len(fields) >= 2 && fields[0] == "import" {
			name, _, _ := strings.Cut(fields[len(fields)-1], ".")
			modules = append(modules, code.Import{Module: "@" + name, Line: treesit.Line(c)})
		}
	})
	packageImports(f, nil, nil, func(_, head string) string { return head })
	f.Imports = append(modules, f.Imports...)
}

// swiftModule is where a Swift type lies: a file named as the type (or an extension's,
// Type+Codable.swift) in the target folder of the file naming it (Sources/Shop, Tests/
// ShopTests; the whole project outside SwiftPM's layout) or of a module it imports. A
// module import itself names no file.
func swiftModule(y *Layout, rel string, f *code.Facts, module string) []string {
	if strings.HasPrefix(module, "@") || strings.Contains(module, ".") {
		return nil
	}
	roots := []string{swiftTarget(rel)}
	for _, imp := range f.Imports {
		if name, ok := strings.CutPrefix(imp.Module, "@"); ok {
			roots = append(roots, "Sources/"+name)
		}
	}
	var out []string
	for _, file := range y.swiftTypes()[module] {
		for _, root := range roots {
			if root == "" || strings.HasPrefix(file, root+"/") || strings.Contains(file, "/"+root+"/") {
				out = append(out, file)
				break
			}
		}
	}
	return out
}

// swiftTarget is the SwiftPM target folder holding rel (Sources/Shop of
// Sources/Shop/Model/Cart.swift), or "" outside that layout.
func swiftTarget(rel string) string {
	parts := strings.Split(rel, "/")
	for i := len(parts) - 2; i > 0; i-- {
		if parts[i-1] == "Sources" || parts[i-1] == "Tests" {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

// swiftFilesByType are the Swift files among files by the type their name names: Cart of
// Cart.swift and of Cart+Codable.swift.
func swiftFilesByType(files map[string]bool) map[string][]string {
	m := map[string][]string{}
	for f := range files {
		if name, ok := strings.CutSuffix(path.Base(f), ".swift"); ok {
			name, _, _ = strings.Cut(name, "+")
			m[name] = append(m[name], f)
		}
	}
	for _, fs := range m {
		slices.Sort(fs)
	}
	return m
}
