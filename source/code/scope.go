package code

import (
	"slices"
	"strings"
	"sync"
)

// Binding is what a name bound in a file may stand for: the file nodes of the module it comes
// from (candidates: the files the language would try) and the qualified name inside that
// module; an empty Qual is the module itself.
type Binding struct {
	Files []string
	Qual  string
}

// Layout answers what resolving one file's names needs to know of the rest of the project.
type Layout interface {
	// Submodules are the candidate file nodes of the submodule name of the module in file, or
	// none when the language has no such thing.
	Submodules(file, name string) []string
	// Reexports are the bindings under which file makes name available although it declares
	// it elsewhere: a re-export, or an import in a Python package's __init__.py.
	Reexports(file, name string) []Binding
}

// Scope is the names of one file: what it declares and what it imports.
type Scope struct {
	File  string               // the file node ID
	Decls map[string]bool      // qualified names declared in the file
	Names map[string][]Binding // names imports bind
	// Stars are the modules whose every name the file imports (from m import *): a name
	// bound nowhere else may be one of theirs.
	Stars  []Binding
	Layout Layout
	// Nested says a capitalized name (a constant's) resolves through the namespaces enclosing
	// its use, innermost first (Ruby's Utils inside module Rack is Rack::Utils, in this file
	// or a loaded one).
	Nested bool
}

// Bound reports whether a name used in the file is declared or imported there, or is the
// enclosing class's self.
func (s *Scope) Bound(head string) bool {
	return s.Decls[head] || len(s.Names[head]) > 0 || head == "self" || head == "this" || head == "cls" || len(s.Stars) > 0
}

// maxCandidates bounds the candidate IDs of one name: a long chain of star re-exports
// must not make every name a hundred relations.
const maxCandidates = 48

// maxReexportDepth bounds how many re-exports are followed from one binding.
const maxReexportDepth = 4

// Targets returns the candidate node IDs of a dotted name used in the file. class is the
// qualified name of the enclosing class, which "self", "cls" and "this" stand for.
func (s *Scope) Targets(name, class string) []string {
	if s.Nested && class != "" {
		if local := s.nestedLocal(name, class); local != nil {
			return local
		}
	}
	parts := strings.Split(name, ".")
	head, rest := parts[0], parts[1:]
	var out []string
	switch {
	case head == "self" || head == "this" || head == "cls":
		if class != "" && len(rest) > 0 {
			out = append(out, s.File+"/"+class+"."+rest[0])
		}
	case s.Decls[head]:
		q := head
		if len(rest) > 0 && s.Decls[head+"."+rest[0]] {
			q += "." + rest[0]
		}
		out = append(out, s.File+"/"+q)
		// A module the file declares may be a file of its own (Rust's mod name;).
		out = s.submodules(out, s.File, head, rest)
	case len(s.Names[head]) > 0:
		// What the imports name directly first, then what they name through re-exports: a
		// bound on the candidates must never cut off a direct one.
		for _, follow := range []bool{false, true} {
			for _, b := range s.Names[head] {
				out = s.expand(out, b, rest, 0, follow)
			}
		}
	default:
		for _, follow := range []bool{false, true} {
			for _, b := range s.Stars {
				out = s.expand(out, Binding{Files: b.Files, Qual: head}, rest, 0, follow)
			}
		}
		if s.Nested {
			out = s.nestedStars(out, name, class)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nestedLocal is what name means in the innermost namespace enclosing class that the file
// declares it in, or nil.
func (s *Scope) nestedLocal(name, class string) []string {
	head, _, _ := strings.Cut(name, ".")
	if !upperFirst(head) {
		return nil
	}
	for ns := class; ns != ""; ns = enclosing(ns) {
		if s.Decls[ns+"."+head] {
			return s.Targets(ns+"."+name, "")
		}
	}
	return nil
}

// nestedStars appends what name, bound nowhere in the file, may mean in the namespaces
// enclosing class inside the files the file loads whole.
func (s *Scope) nestedStars(out []string, name, class string) []string {
	parts := strings.Split(name, ".")
	if !upperFirst(parts[0]) {
		return out
	}
	for ns := class; ns != ""; ns = enclosing(ns) {
		for _, b := range s.Stars {
			out = s.expand(out, Binding{Files: b.Files, Qual: ns + "." + parts[0]}, parts[1:], 0, false)
		}
	}
	return out
}

// enclosing is the namespace around ns ("" at the top).
func enclosing(ns string) string {
	if i := strings.LastIndexByte(ns, '.'); i >= 0 {
		return ns[:i]
	}
	return ""
}

// expand appends the IDs name rest means inside binding b: with follow, only those it means
// through re-exports (at most maxCandidates in all), without, only the direct ones.
func (s *Scope) expand(out []string, b Binding, rest []string, depth int, follow bool) []string {
	if follow && (len(out) >= maxCandidates || depth > maxReexportDepth) {
		return out
	}
	if b.Qual == "" {
		if len(rest) == 0 {
			if !follow {
				out = append(out, b.Files...)
			}
			return out
		}
		out = s.expand(out, Binding{Files: b.Files, Qual: rest[0]}, rest[1:], depth, follow)
		if s.Layout != nil {
			for _, f := range b.Files {
				if subs := s.Layout.Submodules(f, rest[0]); len(subs) > 0 {
					out = s.expand(out, Binding{Files: subs}, rest[1:], depth, follow)
				}
			}
		}
		return out
	}
	if !follow {
		q := b.Qual
		for i := 0; i < len(rest) && (i == 0 && !strings.Contains(q, ".") || upperLast(q)); i++ {
			// Class.member, through nested types and namespaces while each step names a
			// type (Shop.Util.Helper.Run, Ruby's Shop::Cart.build); deeper attributes are
			// a value's, not a declaration's.
			q += "." + rest[i]
		}
		for _, f := range b.Files {
			out = append(out, f+"/"+q)
			// The name imported from a module may be a submodule of it (Rust's use
			// crate::util; util::escape(), Python's from pkg import sub; sub.run()).
			out = s.submodules(out, f, b.Qual, rest)
		}
		return out
	}
	if s.Layout == nil {
		return out
	}
	head, _, _ := strings.Cut(b.Qual, ".")
	for _, f := range b.Files {
		for _, rb := range s.Layout.Reexports(f, head) {
			r := rest
			if tail, ok := strings.CutPrefix(b.Qual, head+"."); ok {
				r = append([]string{tail}, rest...)
			}
			// What a re-export names, directly and through further re-exports.
			out = s.expand(out, rb, r, depth+1, false)
			out = s.expand(out, rb, r, depth+1, true)
		}
	}
	return out
}

// submodules appends what rest means in the submodule name of the module in file, where the
// language has submodules and name is one segment.
func (s *Scope) submodules(out []string, file, name string, rest []string) []string {
	if len(rest) == 0 || s.Layout == nil || strings.Contains(name, ".") {
		return out
	}
	if subs := s.Layout.Submodules(file, name); len(subs) > 0 {
		out = s.expand(out, Binding{Files: subs}, rest, 0, false)
	}
	return out
}

// Reexports are the bindings under which a module offers name through its imports (an
// __init__.py's, an index file's export ... from): an import of that name, or of every name
// (*). module resolves an import's module to its candidate file nodes.
func Reexports(imports []Import, name string, module func(spec string) []string) []Binding {
	var out []Binding
	for _, imp := range imports {
		if imp.Local != name && imp.Name != "*" {
			continue
		}
		files := module(imp.Module)
		switch imp.Name {
		case "":
			out = append(out, Binding{Files: files})
		case "*":
			out = append(out, Binding{Files: files, Qual: name})
		default:
			out = append(out, Binding{Files: files, Qual: imp.Name})
		}
	}
	return out
}

// ImportMemo keeps what files import, each file parsed for it once however many ask: the
// loader parsing the file remembers its imports, and a layout asking first parses it. It is
// safe for concurrent use, and holds no lock while a file is parsed.
type ImportMemo struct {
	mu sync.Mutex
	m  map[string][]Import
}

// Get returns the imports of the file at rel, from memory or from load.
func (c *ImportMemo) Get(rel string, load func() []Import) []Import {
	c.mu.Lock()
	imps, ok := c.m[rel]
	c.mu.Unlock()
	if ok {
		return imps
	}
	imps = load()
	c.Remember(rel, imps)
	return imps
}

// Remember records the imports of the file at rel.
func (c *ImportMemo) Remember(rel string, imps []Import) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string][]Import{}
	}
	c.m[rel] = imps
	c.mu.Unlock()
}

// upperLast reports whether a dotted name's last part starts upper-case: a type named in its
// namespace (Shop.Util.Helper), not a member (Cart.add).
func upperLast(q string) bool {
	last := q[strings.LastIndexByte(q, '.')+1:]
	return last != "" && last[0] >= 'A' && last[0] <= 'Z'
}

// upperFirst reports whether a name starts with a capital: a constant's, a type's.
func upperFirst(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
