package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// PHP reads .php files: classes, interfaces, traits, enums and their cases, methods,
// functions, class constants and properties. test* methods of *Test.php files (PHPUnit's
// convention) are tests.
func PHP() *Language {
	return &Language{
		Name: "php", Prefix: graph.PHPPrefix, Grammar: treesit.PHP, Extensions: []string{".php"}, Builds: []string{"composer.json"},
		Decls: map[string]Rule{
			"class_declaration":     {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"base_clause", "class_interface_clause"}},
			"interface_declaration": {Kind: code.KindInterface, Name: "name", Body: "body", Bases: []string{"base_clause"}},
			"trait_declaration":     {Kind: code.KindInterface, Name: "name", Body: "body"},
			"enum_declaration":      {Kind: code.KindEnum, Name: "name", Body: "body"},
			"enum_case":             {Kind: code.KindConst, Name: "name"},
			"method_declaration":    {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"function_definition":   {Kind: code.KindFunc, Name: "name", Body: "body"},
			"const_declaration":     {Kind: code.KindConst, Names: "const_element", Name: "name"},
			"property_declaration":  {Kind: code.KindField, Names: "property_element", Name: "variable_name/name"},
		},
		Calls: map[string]Call{
			"member_call_expression":     {Receiver: "object", Method: "name"},
			"scoped_call_expression":     {Receiver: "scope", Method: "name"},
			"function_call_expression":   {Callee: "function"},
			"object_creation_expression": {Callee: "name", New: true},
		},
		TypeNames: []string{"name"},
		Comments:  []string{"comment"},
		Doc:       func(text string) bool { return strings.HasPrefix(text, "/**") },
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			private := false
			t.Children(n, func(c *treesit.Node) {
				private = private || c.Type() == "visibility_modifier" && t.Text(c) != "public"
			})
			return !private
		},
		TestFile: func(rel string) bool {
			return strings.HasSuffix(path.Base(rel), "Test.php") || underDir(rel, "tests", "test")
		},
		Kinds: []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindMethod, code.KindFunc, code.KindConst, code.KindField},
	}
}
