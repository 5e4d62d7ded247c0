package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Kotlin reads .kt and .kts files: classes, interfaces, enum classes and their entries,
// objects (a companion's members are the class's), type aliases, functions and methods,
// properties (const ones are constants). @Test functions, and the files of test source sets
// (src/test/, src/*Test/), are tests.
func Kotlin() *Language {
	return &Language{
		Name: "kotlin", Prefix: graph.KotlinPrefix, Grammar: treesit.Kotlin, Extensions: []string{".kt", ".kts"}, Builds: []string{"build.gradle.kts", "build.gradle", "pom.xml"},
		Decls: map[string]Rule{
			"class_declaration": {KindOf: kotlinClassKind, Name: "type_identifier", Body: "class_body|enum_class_body", Bases: []string{"delegation_specifier"},
				// class Cart(val name: String): a val or var parameter is a property.
				Components: "primary_constructor", Component: func(t *treesit.Tree, n *treesit.Node) bool {
					bound := false
					t.Children(n, func(c *treesit.Node) { bound = bound || c.Type() == "binding_pattern_kind" })
					return bound
				}},
			"object_declaration":   {Kind: code.KindClass, Name: "type_identifier", Body: "class_body", Bases: []string{"delegation_specifier"}},
			"enum_entry":           {Kind: code.KindConst, Name: "simple_identifier"},
			"type_alias":           {Kind: code.KindType, Name: "type_identifier"},
			"function_declaration": {Kind: code.KindFunc, Method: code.KindMethod, Name: "simple_identifier", Body: "function_body"},
			"property_declaration": {Kind: code.KindField, Name: "variable_declaration/simple_identifier", Const: func(t *treesit.Tree, n *treesit.Node) bool {
				return strings.Contains(modifiers(t, n), "const")
			}},
		},
		Calls:        map[string]Call{"call_expression": {Callee: "simple_identifier|navigation_expression"}},
		ImplicitThis: true,
		UpperIsType:  true,
		Comments:     []string{"line_comment", "multiline_comment", "comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "/**") },
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			m := modifiers(t, n)
			return !strings.Contains(m, "private") && !strings.Contains(m, "internal")
		},
		Imports: kotlinImports,
		Module:  kotlinModule,
		Test: func(t *treesit.Tree, n *treesit.Node) bool {
			return n.Type() == "function_declaration" && strings.Contains(modifiers(t, n), "@Test")
		},
		TestFile: func(rel string) bool {
			dir := "/" + path.Dir(rel) + "/"
			return strings.Contains(dir, "/src/test/") || strings.Contains(dir, "Test/kotlin/") || strings.Contains(dir, "/src/commonTest/")
		},
		Logic: true,
		Kinds: []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindType, code.KindFunc, code.KindMethod,
			code.KindField, code.KindConst},
	}
}

// kotlinClassKind is a class declaration's kind by its keyword: interface, enum class, else
// class.
func kotlinClassKind(t *treesit.Tree, n *treesit.Node) string {
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch text := t.Text(c); {
		case c.Type() == "type_identifier" || c.Type() == "class_body" || c.Type() == "enum_class_body":
			return code.KindClass // past the keywords
		case text == "interface":
			return code.KindInterface
		case text == "enum" || c.Type() == "modifiers" && strings.Contains(text, "enum"):
			return code.KindEnum
		}
	}
	return code.KindClass
}

// kotlinImports reads a Kotlin file's package and imports (import a.b.C, import a.b.C as D,
// import a.b.*) and binds the types it names as Java's are (packageImports).
func kotlinImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	var named []code.Import
	var wholes []string
	t.Walk(root, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "package_header":
			f.Package = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Text(c)), "package"))
			return false
		case "import_header":
			spec := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Text(c)), "import"))
			spec, alias, _ := strings.Cut(spec, " as ")
			spec = strings.Join(strings.Fields(spec), "")
			if whole, ok := strings.CutSuffix(spec, ".*"); ok {
				wholes = append(wholes, whole)
				return false
			}
			i := strings.LastIndexByte(spec, '.')
			if i < 0 {
				return false
			}
			local := strings.TrimSpace(alias)
			if local == "" {
				local = spec[i+1:]
			}
			named = append(named, code.Import{Module: spec, Local: local, Name: spec[i+1:], Line: treesit.Line(c)})
			return false
		}
		return c == root || c.Type() == "import_list"
	})
	packageImports(f, named, wholes, func(_, head string) string { return head })
}

// kotlinModule is the file a type's qualified name names by convention: C.kt (or, for a
// Java type, C.java) in its package's folder under the source roots of the file at rel.
func kotlinModule(rel string, f *code.Facts, module string) []string {
	roots := sourceRoots(rel, f.Package, [][2]string{{"src/main/kotlin", "src/test/kotlin"}, {"src/test/kotlin", "src/main/kotlin"},
		{"src/main/kotlin", "src/main/java"}})
	return append(typeFiles(roots, module, firstUpper, ".kt", true), typeFiles(roots, module, firstUpper, ".java", true)...)
}
