package lang

import (
	"cmp"
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Extract parses one file of language l and returns its facts: a node per declaration the
// language's rules name, with its doc comment, title, digests and the calls its body makes.
// test says the file is a test source (TestFile), so that its functions are tests. A file
// over its bounds fails with a *treesit.BoundError. logicLimit bounds the steps of each
// function's Logic (where the language has it); 0 builds none.
func Extract(ctx context.Context, l *Language, src []byte, test bool, logicLimit int, bounds treesit.Bounds) (*code.Facts, error) {
	parsed := src
	if l.Prepare != nil {
		parsed = l.Prepare(src)
	}
	tree, err := treesit.Parse(ctx, l.Grammar, parsed, bounds)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	tree.Src = src // the same length: every node's text is the source's own
	x := &extractor{l: l, t: tree, f: &code.Facts{}, test: test, logicLimit: logicLimit}
	root := tree.Root()
	if l.FileDoc != nil {
		x.f.Doc = l.FileDoc(tree, root)
	} else {
		x.f.Doc = x.fileDoc(root)
	}
	x.members(root, "", "")
	if err := tree.Err(); err != nil {
		return nil, err
	}
	x.resolveValueCalls()
	x.moduleCalls()
	x.preferDefinitions()
	if l.Imports != nil {
		l.Imports(tree, root, x.f)
	}
	line, col, msg, _ := tree.FirstError()
	x.f.Finish(src, line, col, msg)
	return x.f, nil
}

// preferDefinitions keeps, of a name declared twice in a file, its definition: a C++ method
// declared in its class and defined below it is the definition's node (calls and all).
func (x *extractor) preferDefinitions() {
	defined := map[string]bool{}
	for _, d := range x.f.Decls {
		if d.Implementation != "" { // a prototype has none
			defined[d.Qual()] = true
		}
	}
	x.f.Decls = slices.DeleteFunc(x.f.Decls, func(d code.Decl) bool {
		return d.Implementation == "" && defined[d.Qual()] && (d.Kind == code.KindFunc || d.Kind == code.KindMethod)
	})
}

// moduleCalls writes a bare call from a function in a module (Rust's mod tests) as the
// module's own function where the module declares one: helper() there is tests.helper.
func (x *extractor) moduleCalls() {
	declared := map[string]bool{}
	for _, d := range x.f.Decls {
		declared[d.Qual()] = true
	}
	for i := range x.f.Decls {
		d := &x.f.Decls[i]
		if d.Parent == "" || d.Kind != code.KindFunc {
			continue
		}
		for j, c := range d.Calls {
			if q := d.Parent + "." + c; !strings.Contains(c, ".") && declared[q] {
				d.Calls[j] = q
			}
		}
		slices.Sort(d.Calls)
	}
}

type extractor struct {
	l          *Language
	t          *treesit.Tree
	f          *code.Facts
	test       bool
	logicLimit int
	// fields are the declared types of each type's fields; scopes, by declaration index,
	// a function's names of known type; valueCalls its calls through a value, resolved once
	// the whole file is read (resolveValueCalls).
	fields     map[string]scope
	scopes     map[int]scope
	valueCalls map[int][]string
	// wrapper is the node wrapping the declaration being added (Rule.Wraps), whose lines
	// are the declaration's.
	wrapper *treesit.Node
}

// members reads the declarations among n's children, parent being their enclosing
// declaration's qualified name and parentKind its kind; a node that declares nothing is looked
// into (a block of an enum's body, a namespace's braces).
func (x *extractor) members(n *treesit.Node, parent, parentKind string) {
	x.t.Children(n, func(c *treesit.Node) {
		if !c.IsNamed() {
			return
		}
		rule, ok := x.l.Decls[c.Type()]
		if !ok {
			if !slices.Contains(x.l.Comments, c.Type()) {
				x.members(c, parent, parentKind)
			}
			return
		}
		if rule.Wraps != "" {
			inner := field(c, rule.Wraps)
			if inner == nil {
				return
			}
			if rule, ok = x.l.Decls[inner.Type()]; !ok {
				return
			}
			x.wrapper = c
			defer func() { x.wrapper = nil }()
			c = inner
		}
		x.declare(c, rule, parent, parentKind)
	})
}

// declare adds the declarations of one node and reads its members.
func (x *extractor) declare(n *treesit.Node, rule Rule, parent, parentKind string) {
	if rule.TopLevel && parent != "" {
		return
	}
	if rule.Owner != "" {
		// An implementation block: no node, its members are the type's.
		owner := typeName(x.t.Text(field(n, rule.Owner)))
		if owner == "" {
			return
		}
		if body := field(n, rule.Body); body != nil {
			x.members(body, owner, code.KindStruct)
		}
		return
	}
	kind := rule.Kind
	if rule.KindOf != nil {
		if kind = rule.KindOf(x.t, n); kind == "" {
			if rule.Transparent {
				x.members(n, parent, parentKind)
				return
			}
			// No node of its own: an extension, whose members are the extended type's.
			if owner := typeName(x.t.Text(field(n, rule.Name))); owner != "" {
				if body := field(n, rule.Body); body != nil {
					x.members(body, owner, code.KindStruct)
				}
			}
			return
		}
	}
	if parent != "" && parentKind != code.KindModule && rule.Method != "" && kind == code.KindFunc {
		kind = rule.Method
	}
	if rule.Const != nil && rule.Const(x.t, n) {
		kind = code.KindConst
	}
	if rule.Inner {
		defer x.members(n, parent, parentKind)
	}
	if rule.NameOf != nil {
		owner, name := rule.NameOf(x.t, n)
		if name == "" {
			return
		}
		if owner != "" {
			parent, parentKind = code.QualOf(parent, owner), code.KindClass
			if rule.Method != "" {
				kind = rule.Method
			}
		}
		body := field(n, rule.Body)
		x.add(n, rule, name, kind, parent, parentKind, body)
		if body != nil && kind == code.KindModule {
			x.members(body, code.QualOf(parent, name), kind) // a spec's describe block
		}
		return
	}
	var names []*treesit.Node
	if rule.Names != "" {
		// The declarators, directly below or in a declaration below (C#'s
		// variable_declaration), never in an initializer's body.
		x.t.Walk(n, func(c, _ *treesit.Node) bool {
			if c.Type() == rule.Names {
				if rule.Name == "" {
					names = append(names, c) // the node is the name (Swift's case a, b)
				} else {
					names = append(names, field(c, rule.Name))
				}
				return false
			}
			return c == n || !strings.Contains(c.Type(), "body") && c.Type() != "block"
		})
	} else {
		names = append(names, field(n, rule.Name))
	}
	body := field(n, rule.Body)
	for _, nameNode := range names {
		if name := x.t.Text(nameNode); name != "" {
			x.add(n, rule, name, kind, parent, parentKind, body)
		}
	}
	if rule.Components != "" && len(names) == 1 {
		x.components(n, rule, code.QualOf(parent, x.t.Text(names[0])))
	}
	if body != nil && len(names) == 1 && rule.Kind != code.KindFunc {
		x.members(body, code.QualOf(parent, x.t.Text(names[0])), kind)
	}
}

// components declares the components of a type's header that are its fields (a Java record's
// name and qty) as fields of the type qual.
func (x *extractor) components(n *treesit.Node, rule Rule, qual string) {
	x.t.Children(field(n, rule.Components), func(c *treesit.Node) {
		if !strings.HasSuffix(c.Type(), "parameter") || rule.Component != nil && !rule.Component(x.t, c) {
			return
		}
		if name := boundName(x.t, c); name != "" {
			x.add(c, Rule{Kind: code.KindField}, name, code.KindField, qual, code.KindClass, nil)
			// Its accessor is as visible as the type, unless the component says private.
			x.f.Decls[len(x.f.Decls)-1].Exported = x.l.Exported != nil && x.l.Exported(x.t, n) && !strings.Contains(x.t.Text(c), "private ")
		}
	})
}

// add adds the declaration of one name of node n.
func (x *extractor) add(n *treesit.Node, rule Rule, name, kind, parent, parentKind string, body *treesit.Node) {
	span := n
	if x.wrapper != nil {
		span, x.wrapper = x.wrapper, nil
	}
	d := code.Decl{Kind: kind, Name: name, Parent: parent, Line: treesit.Line(span), End: treesit.EndLine(span),
		Title: x.title(n, body), Exported: x.l.Exported != nil && x.l.Exported(x.t, n)}
	if rule.DocOf != nil {
		d.Doc = rule.DocOf(x.t, n, body)
	} else {
		d.Doc = x.docBefore(span)
	}
	digests := cmp.Or(x.l.Digests, "docforge.code")
	header := x.t.Text(n)
	if body != nil {
		header = string(x.t.Src[n.StartByte():body.StartByte()])
		d.Implementation = code.Digest(digests+".implementation", x.t.Text(body))
	}
	d.Signature = code.Digest(digests+".signature", header)
	d.Test = x.l.Test != nil && x.l.Test(x.t, n) || x.test && x.l.testNamed(kind, name, parent)
	switch {
	case rule.UsesOf != nil:
		d.Uses = rule.UsesOf(x.t, n)
	default:
		d.Uses = x.bases(n, rule.Bases)
		switch kind {
		case code.KindFunc, code.KindMethod, code.KindConstructor, code.KindField, code.KindConst, code.KindVar:
			d.Uses = append(d.Uses, x.signatureTypes(n, body, name)...)
		}
	}
	slices.Sort(d.Uses)
	d.Uses = slices.Compact(d.Uses)
	if kind == code.KindField && parent != "" {
		x.fieldType(parent, n, name)
	}
	if body != nil && (kind == code.KindFunc || kind == code.KindMethod || kind == code.KindConstructor) {
		var pending []string
		var locals []*treesit.Node
		d.Calls, pending, locals, d.Ambiguous = x.calls(body, parent != "" && parentKind != code.KindModule)
		if len(pending) > 0 {
			if x.valueCalls == nil {
				x.valueCalls, x.scopes = map[int][]string{}, map[int]scope{}
			}
			x.valueCalls[len(x.f.Decls)] = pending
			x.scopes[len(x.f.Decls)] = x.bindings(n, body, locals)
		}
		if x.l.Logic && x.logicLimit > 0 {
			d.Logic = x.t.Logic(d.Qual(), n, body, x.logicLimit)
		}
	}
	x.f.Decls = append(x.f.Decls, d)
}

// bases are the type names in the fields (or children of those types) of n that name what
// it extends or implements, each once, sorted.
func (x *extractor) bases(n *treesit.Node, fields []string) []string {
	var out []string
	for _, f := range fields {
		found := []*treesit.Node{n.ChildByFieldName(f)}
		if found[0] == nil {
			// Not a field in every grammar (version): the children of that type then.
			found = found[:0]
			x.t.Children(n, func(c *treesit.Node) {
				if c.Type() == f {
					found = append(found, c)
				}
			})
		}
		for _, b := range found {
			x.t.Walk(b, func(c, _ *treesit.Node) bool {
				if slices.Contains(x.l.typeNames(), c.Type()) {
					out = append(out, x.t.Text(c))
				}
				// Comparable<T> uses Comparable, not T.
				return c.Type() != "type_arguments" && c.Type() != "type_argument_list"
			})
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// field follows a path of fields ("declarator/name") from n. A step may name alternatives
// ("class_body|enum_class_body"), and a name that is no field of the node is its first named
// child of that type: a grammar without fields (Kotlin's) is read by node types.
func field(n *treesit.Node, path string) *treesit.Node {
	if path == "" {
		return nil
	}
	if path == "." {
		return n // the members are the node's own children (a proto service's rpcs)
	}
	for _, step := range strings.Split(path, "/") {
		if n == nil {
			return nil
		}
		var next *treesit.Node
		for _, alt := range strings.Split(step, "|") {
			if next = n.ChildByFieldName(alt); next != nil {
				break
			}
			for i := 0; i < int(n.NamedChildCount()) && next == nil; i++ {
				if c := n.NamedChild(i); c.Type() == alt {
					next = c
				}
			}
			if next != nil {
				break
			}
		}
		n = next
	}
	return n
}

// typeName is the name a type expression names, without generics or a path: Vec<T> is Vec,
// crate::a::Arg<'a> is Arg.
func typeName(s string) string {
	if i := strings.IndexAny(s, "<("); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "&*"))
}

// title is a declaration's header: its text up to its body, on one line.
func (x *extractor) title(n, body *treesit.Node) string {
	end := n.EndByte()
	if body != nil {
		end = body.StartByte()
	}
	header := string(x.t.Src[n.StartByte():end])
	// Attributes and annotations lead the header on lines of their own: the title starts at
	// the first line that is none.
	lines := strings.Split(header, "\n")
	for len(lines) > 1 {
		l := strings.TrimSpace(lines[0])
		if !strings.HasPrefix(l, "#[") && !strings.HasPrefix(l, "@") {
			break
		}
		lines = lines[1:]
	}
	return code.Title(strings.Join(lines, "\n"), x.l.titleEnds()...)
}

// docBefore is the doc comment right above n: the doc comments among its preceding siblings,
// across attributes, up to a blank line or other code.
func (x *extractor) docBefore(n *treesit.Node) string {
	var parts []string
	line := treesit.Line(n)
	first := x.t.PrevSibling(n)
	if up := x.t.Parent(n); first == nil && up != nil && treesit.Line(up) == line {
		// The first declaration of a body that starts with it: the comment is before the
		// body (Ruby's class body after `module Shop` and its comment).
		first = x.t.PrevSibling(up)
	}
	for p := first; p != nil; p = x.t.PrevSibling(p) {
		if treesit.EndLine(p) < line-1 {
			break // a blank line between
		}
		text := x.t.Text(p)
		switch {
		case slices.Contains(x.l.Comments, p.Type()):
			if !x.l.Doc(text) {
				return docText(parts)
			}
			parts = append(parts, text)
		case strings.Contains(p.Type(), "attribute") || strings.Contains(p.Type(), "annotation"):
		default:
			// A grammar may keep the comment inside the node before, as its last descendant
			// (Kotlin's import list).
			last := p
			for depth := 0; depth < 4 && len(parts) == 0 && last.NamedChildCount() > 0; depth++ {
				last = last.NamedChild(int(last.NamedChildCount()) - 1)
				if slices.Contains(x.l.Comments, last.Type()) && x.l.Doc(x.t.Text(last)) && treesit.EndLine(last) >= line-1 {
					parts = append(parts, x.t.Text(last))
				}
			}
			return docText(parts)
		}
		line = treesit.Line(p)
	}
	return docText(parts)
}

// fileDoc is a file's leading inner doc comment (Rust's //!), when it has one.
func (x *extractor) fileDoc(root *treesit.Node) string {
	var parts []string
	x.t.Children(root, func(c *treesit.Node) {
		text := x.t.Text(c)
		if slices.Contains(x.l.Comments, c.Type()) && (strings.HasPrefix(text, "//!") || strings.HasPrefix(text, "/*!")) {
			parts = append([]string{text}, parts...)
		}
	})
	return docText(parts)
}

// docText joins comments collected last first, without their comment marks.
func docText(parts []string) string {
	slices.Reverse(parts)
	var b strings.Builder
	for _, p := range parts {
		for _, line := range strings.Split(strings.TrimSpace(p), "\n") {
			line = strings.TrimSpace(line)
			for _, mark := range []string{"///", "//!", "/**", "/*!", "*/", "//", "/*", "*", "#"} {
				if strings.HasPrefix(line, mark) {
					line = strings.TrimSpace(line[len(mark):])
					break
				}
			}
			line = strings.TrimSpace(strings.TrimSuffix(line, "*/"))
			for _, tag := range []string{"<summary>", "</summary>", "<para>", "</para>", "<remarks>", "</remarks>"} {
				line = strings.TrimSpace(strings.ReplaceAll(line, tag, ""))
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(line)
		}
	}
	return strings.TrimSpace(b.String())
}

// calls are the names a body calls, as dotted names ("self.run", "Arg.new", "helper"), each
// once, sorted, and the count of calls through a value whose type cannot be told.
// In a type's member, an unqualified call names a member of the type where the language says
// so (Java's this.).
func (x *extractor) calls(body *treesit.Node, member bool) (names, pending []string, locals []*treesit.Node, ambiguous int) {
	seen := map[string]bool{}
	var closures [][2]uint32 // the byte spans of the closures and local functions met
	x.t.Walk(body, func(c, _ *treesit.Node) bool {
		typ := c.Type()
		switch {
		case closureTypes[typ]:
			closures = append(closures, [2]uint32{c.StartByte(), c.EndByte()})
		case localTypes[typ] && !inSpans(closures, c.StartByte()):
			// A declaration of the function's own locals, for bindings: collected on this
			// walk, which visits every node anyway.
			locals = append(locals, c)
		}
		if typ == x.l.MacroArgs {
			// A macro's arguments are tokens, not expressions: name(...) among them is read
			// as a call (assert!(is_number(s))).
			var prev *treesit.Node
			x.t.Children(c, func(tok *treesit.Node) {
				if prev != nil && prev.Type() == "identifier" && tok.Type() == x.l.MacroArgs && strings.HasPrefix(x.t.Text(tok), "(") {
					seen[x.t.Text(prev)] = true
				}
				prev = tok
			})
			return true
		}
		call, ok := x.l.Calls[typ]
		if !ok {
			return true
		}
		var name string
		switch {
		case call.Callee != "" && x.l.Callee != nil:
			name = x.l.Callee(x.t, field(c, call.Callee))
		case call.Callee != "":
			raw := x.t.Text(field(c, call.Callee))
			name = dotted(raw)
			if modulePath(raw) {
				// A function through its module's path (utils::assert_output): as written,
				// for the file's scope to resolve through its mod and use declarations.
				seen[strings.TrimPrefix(name, "self.")] = true
				return true
			}
		default:
			recv, method := field(c, call.Receiver), x.t.Text(field(c, call.Method))
			switch {
			case recv == nil:
				name = method
			case method != "":
				// PHP's $this->m() is this.m, self::m() self.m.
				name = strings.TrimPrefix(dotted(x.t.Text(recv)), "$") + "." + method
			}
		}
		if member && x.l.ImplicitThis && name != "" && !strings.Contains(name, ".") && !call.New && !(x.l.UpperIsType && upper(name)) {
			name = "this." + name
		}
		if x.l.Constructor != "" {
			// Ruby's Cart.new(...) makes a Cart: a call of the class, as Python's Cart(...).
			if typ, ok := strings.CutSuffix(name, "."+x.l.Constructor); ok && upper(typ[strings.LastIndexByte(typ, '.')+1:]) {
				name = typ
			}
		}
		head, _, qualified := strings.Cut(name, ".")
		switch {
		case name == "" || strings.ContainsAny(name, "()[]{}*&@ \t\n\"'"):
			if created := x.createdThenCalled(c, call); created != "" {
				seen[created] = true
			} else if name != "" {
				ambiguous++
			}
		case qualified && !x.l.self(head) && !upper(head),
			qualified && strings.Count(name, ".") > 1:
			// A method of a value (a local's, a field's): of its declared type where the
			// file tells it (resolveValueCalls), else ambiguous.
			if !upper(head) || x.l.ModuleCalls {
				pending = append(pending, name)
			} else {
				ambiguous++
			}
		default:
			seen[strings.Replace(name, "Self.", "self.", 1)] = true
		}
		return true
	})
	return slices.Sorted(maps.Keys(seen)), pending, locals, ambiguous
}

// inSpans reports whether the byte offset at is inside one of spans.
func inSpans(spans [][2]uint32, at uint32) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}

// modulePath reports whether a callee is a path through modules (Rust's and C++'s a::f,
// never a value's field or a type's function): every segment before the last lower case.
func modulePath(raw string) bool {
	if i := strings.IndexByte(raw, '<'); i >= 0 {
		raw = raw[:i] // generic arguments
	}
	segs := strings.Split(raw, "::")
	if len(segs) < 2 || strings.ContainsAny(raw, ".()[] \t\n") {
		return false
	}
	for _, s := range segs[:len(segs)-1] {
		switch {
		case s == "" || upper(s) || s == "super" || s == "crate" || s == "std" || s == "core" || s == "alloc":
			return false
		}
	}
	return segs[len(segs)-1] != "" && !upper(segs[len(segs)-1])
}

// createdThenCalled is the method a call calls on an object it creates right there
// (Foo(x).run(), new Foo().run(): Foo.run), or "".
func (x *extractor) createdThenCalled(c *treesit.Node, call Call) string {
	var object *treesit.Node
	method := ""
	if call.Callee != "" {
		callee := field(c, call.Callee)
		if callee == nil || callee.NamedChildCount() != 2 {
			return ""
		}
		// Swift's navigation suffix holds the dot: .add.
		object, method = callee.NamedChild(0), strings.TrimPrefix(x.t.Text(callee.NamedChild(1)), ".")
	} else {
		object, method = field(c, call.Receiver), x.t.Text(field(c, call.Method))
	}
	if object == nil || method == "" || strings.ContainsAny(method, "()[]{} \t\n\"'.:") {
		return ""
	}
	if _, ok := x.l.Calls[object.Type()]; !ok {
		return ""
	}
	if typ := x.createdType(object); typ != "" {
		return typ + "." + method
	}
	return ""
}

// signatureTypes are the type names a declaration's header names (its parameters', its
// return's, a field's type), but its own name: what it depends on. Where the grammar has a
// node type for a type's name (type_identifier), every one in the header; else those in its
// type fields.
func (x *extractor) signatureTypes(n, body *treesit.Node, own string) []string {
	var out []string
	byNode := slices.Equal(x.l.typeNames(), []string{"type_identifier"})
	var collect func(c *treesit.Node, inType bool)
	collect = func(c *treesit.Node, inType bool) {
		if c == body {
			return
		}
		if (byNode || inType) && slices.Contains(x.l.typeNames(), c.Type()) {
			if name := x.t.Text(c); name != own && name != "Self" {
				out = append(out, name)
			}
		}
		x.t.ChildFields(c, func(k *treesit.Node, field string) {
			collect(k, inType || field == "type" || field == "returns" || field == "return_type")
		})
	}
	collect(n, false)
	return out
}

var dotSpace = regexp.MustCompile(`\s*\.\s*`)

// dotted writes a path or field access with dots: Arg::new is Arg.new, self.parser.x stays.
func dotted(s string) string {
	s = strings.ReplaceAll(s, "::", ".")
	if strings.ContainsAny(s, "\n\t ") {
		// A chain written over lines (self.args\n    .values): the spaces around its dots.
		s = dotSpace.ReplaceAllString(s, ".")
	}
	if i := strings.IndexByte(s, '<'); i >= 0 && !strings.Contains(s[i:], ".") {
		s = s[:i] // a turbofish or generic arguments after the name
	}
	return strings.TrimSpace(s)
}

// upper reports whether a name starts with a capital: a type's, by the languages' convention.
func upper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}

// Fragment assembles the fragment of the file at rel from its facts: a file node, a node per
// declaration, and the calls among the file's own declarations.
func Fragment(l *Language, rel string, f *code.Facts, layout *Layout) *graph.Fragment {
	a := ids{y: layout, l: l}
	var cl code.Layout
	if layout != nil && l.Reexports != nil {
		cl = a
	}
	scope, imported := code.NewScope(l.Prefix+rel, f, cl, func(spec string) []string { return a.module(rel, f, spec) })
	scope.Nested = l.Nested
	return code.FileFragment(code.File{Path: rel, Prefix: l.Prefix, Language: l.Name, Facts: f, Scope: scope, Imported: imported, IsTest: l.TestFile(rel)})
}
