package lang

import (
	"path"
	"slices"
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
		Name: "java", Prefix: graph.JavaPrefix, Grammar: treesit.Java, Extensions: []string{".java"}, Builds: []string{"pom.xml", "build.gradle", "build.gradle.kts"},
		Decls: map[string]Rule{
			"class_declaration":               {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"superclass", "interfaces"}},
			"interface_declaration":           {Kind: code.KindInterface, Name: "name", Body: "body", Bases: []string{"extends_interfaces"}},
			"enum_declaration":                {Kind: code.KindEnum, Name: "name", Body: "body", Bases: []string{"interfaces"}},
			"record_declaration":              {Kind: code.KindRecord, Name: "name", Body: "body", Bases: []string{"interfaces"}, Components: "parameters"},
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
			"object_creation_expression": {Callee: "type", New: true},
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
		Imports:  javaImports,
		Module:   javaModule,
		Logic:    true,
		Kinds: []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindRecord, code.KindMethod,
			code.KindFunc, code.KindConstructor, code.KindField, code.KindConst},
	}
}

// modifiers is the text of a declaration's modifiers node (keywords and annotations), in the
// grammars that group them in one (Java, Kotlin).
func modifiers(t *treesit.Tree, n *treesit.Node) string {
	out := ""
	t.Children(n, func(c *treesit.Node) {
		if c.Type() == "modifiers" {
			out = t.Text(c)
		}
	})
	return out
}

// javaImports reads a Java file's package and its single-type and static imports; a type its
// calls or bases name that it neither declares nor imports by name is its own package's (that
// needs no import) or one of a package it imports whole, bound to each as imports.
func javaImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	var named []code.Import
	var wholes []string
	t.Children(root, func(c *treesit.Node) {
		text := strings.TrimSuffix(strings.TrimSpace(t.Text(c)), ";")
		switch c.Type() {
		case "package_declaration":
			f.Package = strings.TrimSpace(strings.TrimPrefix(text, "package"))
		case "import_declaration":
			spec := strings.TrimSpace(strings.TrimPrefix(text, "import"))
			static := strings.HasPrefix(spec, "static ")
			spec = strings.Join(strings.Fields(strings.TrimPrefix(spec, "static ")), "")
			if strings.HasSuffix(spec, ".*") {
				if !static {
					wholes = append(wholes, strings.TrimSuffix(spec, ".*"))
				}
				return // a whole package's types: bound below, name by name
			}
			if !strings.Contains(spec, ".") {
				return
			}
			i := strings.LastIndexByte(spec, '.')
			imp := code.Import{Module: spec, Local: spec[i+1:], Name: spec[i+1:], Line: treesit.Line(c)}
			if static {
				// import static a.b.C.m: m is C's member, in C.java.
				cls := spec[:i]
				j := strings.LastIndexByte(cls, '.')
				imp = code.Import{Module: cls, Local: spec[i+1:], Name: cls[j+1:] + "." + spec[i+1:], Line: treesit.Line(c)}
			}
			named = append(named, imp)
		}
	})
	packageImports(f, named, wholes, func(pkg, head string) string { return head })
}

// packageImports binds a file's imports in a language of packages (Java, Kotlin, C#): the
// names it imports by name, then each type its calls, uses and bases name that it neither
// declares nor imports by name, to its own package (which needs no import) and to each
// package it imports whole, as implicit imports. qual is the qualified name a type head of
// package pkg has in its file (C# qualifies it by the namespace declared there).
func packageImports(f *code.Facts, named []code.Import, wholes []string, qual func(pkg, head string) string) {
	bound := map[string]bool{}
	for _, imp := range named {
		bound[imp.Local] = true
		f.Imports = append(f.Imports, imp)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		declared[d.Name] = true
	}
	seen := map[string]bool{}
	for _, d := range f.Decls {
		for _, c := range slices.Concat(d.Calls, d.Uses) {
			head, _, _ := strings.Cut(c, ".")
			if !upper(head) || declared[head] || bound[head] || seen[head] || head == "this" {
				continue
			}
			seen[head] = true
			for _, pkg := range append([]string{f.Package}, wholes...) {
				module := head
				if pkg != "" {
					module = pkg + "." + head
				}
				f.Imports = append(f.Imports, code.Import{Module: module, Local: head, Name: qual(pkg, head), Implicit: true})
			}
		}
	}
}

// sourceRoots are the roots a file of package pkg (dotted) at rel may have its package's
// folders under: rel's folder less the package's path, and for a package whose first part
// the folders leave out (C#'s root namespace), less the rest; with the sibling test or main
// root of each (src/main/java and src/test/java).
func sourceRoots(rel, pkg string, siblings [][2]string) []string {
	dir := path.Dir(rel)
	var roots []string
	parts := strings.Split(pkg, ".")
	for i := range parts {
		if pkg == "" {
			break
		}
		if root, ok := strings.CutSuffix(dir, strings.Join(parts[i:], "/")); ok && (root == "" || strings.HasSuffix(root, "/")) {
			roots = append(roots, strings.TrimSuffix(root, "/"))
			break
		}
	}
	if len(roots) == 0 {
		roots = append(roots, dir)
	}
	for _, pair := range siblings {
		if strings.HasSuffix(roots[0], pair[0]) {
			roots = append(roots, strings.TrimSuffix(roots[0], pair[0])+pair[1])
		}
	}
	return roots
}

// typeFiles are the files a type named by module (dotted, its type the part at typeAt:
// a.b.C at 2) lies in by the convention of one public type a file, named as the type: C.ext
// in the folder of its package a.b under each root and, with dropRoot, under each root less
// the package's first part (the folders of C#'s and PHP's projects leave the root namespace
// out). Each once, sorted.
func typeFiles(roots []string, module string, typeAt func(parts []string) int, ext string, dropRoot bool) []string {
	parts := strings.Split(module, ".")
	i := typeAt(parts)
	if i < 0 {
		return nil
	}
	ns, file := parts[:i], parts[i]+ext
	var out []string
	for _, root := range roots {
		for skip := 0; skip == 0 || dropRoot && skip <= min(1, len(ns)); skip++ {
			out = append(out, path.Join(root, path.Join(ns[skip:]...), file))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// firstUpper is where a Java or Kotlin qualified name's type stands: its first part that
// starts upper-case (a.b.C.D is C's, D nested in it); -1 for none.
func firstUpper(parts []string) int { return slices.IndexFunc(parts, upper) }

// lastPart is where a C# or PHP qualified name's type stands: its last part (namespaces are
// capitalized too).
func lastPart(parts []string) int { return len(parts) - 1 }

// javaModule is the file a type's qualified name (a.b.C) names, from the file at rel: C.java
// in the folder of package a.b under the source root that holds rel (rel's folder less its
// own package's path), and the same folder under its test or main sibling root
// (src/main/java, src/test/java). A nested type's name (a.b.C.D) names C.java too.
func javaModule(rel string, f *code.Facts, module string) []string {
	roots := sourceRoots(rel, f.Package, [][2]string{{"src/main/java", "src/test/java"}, {"src/test/java", "src/main/java"}})
	return typeFiles(roots, module, firstUpper, ".java", false)
}
