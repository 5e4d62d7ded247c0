package lang

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Python reads .py files: classes, functions, methods, and a module's top-level assignments
// (an UPPER_CASE name is a constant, one annotated TypeAlias or a `type` statement a type),
// wherever they stand at the top level (under `if TYPE_CHECKING:`, in a try). A declaration's
// doc is its docstring, an assignment's the string after it. In a file pytest collects,
// test_* functions and Test* classes with their test_* methods are tests. An import binds
// through the project's packages, and a package's __init__.py offers its imports again.
func Python() *Language {
	function := Rule{Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body", DocOf: bodyDoc, UsesOf: pyReturnUses}
	return &Language{
		Name: "python", Prefix: graph.PythonPrefix, Grammar: treesit.Python, Extensions: []string{".py"},
		Builds: []string{"pyproject.toml", "setup.py", "setup.cfg"},
		Decls: map[string]Rule{
			"decorated_definition": {Wraps: "definition"},
			"function_definition":  function,
			"class_definition":     {Kind: code.KindClass, Name: "name", Body: "body", DocOf: bodyDoc, UsesOf: pyBases},
			"expression_statement": {TopLevel: true, NameOf: pyAssigned, KindOf: pyAssignmentKind, DocOf: pyFollowingDoc, UsesOf: pyValueUses},
			"type_alias_statement": {TopLevel: true, Kind: code.KindType, Name: "left|type"},
		},
		Calls:        map[string]Call{"call": {Callee: "function"}},
		Callee:       pyDotted,
		Selves:       []string{"cls"},
		ModuleCalls:  true,
		Comments:     []string{"comment"},
		Doc:          func(string) bool { return false }, // a comment is never a doc: the docstring is
		FileDoc:      func(t *treesit.Tree, root *treesit.Node) string { return bodyDoc(t, nil, root) },
		TitleEnds:    []string{":"},
		Digests:      "docforge.python",
		DeclaredType: pyAnnotatedClass,
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			name := t.Text(n.ChildByFieldName("name"))
			if name == "" {
				_, name = pyAssigned(t, n)
			}
			return !strings.HasPrefix(name, "_") || strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
		},
		TestNamed: func(kind, name, parent string) bool {
			switch kind {
			case code.KindClass:
				return parent == "" && strings.HasPrefix(name, "Test")
			case code.KindFunc, code.KindMethod:
				return strings.HasPrefix(name, "test") && (parent == "" || strings.HasPrefix(parent, "Test"))
			}
			return false
		},
		TestFile:   code.IsPythonTest,
		Imports:    pyImports,
		ModuleIn:   pyModule,
		Reexports:  func(rel string) bool { return path.Base(rel) == "__init__.py" },
		Submodules: pySubmodules,
		Candidates: true,
		Logic:      true,
		Kinds:      []string{code.KindClass, code.KindType, code.KindFunc, code.KindMethod, code.KindVar, code.KindConst},
	}
}

// pyAssigned names what a top-level NAME = ... or NAME: T = ... statement assigns; "" for any
// other statement (a call, a tuple's unpacking, an attribute's assignment).
func pyAssigned(t *treesit.Tree, n *treesit.Node) (string, string) {
	a := pyAssignment(n)
	if a == nil {
		return "", ""
	}
	left := a.ChildByFieldName("left")
	if left == nil || left.Type() != "identifier" {
		return "", ""
	}
	return "", t.Text(left)
}

func pyAssignment(n *treesit.Node) *treesit.Node {
	if n.Type() != "expression_statement" {
		return nil
	}
	if a := n.NamedChild(0); a != nil && a.Type() == "assignment" {
		return a
	}
	return nil
}

// pyAssignmentKind: an annotated TypeAlias is a type, an UPPER_CASE name a constant, any
// other a variable; any other statement declares nothing.
func pyAssignmentKind(t *treesit.Tree, n *treesit.Node) string {
	a := pyAssignment(n)
	if a == nil {
		return ""
	}
	if typ := a.ChildByFieldName("type"); typ != nil && strings.Contains(t.Text(typ), "TypeAlias") {
		return code.KindType
	}
	if _, name := pyAssigned(t, n); isConstName(name) {
		return code.KindConst
	}
	return code.KindVar
}

func isConstName(name string) bool {
	letters := false
	for _, r := range name {
		if unicode.IsLower(r) {
			return false
		}
		letters = letters || unicode.IsUpper(r)
	}
	return letters
}

// pyValueUses are the names a module-level value is built from when it is a call or a name
// (X = Foo(...), X = Alias), and the names its annotation spells.
func pyValueUses(t *treesit.Tree, n *treesit.Node) []string {
	a := pyAssignment(n)
	var out []string
	if v := a.ChildByFieldName("right"); v != nil {
		switch v.Type() {
		case "call":
			if name := pyDotted(t, v.ChildByFieldName("function")); name != "" {
				out = append(out, name)
			}
		case "identifier", "attribute":
			if name := pyDotted(t, v); name != "" {
				out = append(out, name)
			}
		}
	}
	if typ := a.ChildByFieldName("type"); typ != nil {
		out = append(out, pyTypeNames(t, typ)...)
	}
	return out
}

// pyBases are the classes a class names in its superclasses (Generic[T] names Generic).
func pyBases(t *treesit.Tree, n *treesit.Node) []string {
	var out []string
	if sup := n.ChildByFieldName("superclasses"); sup != nil {
		t.Children(sup, func(c *treesit.Node) {
			if base := pyDotted(t, c); base != "" {
				out = append(out, base)
			}
		})
	}
	return out
}

// pyReturnUses are the names a function's return annotation spells.
func pyReturnUses(t *treesit.Tree, n *treesit.Node) []string {
	if ret := n.ChildByFieldName("return_type"); ret != nil {
		return pyTypeNames(t, ret)
	}
	return nil
}

// bodyDoc is the string that opens a block (a docstring), without its quotes.
func bodyDoc(t *treesit.Tree, _, block *treesit.Node) string {
	if block == nil {
		return ""
	}
	first := block.NamedChild(0)
	for first != nil && first.Type() == "comment" {
		first = first.NextNamedSibling()
	}
	if first == nil || first.Type() != "expression_statement" || first.NamedChildCount() != 1 {
		return ""
	}
	s := first.NamedChild(0)
	if s == nil || s.Type() != "string" {
		return ""
	}
	return pyString(t, s)
}

// pyFollowingDoc is the string statement right after a module-level assignment, the
// attribute docstring convention Sphinx reads.
func pyFollowingDoc(t *treesit.Tree, n, _ *treesit.Node) string {
	next := t.NextNamedSibling(n)
	if next == nil || next.Type() != "expression_statement" {
		return ""
	}
	if s := next.NamedChild(0); s != nil && s.Type() == "string" && next.NamedChildCount() == 1 {
		return pyString(t, s)
	}
	return ""
}

// pyString is a string literal's content, dedented.
func pyString(t *treesit.Tree, s *treesit.Node) string {
	var b strings.Builder
	t.Children(s, func(c *treesit.Node) {
		if c.Type() == "string_content" {
			b.WriteString(t.Text(c))
		}
	})
	return dedent(b.String())
}

// dedent removes the indentation common to a docstring's lines after the first, as
// inspect.cleandoc does.
func dedent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := 1; i < len(lines) && indent > 0; i++ {
		if len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	return strings.Join(lines, "\n")
}

// pyDotted is the dotted name an identifier or attribute chain spells (a subscript's value:
// Generic[T] is Generic), or "" for any other expression.
func pyDotted(t *treesit.Tree, n *treesit.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "identifier":
		return t.Text(n)
	case "attribute":
		obj := pyDotted(t, n.ChildByFieldName("object"))
		attr := n.ChildByFieldName("attribute")
		if obj == "" || attr == nil {
			return ""
		}
		return obj + "." + t.Text(attr)
	case "subscript":
		return pyDotted(t, n.ChildByFieldName("value"))
	}
	return ""
}

// pyTypeNames are the dotted names in a type annotation: Foo, mod.Bar, Optional[Foo] gives
// Optional and Foo, a forward reference "Foo" gives Foo.
func pyTypeNames(t *treesit.Tree, n *treesit.Node) []string {
	var out []string
	t.Walk(n, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "identifier", "attribute":
			if name := pyDotted(t, c); name != "" {
				out = append(out, name)
			}
			return false
		case "string":
			if s := strings.TrimSpace(pyString(t, c)); isDottedName(s) {
				out = append(out, s)
			}
			return false
		}
		return true
	})
	return out
}

// pyAnnotatedClass is the class a parameter's or variable's annotation names, when it names
// one: Foo, mod.Foo, Foo | None, Optional[Foo], "Foo".
func pyAnnotatedClass(t *treesit.Tree, typ *treesit.Node) string {
	var names []string
	for _, n := range pyTypeNames(t, typ) {
		switch n {
		case "Optional", "None", "typing.Optional", "Annotated", "typing.Annotated":
			continue
		}
		names = append(names, n)
	}
	if len(names) != 1 || !upper(names[0][strings.LastIndexByte(names[0], '.')+1:]) {
		return ""
	}
	return names[0]
}

func isDottedName(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" {
			return false
		}
		for i, r := range p {
			if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
				return false
			}
		}
	}
	return true
}

// pyImports reads the imports of a module's top level, wherever they stand there (in an if,
// a try), never in a class or function.
func pyImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	var walk func(n *treesit.Node)
	walk = func(n *treesit.Node) {
		t.Children(n, func(c *treesit.Node) {
			switch c.Type() {
			case "import_statement", "import_from_statement", "future_import_statement":
				f.Imports = append(f.Imports, pyImport(t, c)...)
			case "if_statement", "try_statement", "with_statement", "for_statement", "while_statement", "block", "ERROR",
				"else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause":
				walk(c)
			}
		})
	}
	walk(root)
}

func pyImport(t *treesit.Tree, n *treesit.Node) []code.Import {
	var out []code.Import
	line := treesit.Line(n)
	switch n.Type() {
	case "import_statement":
		t.Children(n, func(c *treesit.Node) {
			switch c.Type() {
			case "dotted_name":
				mod := t.Text(c)
				head, _, _ := strings.Cut(mod, ".")
				out = append(out, code.Import{Module: mod, Line: line}, code.Import{Module: head, Local: head, Line: line})
			case "aliased_import":
				mod, alias := t.Text(c.ChildByFieldName("name")), t.Text(c.ChildByFieldName("alias"))
				out = append(out, code.Import{Module: mod, Local: alias, Line: line})
			}
		})
	case "import_from_statement":
		mod := strings.Join(strings.Fields(t.Text(n.ChildByFieldName("module_name"))), "")
		t.ChildFields(n, func(c *treesit.Node, field string) {
			if field == "module_name" {
				return
			}
			switch c.Type() {
			case "dotted_name":
				name := t.Text(c)
				out = append(out, code.Import{Module: mod, Local: name, Name: name, Line: line})
			case "aliased_import":
				name, alias := t.Text(c.ChildByFieldName("name")), t.Text(c.ChildByFieldName("alias"))
				out = append(out, code.Import{Module: mod, Local: alias, Name: name, Line: line})
			case "wildcard_import":
				out = append(out, code.Import{Module: mod, Name: "*", Line: line})
			}
		})
	}
	return out
}

// pyPackages are where a project's Python packages live: the folders holding an
// __init__.py, and each top-level package's name with the folders it is importable from.
type pyPackages struct {
	dirs  map[string]bool
	roots map[string][]string
}

func newPyPackages(files map[string]bool) *pyPackages {
	p := &pyPackages{dirs: map[string]bool{}, roots: map[string][]string{}}
	for f := range files {
		if path.Base(f) == "__init__.py" {
			p.dirs[path.Dir(f)] = true
		}
	}
	for dir := range p.dirs {
		if parent := path.Dir(dir); !p.dirs[parent] || dir == "." {
			name := path.Base(dir)
			p.roots[name] = append(p.roots[name], parent)
		}
	}
	for _, rs := range p.roots {
		slices.Sort(rs)
	}
	return p
}

// pyModule returns the candidate files of the module spec (as an import writes it) imported
// by the file at rel: a relative module from rel's package, an absolute one from every folder
// its top-level package lives in, and a module beside rel (a script's own folder is on its
// path). Python takes a package before a module of the same name; of the candidates the one
// that exists is the module, and while none does every one is kept (the edge appears with the
// file).
func pyModule(y *Layout, rel string, _ *code.Facts, spec string) []string {
	var dirs []string // the module's path without extension, each a candidate
	if dots := len(spec) - len(strings.TrimLeft(spec, ".")); dots > 0 {
		base := path.Dir(rel)
		for range dots - 1 {
			base = path.Dir(base)
		}
		rest := strings.ReplaceAll(spec[dots:], ".", "/")
		if rest == "" {
			return []string{path.Join(base, "__init__.py")}
		}
		dirs = append(dirs, path.Join(base, rest))
	} else {
		head, _, _ := strings.Cut(spec, ".")
		p := strings.ReplaceAll(spec, ".", "/")
		roots := y.packages().roots[head]
		for _, root := range roots {
			dirs = append(dirs, path.Join(root, p))
		}
		if len(roots) == 0 {
			dirs = append(dirs, path.Join(path.Dir(rel), p))
		}
	}
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		out = append(out, d+"/__init__.py", d+".py")
	}
	for _, f := range out {
		if y.files[f] {
			return []string{f}
		}
	}
	return out
}

// pySubmodules are the files a package's __init__.py at rel offers name from as a submodule
// (from pkg import sub).
func pySubmodules(rel, name string) []string {
	if path.Base(rel) != "__init__.py" {
		return nil
	}
	d := path.Join(path.Dir(rel), name)
	return []string{d + ".py", d + "/__init__.py"}
}
