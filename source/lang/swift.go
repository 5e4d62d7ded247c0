package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Swift reads .swift files: classes, structs, enums and their cases, actors, protocols and
// their requirements, functions and methods (an extension's are the extended type's),
// properties. test* methods of test files (XCTest: a Tests folder or *Tests.swift) are tests.
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
