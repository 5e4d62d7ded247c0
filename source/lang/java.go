package lang

import (
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Java reads .java files: classes, interfaces, enums, records and annotation types, nested
// ones named by their enclosing type (Outer.Inner), their methods, constructors and fields
// (static final ones are constants), and enum constants. @Test methods, and the files under
// src/test/, are tests.
func Java() *Language {
	constant := func(t *treesit.Tree, n *treesit.Node) bool {
		m := modifiers(t, n)
		return strings.Contains(m, "static") && strings.Contains(m, "final")
	}
	return &Language{
		Name: "java", Prefix: graph.JavaPrefix, Grammar: treesit.Java, Extensions: []string{".java"},
		Decls: map[string]Rule{
			"class_declaration":               {Kind: code.KindClass, Name: "name", Body: "body"},
			"interface_declaration":           {Kind: code.KindInterface, Name: "name", Body: "body"},
			"enum_declaration":                {Kind: code.KindEnum, Name: "name", Body: "body"},
			"record_declaration":              {Kind: code.KindRecord, Name: "name", Body: "body"},
			"annotation_type_declaration":     {Kind: code.KindInterface, Name: "name", Body: "body"},
			"method_declaration":              {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"constructor_declaration":         {Kind: code.KindConstructor, Name: "name", Body: "body"},
			"compact_constructor_declaration": {Kind: code.KindConstructor, Name: "name", Body: "body"},
			"field_declaration":               {Kind: code.KindField, Names: "variable_declarator", Name: "name", Const: constant},
			"constant_declaration":            {Kind: code.KindConst, Names: "variable_declarator", Name: "name"},
			"enum_constant":                   {Kind: code.KindConst, Name: "name"},
		},
		Calls: map[string]Call{
			"method_invocation":          {Receiver: "object", Method: "name"},
			"object_creation_expression": {Callee: "type"},
		},
		ImplicitThis: true,
		Comments:     []string{"line_comment", "block_comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "/**") },
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			m := modifiers(t, n)
			return strings.Contains(m, "public") || strings.Contains(m, "protected")
		},
		Test: func(t *treesit.Tree, n *treesit.Node) bool {
			if n.Type() != "method_declaration" {
				return false
			}
			m := modifiers(t, n)
			return strings.Contains(m, "@Test") || strings.Contains(m, "@ParameterizedTest") || strings.Contains(m, "@RepeatedTest")
		},
		TestFile: func(rel string) bool { return strings.Contains("/"+rel, "/src/test/") },
		Kinds: []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindRecord, code.KindMethod,
			code.KindFunc, code.KindConstructor, code.KindField, code.KindConst},
	}
}

// modifiers is the text of a declaration's modifiers (keywords and annotations).
func modifiers(t *treesit.Tree, n *treesit.Node) string {
	out := ""
	t.Children(n, func(c *treesit.Node) {
		if c.Type() == "modifiers" {
			out = t.Text(c)
		}
	})
	return out
}
