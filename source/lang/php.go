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
		Imports:   phpImports,
		Module:    phpModule,
		ModuleIn:  phpModuleIn,
		Manifests: []string{"composer.json"},
		Kinds:     []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindMethod, code.KindFunc, code.KindConst, code.KindField},
	}
}

// phpImports reads a PHP file's namespace and use declarations (use A\B\C, use A\B\C as D,
// use A\B\{C, D}); the classes it names bind as Java's do (packageImports). Namespaces are
// written with dots.
func phpImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	dotted := func(s string) string {
		return strings.Trim(strings.ReplaceAll(strings.Join(strings.Fields(s), ""), `\`, "."), ".")
	}
	var named []code.Import
	add := func(spec, alias string, line int) {
		spec = dotted(spec)
		i := strings.LastIndexByte(spec, '.')
		if i < 0 {
			return
		}
		local := strings.TrimSpace(alias)
		if local == "" {
			local = spec[i+1:]
		}
		named = append(named, code.Import{Module: spec, Local: local, Name: spec[i+1:], Line: line})
	}
	t.Walk(root, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "namespace_definition":
			if f.Package == "" {
				f.Package = dotted(t.Text(c.ChildByFieldName("name")))
			}
			return true
		case "namespace_use_declaration":
			text := strings.TrimSuffix(strings.TrimSpace(t.Text(c)), ";")
			text = strings.TrimSpace(strings.TrimPrefix(text, "use"))
			if strings.HasPrefix(text, "function ") || strings.HasPrefix(text, "const ") {
				return false
			}
			prefix, group, grouped := strings.Cut(text, "{")
			items := []string{text}
			if grouped {
				items = strings.Split(strings.TrimSuffix(strings.TrimSpace(group), "}"), ",")
			}
			for _, item := range items {
				spec, alias, _ := strings.Cut(strings.TrimSpace(item), " as ")
				if grouped {
					spec = prefix + spec
				}
				add(spec, alias, treesit.Line(c))
			}
			return false
		}
		return c == root || c.Type() == "compound_statement"
	})
	packageImports(f, named, nil, func(_, head string) string { return head })
}

// phpModule is the file a class's qualified name (A.B.C) names by PSR-4's convention: C.php
// in the folder of its namespace, whole or less its vendor prefix, under the source root of
// the file at rel and under src/, app/ and lib/.
func phpModule(rel string, f *code.Facts, module string) []string {
	return typeFiles(append(sourceRoots(rel, f.Package, nil), "src", "app", "lib"), module, lastPart, ".php", true)
}

// phpModuleIn is the file a class's qualified name names by the PSR-4 roots the project's
// composer.json files declare (the longest prefix that holds it: Shop\ in src/ makes
// Shop.Util.Helper src/Util/Helper.php), else by the convention (phpModule).
func phpModuleIn(y *Layout, rel string, f *code.Facts, module string) []string {
	for _, root := range y.psr4Roots() {
		rest, ok := strings.CutPrefix(module, root.prefix)
		if !ok || rest == "" {
			continue
		}
		var out []string
		for _, folder := range root.folders {
			out = append(out, path.Join(folder, strings.ReplaceAll(rest, ".", "/")+".php"))
		}
		return out
	}
	return phpModule(rel, f, module)
}
