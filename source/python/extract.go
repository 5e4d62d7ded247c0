package python

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// IsTestFile reports whether pytest collects the file (code.IsPythonTest).
func IsTestFile(rel string) bool { return code.IsPythonTest(rel) }

// Extract parses one Python file and returns its facts. test says pytest collects the file,
// so test_* functions and Test* classes are tests. logicLimit bounds the steps of each
// function's Logic; 0 builds none. bounds bound the file's cost (treesit.Parse): a file over
// them fails with a *treesit.BoundError.
func Extract(ctx context.Context, src []byte, test bool, logicLimit int, bounds treesit.Bounds) (*code.Facts, error) {
	tree, err := treesit.Parse(ctx, treesit.Python, src, bounds)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	x := &extractor{t: tree, f: &code.Facts{}, test: test, logicLimit: logicLimit}
	root := tree.Root()
	x.f.Doc = x.docstring(root)
	x.block(root, "")
	line, col, msg, _ := tree.FirstError()
	if err := tree.Err(); err != nil {
		return nil, err
	}
	x.f.Finish(src, line, col, msg)
	return x.f, nil
}

type extractor struct {
	t          *treesit.Tree
	f          *code.Facts
	test       bool
	logicLimit int
}

// block reads the statements of a module (class "") or a class body.
func (x *extractor) block(n *treesit.Node, class string) {
	x.t.Children(n, func(c *treesit.Node) { x.statement(c, c, class) })
}

// statement reads one statement; outer is the node the declaration spans (its decorators
// included).
func (x *extractor) statement(n, outer *treesit.Node, class string) {
	switch n.Type() {
	case "decorated_definition":
		if def := n.ChildByFieldName("definition"); def != nil {
			x.statement(def, n, class)
		}
	case "function_definition":
		x.function(n, outer, class)
	case "class_definition":
		x.class(n, outer, class)
	case "import_statement", "import_from_statement", "future_import_statement":
		if class == "" {
			x.imports(n)
		}
	case "expression_statement":
		if class == "" {
			x.assignment(n)
		}
	case "type_alias_statement":
		if class == "" {
			if name := n.ChildByFieldName("left"); name != nil {
				x.add(code.Decl{Kind: code.KindType, Name: x.t.Text(name)}, n, n, nil)
			}
		}
	case "if_statement", "try_statement", "with_statement", "for_statement", "while_statement",
		"else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause":
		// Definitions under `if TYPE_CHECKING:`, `try: import x except ImportError:`, in a
		// loop and the like are the module's (or the class's) too.
		x.t.Children(n, func(c *treesit.Node) {
			switch c.Type() {
			case "block", "else_clause", "elif_clause", "except_clause", "except_group_clause", "finally_clause":
				x.statement(c, c, class)
			}
		})
	case "block", "ERROR":
		// A block's statements; an ERROR node holds the statements the parser recovered
		// around a syntax error it could not place.
		x.t.Children(n, func(c *treesit.Node) { x.statement(c, c, class) })
	}
}

func (x *extractor) imports(n *treesit.Node) {
	line := treesit.Line(n)
	switch n.Type() {
	case "import_statement":
		x.t.Children(n, func(c *treesit.Node) {
			switch c.Type() {
			case "dotted_name":
				mod := x.t.Text(c)
				head, _, _ := strings.Cut(mod, ".")
				x.f.Imports = append(x.f.Imports, code.Import{Module: mod, Line: line}, code.Import{Module: head, Local: head, Line: line})
			case "aliased_import":
				mod, alias := x.t.Text(c.ChildByFieldName("name")), x.t.Text(c.ChildByFieldName("alias"))
				x.f.Imports = append(x.f.Imports, code.Import{Module: mod, Local: alias, Line: line})
			}
		})
	case "import_from_statement":
		mod := strings.Join(strings.Fields(x.t.Text(n.ChildByFieldName("module_name"))), "")
		x.t.ChildFields(n, func(c *treesit.Node, field string) {
			if field == "module_name" {
				return
			}
			switch c.Type() {
			case "dotted_name":
				name := x.t.Text(c)
				x.f.Imports = append(x.f.Imports, code.Import{Module: mod, Local: name, Name: name, Line: line})
			case "aliased_import":
				name, alias := x.t.Text(c.ChildByFieldName("name")), x.t.Text(c.ChildByFieldName("alias"))
				x.f.Imports = append(x.f.Imports, code.Import{Module: mod, Local: alias, Name: name, Line: line})
			case "wildcard_import":
				x.f.Imports = append(x.f.Imports, code.Import{Module: mod, Name: "*", Line: line})
			}
		})
	}
}

// assignment reads a module-level NAME = ... or NAME: T = ...
func (x *extractor) assignment(n *treesit.Node) {
	a := n.NamedChild(0)
	if a == nil || a.Type() != "assignment" {
		return
	}
	left := a.ChildByFieldName("left")
	if left == nil || left.Type() != "identifier" {
		return
	}
	name := x.t.Text(left)
	kind := code.KindVar
	if isConstName(name) {
		kind = code.KindConst
	}
	d := code.Decl{Kind: kind, Name: name}
	if right := a.ChildByFieldName("right"); right != nil {
		d.Uses = x.valueUses(right)
	}
	if typ := a.ChildByFieldName("type"); typ != nil {
		d.Uses = append(d.Uses, x.typeNames(typ)...)
		if strings.Contains(x.t.Text(typ), "TypeAlias") {
			d.Kind = code.KindType
		}
	}
	d.Doc = x.followingDocstring(n)
	x.add(d, n, n, nil)
}

// valueUses are the names a module-level value is built from when it is a call or a name:
// X = Foo(...), X = Alias.
func (x *extractor) valueUses(v *treesit.Node) []string {
	switch v.Type() {
	case "call":
		if name := x.dotted(v.ChildByFieldName("function")); name != "" {
			return []string{name}
		}
	case "identifier", "attribute":
		if name := x.dotted(v); name != "" {
			return []string{name}
		}
	}
	return nil
}

// followingDocstring is the string statement right after a module-level assignment, the
// attribute docstring convention Sphinx reads.
func (x *extractor) followingDocstring(n *treesit.Node) string {
	next := x.t.NextNamedSibling(n)
	if next == nil || next.Type() != "expression_statement" {
		return ""
	}
	if s := next.NamedChild(0); s != nil && s.Type() == "string" && next.NamedChildCount() == 1 {
		return x.stringText(s)
	}
	return ""
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

func (x *extractor) class(n, outer *treesit.Node, parent string) {
	name := x.t.Text(n.ChildByFieldName("name"))
	if name == "" {
		return
	}
	body := n.ChildByFieldName("body")
	d := code.Decl{Kind: code.KindClass, Name: name, Parent: parent, Doc: x.docstring(body)}
	if sup := n.ChildByFieldName("superclasses"); sup != nil {
		x.t.Children(sup, func(c *treesit.Node) {
			if base := x.dotted(c); base != "" {
				d.Uses = append(d.Uses, base)
			}
		})
	}
	d.Test = x.test && strings.HasPrefix(name, "Test") && parent == ""
	x.add(d, n, outer, body)
	if body != nil {
		qual := name
		if parent != "" {
			qual = parent + "." + name
		}
		x.block(body, qual)
	}
}

func (x *extractor) function(n, outer *treesit.Node, class string) {
	name := x.t.Text(n.ChildByFieldName("name"))
	if name == "" {
		return
	}
	body := n.ChildByFieldName("body")
	d := code.Decl{Kind: code.KindFunc, Name: name, Parent: class, Doc: x.docstring(body)}
	if class != "" {
		d.Kind = code.KindMethod
	}
	d.Test = x.test && strings.HasPrefix(name, "test") && (class == "" || strings.HasPrefix(class, "Test"))
	types := map[string]string{}
	if params := n.ChildByFieldName("parameters"); params != nil {
		x.paramTypes(params, types)
	}
	if ret := n.ChildByFieldName("return_type"); ret != nil {
		d.Uses = append(d.Uses, x.typeNames(ret)...)
	}
	if body != nil {
		x.calls(body, types, &d)
		if x.logicLimit > 0 {
			d.Logic = x.t.Logic(d.Qual(), n, body, x.logicLimit)
		}
	}
	x.add(d, n, outer, body)
}

// add completes a declaration's span, title and digests and records it. head is the node
// whose text up to body is the declaration's header.
func (x *extractor) add(d code.Decl, head, outer, body *treesit.Node) {
	d.Line, d.End = treesit.Line(outer), treesit.EndLine(outer)
	end := head.EndByte()
	if body != nil {
		end = body.StartByte()
	}
	header := string(x.t.Src[head.StartByte():end])
	d.Title = code.Title(header, ":")
	d.Signature = code.Digest("docforge.python.signature", header)
	if body != nil {
		d.Implementation = code.Digest("docforge.python.implementation", x.t.Text(body))
	}
	d.Exported = !strings.HasPrefix(d.Name, "_") || strings.HasPrefix(d.Name, "__") && strings.HasSuffix(d.Name, "__")
	slices.Sort(d.Calls)
	d.Calls = slices.Compact(d.Calls)
	slices.Sort(d.Uses)
	d.Uses = slices.Compact(d.Uses)
	x.f.Decls = append(x.f.Decls, d)
}

// docstring is the string that opens a block, without its quotes.
func (x *extractor) docstring(block *treesit.Node) string {
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
	return x.stringText(s)
}

// stringText is a string literal's content, dedented.
func (x *extractor) stringText(s *treesit.Node) string {
	var b strings.Builder
	x.t.Children(s, func(c *treesit.Node) {
		if c.Type() == "string_content" {
			b.WriteString(x.t.Text(c))
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

// dotted is the dotted name an identifier or attribute chain spells, or "" for any other
// expression.
func (x *extractor) dotted(n *treesit.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "identifier":
		return x.t.Text(n)
	case "attribute":
		obj := x.dotted(n.ChildByFieldName("object"))
		attr := n.ChildByFieldName("attribute")
		if obj == "" || attr == nil {
			return ""
		}
		return obj + "." + x.t.Text(attr)
	case "subscript": // Generic[T]
		return x.dotted(n.ChildByFieldName("value"))
	case "keyword_argument":
		return ""
	}
	return ""
}

// typeNames are the dotted names in a type annotation: Foo, mod.Bar, Optional[Foo] gives
// Optional and Foo.
func (x *extractor) typeNames(n *treesit.Node) []string {
	var out []string
	x.t.Walk(n, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "identifier", "attribute":
			if name := x.dotted(c); name != "" {
				out = append(out, name)
			}
			return false
		case "string": // a forward reference, "Foo"
			if s := strings.TrimSpace(x.stringText(c)); isDotted(s) {
				out = append(out, s)
			}
			return false
		}
		return true
	})
	return out
}

// annotatedClass is the class a parameter's or variable's annotation names, when it names
// one: Foo, mod.Foo, Foo | None, Optional[Foo], "Foo".
func (x *extractor) annotatedClass(typ *treesit.Node) string {
	var names []string
	for _, n := range x.typeNames(typ) {
		switch n {
		case "Optional", "None", "typing.Optional", "Annotated", "typing.Annotated":
			continue
		}
		names = append(names, n)
	}
	if len(names) != 1 {
		return ""
	}
	last := names[0][strings.LastIndexByte(names[0], '.')+1:]
	if last == "" || !unicode.IsUpper(rune(last[0])) {
		return ""
	}
	return names[0]
}

func isDotted(s string) bool {
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

func (x *extractor) paramTypes(params *treesit.Node, types map[string]string) {
	x.t.Children(params, func(p *treesit.Node) {
		switch p.Type() {
		case "typed_parameter", "typed_default_parameter":
			typ := p.ChildByFieldName("type")
			name := p.ChildByFieldName("name")
			if name == nil {
				name = p.NamedChild(0)
			}
			if typ == nil || name == nil || name.Type() != "identifier" {
				return
			}
			if cls := x.annotatedClass(typ); cls != "" {
				types[x.t.Text(name)] = cls
			}
		}
	})
}

// calls gathers the calls of a function body: dotted names, through locals whose class is
// known (an annotation, or an assignment from a call of a capitalized name).
func (x *extractor) calls(body *treesit.Node, types map[string]string, d *code.Decl) {
	x.t.Walk(body, func(n, _ *treesit.Node) bool {
		switch n.Type() {
		case "assignment":
			left := n.ChildByFieldName("left")
			if left == nil || left.Type() != "identifier" {
				return true
			}
			if typ := n.ChildByFieldName("type"); typ != nil {
				if cls := x.annotatedClass(typ); cls != "" {
					types[x.t.Text(left)] = cls
					return true
				}
			}
			if right := n.ChildByFieldName("right"); right != nil && right.Type() == "call" {
				if cls := x.dotted(right.ChildByFieldName("function")); cls != "" && isClassName(cls) {
					types[x.t.Text(left)] = cls
				}
			}
		case "call":
			x.call(n, types, d)
		case "lambda":
			return true
		}
		return true
	})
}

func isClassName(dotted string) bool {
	last := dotted[strings.LastIndexByte(dotted, '.')+1:]
	return last != "" && unicode.IsUpper(rune(last[0]))
}

func (x *extractor) call(n *treesit.Node, types map[string]string, d *code.Decl) {
	fn := n.ChildByFieldName("function")
	if fn == nil {
		return
	}
	name := x.dotted(fn)
	if name == "" {
		// Foo(...).run(): a method of what a class makes.
		if fn.Type() == "attribute" {
			if obj := fn.ChildByFieldName("object"); obj != nil && obj.Type() == "call" {
				if cls := x.dotted(obj.ChildByFieldName("function")); cls != "" && isClassName(cls) {
					d.Calls = append(d.Calls, cls+"."+x.t.Text(fn.ChildByFieldName("attribute")))
				}
			}
		}
		return
	}
	head, rest, dotted := strings.Cut(name, ".")
	switch {
	case !dotted:
	case head == "self" || head == "cls":
		if strings.Contains(rest, ".") {
			d.Ambiguous++ // self.attr.method(): the attribute's class is not known
			return
		}
	case types[head] != "":
		name = types[head] + "." + rest
	case head == "super":
		return
	}
	d.Calls = append(d.Calls, name)
}
