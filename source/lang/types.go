package lang

import (
	"slices"
	"strings"

	"github.com/docforge/docforge/source/treesit"
)

// The declared types of names, read from the syntax alone: a type's fields, a function's
// parameters and its locals bound with a type or a constructor call. A call through such a
// name (self.args.values(), parser.next()) is a call of the type's method (FlatMap.values);
// through any other value its type cannot be told, and it stays ambiguous.

// scope maps a name to the type it was declared with.
type scope map[string]string

// wrappers are the generic types a method call sees through (Rust's auto-deref).
var wrappers = []string{"Box", "Rc", "Arc"}

// declaredType is the type name a type expression declares for a value: the outermost
// named type, through references, mut, dyn and impl, and through Box, Rc and Arc; "" for
// an inferred type (var, auto, _) or none.
func declaredType(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := strings.TrimLeft(s, "&*?")
		for _, kw := range []string{"mut ", "dyn ", "impl ", "const ", "final ", "readonly ", "'"} {
			if kw == "'" && strings.HasPrefix(t, "'") { // a lifetime: &'a T
				if i := strings.IndexByte(t, ' '); i > 0 {
					t = t[i+1:]
				}
				continue
			}
			t = strings.TrimPrefix(t, kw)
		}
		t = strings.TrimSpace(t)
		if t == s {
			break
		}
		s = t
	}
	if i := strings.IndexByte(s, '<'); i > 0 && strings.HasSuffix(s, ">") {
		outer := typeName(s[:i])
		if slices.Contains(wrappers, outer) {
			return declaredType(s[i+1 : len(s)-1])
		}
	}
	name := typeName(strings.TrimSuffix(strings.TrimSuffix(s, "?"), "[]"))
	switch name {
	case "", "var", "auto", "_", "val", "let", "Self", "self":
		return ""
	}
	if !upper(name) && !strings.Contains(name, "_") {
		return "" // a primitive (int, str, i32): no methods of the project's
	}
	return name
}

// typeNode is the node holding a declaration's type: its type field, or the type of the
// declaration it wraps (C#'s variable_declaration, Kotlin's user_type).
func typeNode(n *treesit.Node) *treesit.Node {
	if t := n.ChildByFieldName("type"); t != nil {
		return t
	}
	for i := range int(n.NamedChildCount()) {
		c := n.NamedChild(i)
		switch c.Type() {
		case "user_type", "nullable_type":
			return c
		case "variable_declaration":
			if t := typeNode(c); t != nil {
				return t
			}
		}
	}
	return nil
}

// boundName is the name a declarator binds: its name or pattern field, or the identifier it
// holds (C's *p, Kotlin's variable_declaration).
func boundName(t *treesit.Tree, n *treesit.Node) string {
	for _, f := range []string{"name", "pattern", "declarator"} {
		if c := n.ChildByFieldName(f); c != nil {
			if c.NamedChildCount() == 0 {
				return t.Text(c)
			}
			return boundName(t, c)
		}
	}
	name := ""
	t.Walk(n, func(c, _ *treesit.Node) bool {
		switch c.Type() {
		case "identifier", "simple_identifier", "field_identifier", "variable_name":
			if name == "" {
				name = t.Text(c)
			}
		}
		return name == "" && (c == n || !strings.Contains(c.Type(), "type"))
	})
	return name
}

// createdType is the type a value expression creates: new T(...), T::new(...), T { .. },
// Kotlin's T(...); "" for any other value.
func (x *extractor) createdType(v *treesit.Node) string {
	if v == nil {
		return ""
	}
	t := x.t
	switch v.Type() {
	case "object_creation_expression", "new_expression":
		return declaredType(t.Text(typeNodeOr(v, "constructor")))
	case "struct_expression":
		return declaredType(t.Text(v.ChildByFieldName("name")))
	case "call":
		// Python's Foo(...), mod.Foo(...), Foo[T](...) (named by Language.Callee), Ruby's
		// Shop::Cart.new (Language.Constructor): a class by its capital, named as written.
		text := ""
		switch {
		case x.l.Callee != nil:
			text = x.l.Callee(t, v.ChildByFieldName("function"))
		case x.l.Constructor != "" && t.Text(v.ChildByFieldName("method")) == x.l.Constructor:
			text = dotted(t.Text(v.ChildByFieldName("receiver")))
		}
		if text != "" && upper(text[strings.LastIndexByte(text, '.')+1:]) {
			return text
		}
	case "call_expression":
		callee := v.ChildByFieldName("function")
		if callee == nil && v.NamedChildCount() > 0 {
			callee = v.NamedChild(0) // Kotlin's
		}
		text := dotted(t.Text(callee))
		if i := strings.LastIndexByte(text, '.'); i > 0 {
			// T::new, T::from_x, T::default: a constructor by Rust's convention.
			head, fn := text[:i], text[i+1:]
			if fn == "new" || strings.HasPrefix(fn, "new_") || strings.HasPrefix(fn, "from") || strings.HasPrefix(fn, "with_") || fn == "default" {
				return declaredType(head)
			}
			return ""
		}
		if upper(text) && !strings.Contains(text, "(") {
			return text // Kotlin's Cart()
		}
	}
	return ""
}

func typeNodeOr(n *treesit.Node, alt string) *treesit.Node {
	if t := n.ChildByFieldName("type"); t != nil {
		return t
	}
	return n.ChildByFieldName(alt)
}

// localTypes are the node types that declare a function's locals, in every grammar.
var localTypes = map[string]bool{"assignment": true, "let_declaration": true, "local_variable_declaration": true,
	"variable_declaration": true, "declaration": true, "property_declaration": true, "resource": true,
	"catch_formal_parameter": true, "catch_declaration": true}

// closureTypes are the node types of a function or class inside a function, whose locals
// are its own.
var closureTypes = map[string]bool{"closure_expression": true, "lambda_expression": true, "lambda_literal": true,
	"local_function_statement": true, "function_item": true, "class_declaration": true, "anonymous_function": true,
	"arrow_function": true}

// bindings reads the names a function binds with a known type: its parameters (in its
// header, before body) and, of locals (its body's nodes of localTypes outside closures, in
// order), those it declares with a type or a created value.
func (x *extractor) bindings(n, body *treesit.Node, locals []*treesit.Node) scope {
	s := scope{}
	bind := func(name, typ string) {
		if name != "" && typ != "" {
			s[name] = typ
		}
	}
	x.t.Walk(n, func(c, _ *treesit.Node) bool {
		if c == body {
			return false
		}
		if strings.Contains(c.Type(), "parameter") && !strings.HasSuffix(c.Type(), "parameters") && !strings.HasSuffix(c.Type(), "_list") {
			if tn := typeNode(c); tn != nil {
				bind(boundName(x.t, c), x.declaredType(tn))
			}
			return false
		}
		return true
	})
	for _, c := range locals {
		switch c.Type() {
		case "assignment": // Python's x: T = ..., x = T(...); Ruby's x = T.new
			if left := c.ChildByFieldName("left"); left != nil && left.Type() == "identifier" {
				bind(x.t.Text(left), x.localType(c.ChildByFieldName("type"), c.ChildByFieldName("right")))
			}
		case "let_declaration": // Rust
			bind(x.t.Text(c.ChildByFieldName("pattern")), x.localType(c.ChildByFieldName("type"), c.ChildByFieldName("value")))
		case "resource", "catch_declaration":
			// Java's try (JsonParser p = ...), C#'s catch (IOException e).
			bind(x.t.Text(c.ChildByFieldName("name")), x.localType(c.ChildByFieldName("type"), c.ChildByFieldName("value")))
		case "catch_formal_parameter":
			// Java's catch (StreamReadException e); a union (A | B) has no one type.
			if ct := field(c, "catch_type"); ct != nil && ct.NamedChildCount() == 1 {
				bind(x.t.Text(c.ChildByFieldName("name")), declaredType(x.t.Text(ct)))
			}
		case "local_variable_declaration", "variable_declaration", "declaration", "property_declaration":
			// Java's, C#'s, C++'s and Kotlin's: one type, declarators with their values.
			declared := ""
			if tn := typeNode(c); tn != nil {
				declared = x.declaredType(tn)
			}
			x.t.Walk(c, func(d, _ *treesit.Node) bool {
				if d == c {
					return true // its declarators below (C#'s variable_declaration holds them)
				}
				switch d.Type() {
				case "variable_declarator", "init_declarator", "variable_declaration":
					typ := declared
					if typ == "" {
						value := d.ChildByFieldName("value")
						if value == nil && d.NamedChildCount() > 1 {
							value = d.NamedChild(int(d.NamedChildCount()) - 1)
						}
						typ = x.createdType(value)
					}
					bind(boundName(x.t, d), typ)
				}
				return false
			})
			if c.Type() == "property_declaration" && declared == "" {
				// Kotlin's val x = Cart(): the value follows the variable_declaration.
				bind(boundName(x.t, c), x.createdType(treesit.LastNamed(c)))
			}
		}
	}
	return s
}

// localType is the type a local's declaration gives it: its type node's (tn), else the type
// its value creates.
func (x *extractor) localType(tn, value *treesit.Node) string {
	if tn != nil {
		if typ := x.declaredType(tn); typ != "" {
			return typ
		}
	}
	return x.createdType(value)
}

// declaredType is the type a type node declares for a value, by the language's rule.
func (x *extractor) declaredType(tn *treesit.Node) string {
	if x.l.DeclaredType != nil {
		return x.l.DeclaredType(x.t, tn)
	}
	return declaredType(x.t.Text(tn))
}

// fieldType records the declared type of a type's field, for calls through it.
func (x *extractor) fieldType(owner string, n *treesit.Node, name string) {
	tn := typeNode(n)
	if tn == nil {
		return
	}
	if typ := x.declaredType(tn); typ != "" {
		if x.fields == nil {
			x.fields = map[string]scope{}
		}
		if x.fields[owner] == nil {
			x.fields[owner] = scope{}
		}
		x.fields[owner][name] = typ
	}
}

// fieldsOf are the field types of the type named typ: by its qualified name, or by its last
// part (a field's type names a nested type by its own name).
func (x *extractor) fieldsOf(typ string) scope {
	if f, ok := x.fields[typ]; ok {
		return f
	}
	for owner, f := range x.fields {
		if strings.HasSuffix(owner, "."+typ) {
			return f
		}
	}
	return nil
}

// resolveValueCalls writes each call through a value (self.args.values, parser.next) whose
// receiver's type the declarations tell as a call of that type's method (FlatMap.values);
// the others are counted ambiguous.
func (x *extractor) resolveValueCalls() {
	for i := range x.f.Decls {
		pending := x.valueCalls[i]
		if len(pending) == 0 {
			continue
		}
		d := &x.f.Decls[i]
		owner := d.Parent
		for _, name := range pending {
			parts := strings.Split(name, ".")
			typ, rest := "", parts[:len(parts)-1]
			switch head := rest[0]; {
			case head == "self" || head == "this" || head == "$this":
				typ, rest = owner, rest[1:]
			case x.scopes[i][head] != "":
				typ, rest = x.scopes[i][head], rest[1:]
			case x.l.ImplicitThis && x.fieldsOf(owner)[head] != "":
				typ = owner // a field named bare (Java's parser.next() for this.parser)
			}
			for _, f := range rest {
				if typ == "" {
					break
				}
				typ = x.fieldsOf(typ)[f]
			}
			if typ == "" {
				head := parts[0]
				switch bound := x.scopes[i][head]; {
				case !x.l.ModuleCalls || x.l.self(head):
					d.Ambiguous++ // a value whose type is not known
				case bound != "":
					// Through a typed local, as far as the file's scope resolves it (a
					// property: ctx.session.send is Context.session).
					d.Calls = append(d.Calls, bound+strings.TrimPrefix(name, head))
				default:
					// A name the function does not bind (a module, an import): as written,
					// for the file's scope to resolve.
					d.Calls = append(d.Calls, name)
				}
				continue
			}
			d.Calls = append(d.Calls, typ+"."+parts[len(parts)-1])
		}
		slices.Sort(d.Calls)
		d.Calls = slices.Compact(d.Calls)
	}
}
