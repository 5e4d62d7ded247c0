package lang

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// C reads .c files: functions, structs, unions, enums and their constants, typedefs, macros
// and global variables and prototypes; C++ (below) reads headers, whose language is often
// either.
func C() *Language {
	return cFamily("c", graph.CPrefix, treesit.C, []string{".c"}, nil)
}

// CPP reads C++ (.cc, .cpp, .cxx, .hpp, .hh, .hxx and .h headers): what C declares, and
// namespaces, classes and their members (a method defined outside its class, Cart::add, is
// the class's), and GoogleTest's TEST(Suite, Name) as the test Suite.Name.
func CPP() *Language {
	return cFamily("cpp", graph.CPPPrefix, treesit.CPP, []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h"}, map[string]Rule{
		"namespace_definition": {Kind: code.KindModule, Name: "name", Body: "body"},
		"class_specifier":      {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"base_class_clause"}},
		"struct_specifier":     {Kind: code.KindStruct, Name: "name", Body: "body", Bases: []string{"base_class_clause"}},
	})
}

// cFamily is the table C and C++ share; more adds C++'s own rules.
func cFamily(name, prefix string, g treesit.Grammar, exts []string, more map[string]Rule) *Language {
	decls := map[string]Rule{
		"function_definition":  {KindOf: cFunctionKind, Method: code.KindMethod, NameOf: cFunctionName, Body: "body"},
		"declaration":          {KindOf: cDeclarationKind, Method: code.KindMethod, NameOf: cDeclaredName},
		"field_declaration":    {KindOf: cDeclarationKind, Method: code.KindMethod, NameOf: cDeclaredName},
		"struct_specifier":     {Kind: code.KindStruct, Name: "name", Body: "body"},
		"union_specifier":      {Kind: code.KindStruct, Name: "name", Body: "body"},
		"enum_specifier":       {Kind: code.KindEnum, Name: "name", Body: "body"},
		"enumerator":           {Kind: code.KindConst, Name: "name"},
		"type_definition":      {Kind: code.KindType, Name: "declarator", Inner: true},
		"preproc_def":          {Kind: code.KindConst, Name: "name"},
		"preproc_function_def": {Kind: code.KindMacro, Name: "name"},
	}
	for k, r := range more {
		decls[k] = r
	}
	return &Language{
		Name: name, Prefix: prefix, Grammar: g, Extensions: exts, Builds: []string{"CMakeLists.txt", "compile_commands.json", "meson.build", "configure.ac"}, Decls: decls,
		Prepare:  cPrepare,
		Calls:    map[string]Call{"call_expression": {Callee: "function"}},
		Comments: []string{"comment"},
		Doc: func(text string) bool {
			return strings.HasPrefix(text, "/**") || strings.HasPrefix(text, "///") || strings.HasPrefix(text, "//!") || strings.HasPrefix(text, "/*!")
		},
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			static := false
			t.Children(n, func(c *treesit.Node) {
				static = static || c.Type() == "storage_class_specifier" && t.Text(c) == "static"
			})
			return !static
		},
		Test: func(t *treesit.Tree, n *treesit.Node) bool {
			if n.Type() != "function_definition" {
				return false
			}
			_, fn := cFunctionName(t, n)
			return strings.Contains(fn, ".") // TEST(Suite, Name)
		},
		TestFile: func(rel string) bool {
			base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
			return underDir(rel, "test", "tests", "unittests") || strings.HasSuffix(base, "_test") || strings.HasSuffix(base, "_unittest") ||
				strings.HasPrefix(base, "test_")
		},
		Imports: cIncludes,
		Module:  cModule,
		Logic:   true,
		Kinds: []string{code.KindModule, code.KindClass, code.KindStruct, code.KindEnum, code.KindType, code.KindFunc,
			code.KindMethod, code.KindField, code.KindConst, code.KindVar, code.KindMacro},
	}
}

// functionDeclarator is the function declarator inside a declarator chain (pointers,
// references, parentheses), or nil.
func functionDeclarator(n *treesit.Node) *treesit.Node {
	var found *treesit.Node
	for d := n.ChildByFieldName("declarator"); d != nil; {
		next := d.ChildByFieldName("declarator")
		switch d.Type() {
		case "function_declarator":
			if next != nil && next.Type() != "parenthesized_declarator" {
				found = d // the innermost one that names something: a function returning a function pointer is its inner one
			}
		case "parenthesized_declarator":
			if d.NamedChildCount() > 0 {
				next = d.NamedChild(0)
			}
		}
		d = next
	}
	return found
}

// cFunctionName is a function definition's name, and the class a qualified name
// (Cart::add) gives it; GoogleTest's TEST(Suite, Name) is Suite.Name.
func cFunctionName(t *treesit.Tree, n *treesit.Node) (owner, name string) {
	fd := functionDeclarator(n)
	if fd == nil {
		// The grammar reads a field with a default (int count_ = 0;) as a function
		// definition without a declarator of one.
		if d := n.ChildByFieldName("declarator"); d != nil && d.Type() == "field_identifier" {
			return "", t.Text(d)
		}
		return "", ""
	}
	name = t.Text(fd.ChildByFieldName("declarator"))
	switch name {
	case "TEST", "TEST_F", "TEST_P", "TYPED_TEST":
		var args []string
		t.Children(fd.ChildByFieldName("parameters"), func(c *treesit.Node) { args = append(args, strings.TrimSpace(t.Text(c))) })
		if len(args) == 2 {
			return "", args[0] + "." + args[1]
		}
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		return typeName(name[:i]), name[i+2:]
	}
	return "", name
}

// cFunctionKind is a function definition's kind: a function, unless the grammar read a
// field with a default value as one.
func cFunctionKind(_ *treesit.Tree, n *treesit.Node) string {
	if functionDeclarator(n) == nil {
		return code.KindField
	}
	return code.KindFunc
}

// cDeclaredName is what a declaration declares: a function's name (a prototype, a method
// declared in a class) or a variable's or field's.
func cDeclaredName(t *treesit.Tree, n *treesit.Node) (owner, name string) {
	if fd := functionDeclarator(n); fd != nil {
		name = t.Text(fd.ChildByFieldName("declarator"))
	} else {
		d := n.ChildByFieldName("declarator")
		for d != nil && d.ChildByFieldName("declarator") != nil {
			d = d.ChildByFieldName("declarator")
		}
		name = t.Text(d)
	}
	if strings.ContainsAny(name, "(){}[]<> ,*&=") {
		return "", ""
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		return typeName(name[:i]), name[i+2:]
	}
	return "", name
}

// cDeclarationKind is a declaration's kind: a function (a prototype), a field in a type's
// body, else a variable (a constant when const).
func cDeclarationKind(t *treesit.Tree, n *treesit.Node) string {
	switch {
	case functionDeclarator(n) != nil:
		return code.KindFunc
	case n.Type() == "field_declaration":
		return code.KindField
	case strings.HasPrefix(strings.TrimSpace(t.Text(n)), "const ") || strings.Contains(t.Text(n), " const "):
		return code.KindConst
	}
	return code.KindVar
}

// cIncludes are a file's #include "..." directives (a system <header> is no project file).
func cIncludes(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	t.Walk(root, func(c, _ *treesit.Node) bool {
		if c.Type() == "preproc_include" {
			if p := c.ChildByFieldName("path"); p != nil && p.Type() == "string_literal" {
				spec := strings.Trim(t.Text(p), `"`)
				f.Imports = append(f.Imports, code.Import{Module: spec, Line: treesit.Line(c)})
			}
			return false
		}
		return c.Type() == "translation_unit" || strings.HasPrefix(c.Type(), "preproc_if") || c.Type() == "preproc_else" ||
			c.Type() == "linkage_specification" || c.Type() == "declaration_list"
	})
}

// cModule is the files an include names: beside the including file, from the project root,
// and under include/ and src/ (the usual include paths); never above the root.
func cModule(rel string, _ *code.Facts, spec string) []string {
	return within([]string{path.Join(path.Dir(rel), spec), path.Clean(spec), path.Join("include", spec), path.Join("src", spec)})
}

// within is paths less those above the project root, and repeats.
func within(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != ".." && !strings.HasPrefix(p, "../") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// cPrepare blanks GNU attributes (__attribute__ ((unused))), which declare nothing and
// which the grammar cannot read in a parameter list: the same bytes as spaces.
func cPrepare(src []byte) []byte {
	const mark = "__attribute__"
	var out []byte
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(mark))
		if j < 0 {
			break
		}
		start := i + j
		k := start + len(mark)
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		i = start + len(mark)
		if k >= len(src) || src[k] != '(' {
			continue
		}
		depth, end := 0, -1
		for p := k; p < len(src) && end < 0; p++ {
			switch src[p] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = p + 1
				}
			case '\n':
				p = len(src) // an attribute on one line only
			}
		}
		if end < 0 {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		for p := start; p < end; p++ {
			out[p] = ' '
		}
		i = end
	}
	if out == nil {
		return src
	}
	return out
}
