package ecma

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Grammar is the grammar a file's name asks for.
func Grammar(rel string) treesit.Grammar {
	switch path.Ext(rel) {
	case ".ts", ".mts", ".cts":
		return treesit.TypeScript
	case ".tsx":
		return treesit.TSX
	}
	return treesit.JavaScript
}

// Extract parses one TypeScript or JavaScript file and returns its facts. test says the file
// is a test file, whose describe, it and test blocks are tests. logicLimit bounds the steps
// of each function's Logic; 0 builds none. bounds bound the file's cost (treesit.Parse): a file over
// them fails with a *treesit.BoundError.
func Extract(ctx context.Context, rel string, src []byte, test bool, logicLimit int, bounds treesit.Bounds) (*code.Facts, error) {
	tree, err := treesit.Parse(ctx, Grammar(rel), src, bounds)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	x := &extractor{t: tree, f: &code.Facts{}, test: test, tests: map[string]int{}, signatures: map[string]int{}, logicLimit: logicLimit}
	root := tree.Root()
	if first := root.NamedChild(0); first != nil && first.Type() == "comment" {
		if doc := jsdoc(tree.Text(first)); doc != "" && first.NextNamedSibling() != nil && first.NextNamedSibling().Type() != "comment" {
			x.f.Doc = doc
		}
	}
	x.t.Children(root, func(c *treesit.Node) { x.statement(c, c, false) })
	line, col, msg, _ := tree.FirstError()
	if err := tree.Err(); err != nil {
		return nil, err
	}
	x.f.Finish(src, line, col, msg)
	return x.f, nil
}

type extractor struct {
	t     *treesit.Tree
	f     *code.Facts
	test  bool
	tests map[string]int // test block names used, to number repeats
	// signatures are the functions and methods declared so far without a body (overloads,
	// declarations), by qualified name: an implementation replaces them.
	signatures map[string]int
	logicLimit int
}

// statement reads one top-level statement; outer spans it with its export keyword and doc.
func (x *extractor) statement(n, outer *treesit.Node, exported bool) {
	switch n.Type() {
	case "import_statement":
		x.importStatement(n)
	case "export_statement":
		if src := n.ChildByFieldName("source"); src != nil {
			x.reexport(n, stringValue(x.t.Text(src)))
			return
		}
		if d := n.ChildByFieldName("declaration"); d != nil {
			x.statement(d, n, true)
			return
		}
		// export default <expression>, export { a, b }
		x.t.Children(n, func(c *treesit.Node) {
			switch c.Type() {
			case "class", "function_expression", "arrow_function", "function":
				x.function(c, n, "default", "", true)
			case "identifier":
				x.alias(n, "default", x.t.Text(c))
			}
		})
	case "function_declaration", "generator_function_declaration", "function_signature":
		x.function(n, outer, x.t.Text(n.ChildByFieldName("name")), "", exported)
	case "class_declaration", "abstract_class_declaration", "class":
		x.class(n, outer, exported)
	case "interface_declaration":
		x.simple(code.KindInterface, n, outer, exported, n.ChildByFieldName("body"))
	case "type_alias_declaration", "enum_declaration":
		x.simple(code.KindType, n, outer, exported, nil)
	case "lexical_declaration", "variable_declaration":
		x.variables(n, outer, exported)
	case "expression_statement":
		x.expression(n)
	case "statement_block":
		x.t.Children(n, func(c *treesit.Node) { x.statement(c, c, exported) })
	case "ambient_declaration", "module", "internal_module":
		// declare module / namespace: its declarations are the file's.
		if body := n.ChildByFieldName("body"); body != nil {
			x.t.Children(body, func(c *treesit.Node) { x.statement(c, c, exported) })
		} else {
			x.t.Children(n, func(c *treesit.Node) { x.statement(c, c, exported) })
		}
	}
}

func (x *extractor) importStatement(n *treesit.Node) {
	spec := stringValue(x.t.Text(n.ChildByFieldName("source")))
	line := treesit.Line(n)
	found := false
	x.t.Walk(n, func(c, parent *treesit.Node) bool {
		switch c.Type() {
		case "import_clause":
			return true
		case "identifier": // default import
			if parent != nil && parent.Type() == "import_clause" {
				x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(c), Name: "default", Line: line})
				found = true
			}
			return false
		case "namespace_import":
			if id := c.NamedChild(0); id != nil {
				x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(id), Line: line})
				found = true
			}
			return false
		case "import_specifier":
			name := x.t.Text(c.ChildByFieldName("name"))
			local := name
			if a := c.ChildByFieldName("alias"); a != nil {
				local = x.t.Text(a)
			}
			x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: local, Name: name, Line: line})
			found = true
			return false
		}
		return c == n || c.Type() == "named_imports"
	})
	if !found {
		x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Line: line})
	}
}

// reexport reads export * from, export * as ns from, export {a as b} from.
func (x *extractor) reexport(n *treesit.Node, spec string) {
	line := treesit.Line(n)
	clause := false
	x.t.Children(n, func(c *treesit.Node) {
		switch c.Type() {
		case "export_clause":
			clause = true
			x.t.Children(c, func(s *treesit.Node) {
				name := x.t.Text(s.ChildByFieldName("name"))
				local := name
				if a := s.ChildByFieldName("alias"); a != nil {
					local = x.t.Text(a)
				}
				x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: local, Name: name, Line: line, Export: true})
			})
		case "namespace_export":
			clause = true
			if id := c.NamedChild(0); id != nil {
				x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(id), Line: line, Export: true})
			}
		}
	})
	if !clause {
		x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Name: "*", Line: line, Export: true})
	}
}

// expression reads a top-level expression: a test block, module.exports = ..., or a call
// of require for its side effects.
func (x *extractor) expression(n *treesit.Node) {
	e := n.NamedChild(0)
	if e == nil {
		return
	}
	switch e.Type() {
	case "call_expression":
		if x.test {
			x.testBlock(e, "")
		}
	case "assignment_expression":
		left, right := e.ChildByFieldName("left"), e.ChildByFieldName("right")
		name := x.dotted(left)
		if right == nil {
			return
		}
		switch {
		case name == "module.exports" || strings.HasPrefix(name, "exports.") || strings.HasPrefix(name, "module.exports."):
			local := name[strings.LastIndexByte(name, '.')+1:]
			if name == "module.exports" {
				local = "default"
			}
			switch right.Type() {
			case "function_expression", "arrow_function", "function":
				x.function(right, n, local, "", true)
			case "class":
				x.class(right, n, true)
			case "identifier":
				x.alias(n, local, x.t.Text(right))
			}
		}
	}
}

// alias records an export of a local name under another (export default pad;
// module.exports = pad): a node of the exported name that depends on the local one, so that
// an import of the exported name reaches it.
func (x *extractor) alias(n *treesit.Node, exported, local string) {
	if exported == local {
		return
	}
	d := code.Decl{Kind: code.KindVar, Name: exported, Exported: true, Uses: []string{local}}
	x.finish(&d, n, n, nil)
}

// isTestCall reports whether a callee is a test runner's block: describe, it, test, suite,
// context, with .only, .skip, .each, .concurrent, .todo or .serial; tap's t.test.
func isTestCall(fn string) bool {
	head, mod, dotted := strings.Cut(fn, ".")
	switch head {
	case "describe", "it", "test", "suite", "context":
	case "t", "tap": // tap's t.test and tap.test
		return mod == "test"
	default:
		return false
	}
	if !dotted {
		return true
	}
	switch mod {
	case "only", "skip", "each", "concurrent", "todo", "serial":
		return true
	}
	return false
}

// testBlock records a describe/it/test call of a test file as a test declaration; parent
// is the enclosing block's name.
func (x *extractor) testBlock(call *treesit.Node, parent string) {
	fn := x.dotted(call.ChildByFieldName("function"))
	if !isTestCall(fn) {
		return
	}
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return
	}
	title := ""
	var body *treesit.Node
	x.t.Children(args, func(a *treesit.Node) {
		switch a.Type() {
		case "string", "template_string":
			if title == "" {
				title = stringValue(x.t.Text(a))
			}
		case "arrow_function", "function_expression", "function":
			if body == nil {
				body = a.ChildByFieldName("body")
			}
		}
	})
	if body == nil {
		return
	}
	name := code.TestName(title)
	key := parent + "." + name
	x.tests[key]++
	if k := x.tests[key]; k > 1 {
		name += "_" + strconv.Itoa(k)
	}
	d := code.Decl{Kind: code.KindFunc, Name: name, Parent: parent, Test: true, Exported: false}
	kw, _, _ := strings.Cut(fn, ".")
	d.Title = kw + "(" + quoteTitle(title) + ")"
	types := map[string]string{}
	x.calls(body, types, &d, func(inner *treesit.Node) bool {
		// Nested blocks are their own tests; their calls are theirs.
		if inner.Type() == "call_expression" && isTestCall(x.dotted(inner.ChildByFieldName("function"))) {
			qual := name
			if parent != "" {
				qual = parent + "." + name
			}
			x.testBlock(inner, qual)
			return false
		}
		return true
	})
	x.finish(&d, call, call, body)
}

func quoteTitle(t string) string {
	if len(t) > 80 {
		t = t[:80] + "…"
	}
	return "\"" + t + "\""
}

func (x *extractor) class(n, outer *treesit.Node, exported bool) {
	x.namedClass(n, outer, x.t.Text(n.ChildByFieldName("name")), exported)
}

// namedClass records a class under name: its own, or the variable's a class expression is
// assigned to; "default" for an anonymous default export.
func (x *extractor) namedClass(n, outer *treesit.Node, name string, exported bool) {
	if name == "" {
		name = "default"
	}
	body := n.ChildByFieldName("body")
	d := code.Decl{Kind: code.KindClass, Name: name, Doc: x.docBefore(outer), Exported: exported}
	x.t.Walk(n, func(c, parent *treesit.Node) bool {
		switch c.Type() {
		case "class_heritage", "extends_clause", "implements_clause":
			return true
		case "identifier", "type_identifier", "member_expression", "nested_type_identifier":
			if p := parent; p != nil && p.Type() != "class_declaration" && p.Type() != "abstract_class_declaration" && p.Type() != "class" {
				if s := x.dotted(c); s != "" {
					d.Uses = append(d.Uses, s)
				}
			}
			return false
		}
		return c == n
	})
	x.finish(&d, n, outer, body)
	if body == nil {
		return
	}
	x.t.Children(body, func(m *treesit.Node) {
		switch m.Type() {
		case "method_definition", "abstract_method_signature", "method_signature":
			x.function(m, m, x.t.Text(m.ChildByFieldName("name")), name, true)
		case "public_field_definition", "field_definition":
			if v := m.ChildByFieldName("value"); v != nil && (v.Type() == "arrow_function" || v.Type() == "function_expression") {
				fname := x.t.Text(m.ChildByFieldName("name"))
				if fname == "" {
					fname = x.t.Text(m.ChildByFieldName("property"))
				}
				x.function(v, m, fname, name, true)
			}
		}
	})
}

// memberName is a member's name without the quotes, brackets or # its key is written with:
// "x", [Symbol.iterator], #secret.
func memberName(key string) string { return strings.Trim(key, "\"'`[]#") }

// function records a function or method; n is the function node (its parameters and body),
// outer the span of the declaration.
func (x *extractor) function(n, outer *treesit.Node, name, class string, exported bool) {
	name = memberName(name)
	if name == "" {
		return
	}
	body := n.ChildByFieldName("body")
	d := code.Decl{Kind: code.KindFunc, Name: name, Parent: class, Doc: x.docBefore(outer), Exported: exported}
	if class != "" {
		d.Kind = code.KindMethod
		d.Exported = !strings.HasPrefix(name, "_") && !strings.HasPrefix(x.t.Text(outer), "private")
	}
	types := map[string]string{}
	if params := n.ChildByFieldName("parameters"); params != nil {
		x.paramTypes(params, types)
		d.Uses = append(d.Uses, x.typeRefs(params)...)
	}
	if ret := n.ChildByFieldName("return_type"); ret != nil {
		d.Uses = append(d.Uses, x.typeRefs(ret)...)
	}
	if body != nil {
		x.calls(body, types, &d, nil)
		if x.logicLimit > 0 {
			d.Logic = x.t.Logic(d.Qual(), n, body, x.logicLimit)
		}
	}
	x.finish(&d, n, outer, body)
}

// simple records an interface, type alias or enum.
func (x *extractor) simple(kind string, n, outer *treesit.Node, exported bool, body *treesit.Node) {
	name := x.t.Text(n.ChildByFieldName("name"))
	if name == "" {
		return
	}
	d := code.Decl{Kind: kind, Name: name, Doc: x.docBefore(outer), Exported: exported}
	d.Uses = x.typeRefs(n)
	x.finish(&d, n, outer, body)
	if kind == code.KindInterface && body != nil {
		// An interface's methods and properties are what a task names as Interface.member.
		x.t.Children(body, func(m *treesit.Node) {
			switch m.Type() {
			case "method_signature", "property_signature":
				mname := memberName(x.t.Text(m.ChildByFieldName("name")))
				if mname == "" {
					return
				}
				md := code.Decl{Kind: code.KindMethod, Name: mname, Parent: name, Doc: x.docBefore(m), Exported: exported}
				x.finish(&md, m, m, nil)
			}
		})
	}
}

// variables records the module-level const, let and var declarations: a function when its
// value is an arrow function or function expression, a constant or variable otherwise.
func (x *extractor) variables(n, outer *treesit.Node, exported bool) {
	isConst := strings.HasPrefix(x.t.Text(n), "const")
	x.t.Children(n, func(v *treesit.Node) {
		if v.Type() != "variable_declarator" {
			return
		}
		nameNode := v.ChildByFieldName("name")
		if nameNode == nil || nameNode.Type() != "identifier" {
			// const { a, b } = require('x'): destructured requires bind names.
			x.requireBinding(v)
			return
		}
		name := x.t.Text(nameNode)
		value := v.ChildByFieldName("value")
		span := outer
		if n.NamedChildCount() > 1 {
			span = v
		}
		if value != nil {
			switch value.Type() {
			case "arrow_function", "function_expression", "function", "generator_function":
				x.function(value, span, name, "", exported)
				return
			case "class":
				x.namedClass(value, span, name, exported)
				return
			case "call_expression":
				if x.requireBinding(v) {
					return
				}
			}
		}
		kind := code.KindVar
		if isConst {
			kind = code.KindConst
		}
		d := code.Decl{Kind: kind, Name: name, Doc: x.docBefore(outer), Exported: exported}
		if t := v.ChildByFieldName("type"); t != nil {
			d.Uses = append(d.Uses, x.typeRefs(t)...)
		}
		if value != nil {
			x.calls(value, map[string]string{}, &d, nil)
		}
		x.finish(&d, v, span, value)
	})
}

// requireBinding reads const x = require('m') and const {a, b: c} = require('m').
func (x *extractor) requireBinding(v *treesit.Node) bool {
	value := v.ChildByFieldName("value")
	if value == nil || value.Type() != "call_expression" || x.t.Text(value.ChildByFieldName("function")) != "require" {
		return false
	}
	args := value.ChildByFieldName("arguments")
	if args == nil || args.NamedChild(0) == nil || args.NamedChild(0).Type() != "string" {
		return false
	}
	spec := stringValue(x.t.Text(args.NamedChild(0)))
	line := treesit.Line(v)
	name := v.ChildByFieldName("name")
	switch {
	case name == nil:
	case name.Type() == "identifier":
		x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(name), Name: "default", Line: line},
			code.Import{Module: spec, Local: x.t.Text(name), Line: line})
	case name.Type() == "object_pattern":
		x.t.Children(name, func(p *treesit.Node) {
			switch p.Type() {
			case "shorthand_property_identifier_pattern":
				x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(p), Name: x.t.Text(p), Line: line})
			case "pair_pattern":
				k, val := p.ChildByFieldName("key"), p.ChildByFieldName("value")
				if k != nil && val != nil && val.Type() == "identifier" {
					x.f.Imports = append(x.f.Imports, code.Import{Module: spec, Local: x.t.Text(val), Name: x.t.Text(k), Line: line})
				}
			}
		})
	}
	return true
}

func (x *extractor) finish(d *code.Decl, head, outer, body *treesit.Node) {
	d.Line, d.End = treesit.Line(outer), treesit.EndLine(outer)
	start, end := outer.StartByte(), outer.EndByte()
	if body != nil && body.StartByte() > start {
		end = body.StartByte()
	}
	header := string(x.t.Src[start:end])
	if d.Title == "" {
		d.Title = code.Title(header, "=>", "=")
	}
	d.Signature = code.Digest("docforge.ecma.signature", header)
	if body != nil {
		d.Implementation = code.Digest("docforge.ecma.implementation", x.t.Text(body))
	}
	slices.Sort(d.Calls)
	d.Calls = slices.Compact(d.Calls)
	slices.Sort(d.Uses)
	d.Uses = slices.Compact(d.Uses)
	if i, ok := x.signatures[d.Qual()]; ok {
		// An overload's signature came first: the implementation stands for the function,
		// from the first signature's line on.
		d.Line = x.f.Decls[i].Line
		d.Doc = cmp.Or(d.Doc, x.f.Decls[i].Doc)
		x.f.Decls[i] = *d
		if body != nil {
			delete(x.signatures, d.Qual())
		}
		return
	}
	if body == nil && (d.Kind == code.KindFunc || d.Kind == code.KindMethod) && head.Type() != "method_signature" && head.Type() != "property_signature" {
		x.signatures[d.Qual()] = len(x.f.Decls)
	}
	x.f.Decls = append(x.f.Decls, *d)
}

// docBefore is the JSDoc comment right before a declaration.
func (x *extractor) docBefore(n *treesit.Node) string {
	prev := x.t.PrevSibling(n)
	if prev == nil || prev.Type() != "comment" {
		if p := x.t.Parent(n); p != nil && p.Type() == "export_statement" {
			return x.docBefore(p)
		}
		return ""
	}
	return jsdoc(x.t.Text(prev))
}

// jsdoc is a /** ... */ comment's text without its stars.
func jsdoc(c string) string {
	if !strings.HasPrefix(c, "/**") {
		return ""
	}
	c = strings.TrimSuffix(strings.TrimPrefix(c, "/**"), "*/")
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		lines[i] = strings.TrimSpace(strings.TrimPrefix(l, "*"))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func stringValue(s string) string {
	return strings.Trim(s, "\"'`")
}

// dotted is the dotted name an identifier or member chain spells, or "".
func (x *extractor) dotted(n *treesit.Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "identifier", "type_identifier", "property_identifier", "this", "super":
		return x.t.Text(n)
	case "member_expression", "nested_type_identifier", "nested_identifier":
		obj := n.ChildByFieldName("object")
		prop := n.ChildByFieldName("property")
		if obj == nil {
			obj, prop = n.NamedChild(0), n.NamedChild(1)
		}
		o := x.dotted(obj)
		if o == "" || prop == nil {
			return ""
		}
		return o + "." + x.t.Text(prop)
	case "non_null_expression", "parenthesized_expression":
		return x.dotted(n.NamedChild(0))
	}
	return ""
}

// typeRefs are the named types a type annotation or declaration mentions.
func (x *extractor) typeRefs(n *treesit.Node) []string {
	var out []string
	x.t.Walk(n, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "type_identifier":
			out = append(out, x.t.Text(c))
			return false
		case "nested_type_identifier":
			if s := x.dotted(c); s != "" {
				out = append(out, s)
			}
			return false
		case "statement_block":
			return false
		}
		return true
	})
	return out
}

func (x *extractor) paramTypes(params *treesit.Node, types map[string]string) {
	x.t.Children(params, func(p *treesit.Node) {
		pat, typ := p.ChildByFieldName("pattern"), p.ChildByFieldName("type")
		if pat == nil || typ == nil || pat.Type() != "identifier" {
			return
		}
		refs := x.typeRefs(typ)
		if len(refs) == 1 {
			types[x.t.Text(pat)] = refs[0]
		}
	})
}

// calls gathers a body's calls and new expressions; descend, when given, decides whether to
// walk below a node.
func (x *extractor) calls(body *treesit.Node, types map[string]string, d *code.Decl, descend func(*treesit.Node) bool) {
	x.t.Walk(body, func(n, _ *treesit.Node) bool {
		if descend != nil && !descend(n) {
			return false
		}
		switch n.Type() {
		case "variable_declarator":
			name, value := n.ChildByFieldName("name"), n.ChildByFieldName("value")
			if name == nil || name.Type() != "identifier" {
				return true
			}
			if t := n.ChildByFieldName("type"); t != nil {
				if refs := x.typeRefs(t); len(refs) == 1 {
					types[x.t.Text(name)] = refs[0]
					return true
				}
			}
			if value != nil {
				if value.Type() == "await_expression" && value.NamedChild(0) != nil {
					value = value.NamedChild(0)
				}
				if value.Type() == "new_expression" {
					if cls := x.dotted(value.ChildByFieldName("constructor")); cls != "" {
						types[x.t.Text(name)] = cls
					}
				}
			}
		case "new_expression":
			if cls := x.dotted(n.ChildByFieldName("constructor")); cls != "" {
				d.Calls = append(d.Calls, cls)
			}
		case "call_expression":
			fn := n.ChildByFieldName("function")
			name := x.dotted(fn)
			if name == "" {
				if fn != nil && fn.Type() == "member_expression" {
					if obj := fn.ChildByFieldName("object"); obj != nil && obj.Type() == "new_expression" {
						if cls := x.dotted(obj.ChildByFieldName("constructor")); cls != "" {
							d.Calls = append(d.Calls, cls+"."+x.t.Text(fn.ChildByFieldName("property")))
						}
					}
				}
				return true
			}
			head, rest, dotted := strings.Cut(name, ".")
			switch {
			case !dotted:
			case head == "this":
				if strings.Contains(rest, ".") {
					d.Ambiguous++
					return true
				}
			case types[head] != "":
				name = types[head] + "." + rest
			case head == "super":
				return true
			}
			d.Calls = append(d.Calls, name)
		}
		return true
	})
}
