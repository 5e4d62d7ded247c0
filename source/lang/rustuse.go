package lang

import (
	"path"
	"strings"
	"unicode"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// rustImports reads a Rust file's use declarations: each name a use binds, with the path it
// names (crate::builder::Arg, super::util, clap_lex::RawArgs), groups and aliases expanded;
// a glob (use super::*) binds nothing here.
func rustImports(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	t.Walk(root, func(c, _ *treesit.Node) bool {
		if c.Type() != "use_declaration" {
			return true
		}
		text := strings.TrimSpace(t.Text(c))
		text = strings.TrimSuffix(text, ";")
		if i := strings.Index(text, "use "); i >= 0 {
			text = text[i+4:]
		}
		for _, u := range expandUse(strings.Join(strings.Fields(text), " ")) {
			segs := strings.Split(u.path, "::")
			last := segs[len(segs)-1]
			if last == "*" || last == "" {
				continue
			}
			local := u.alias
			if local == "" {
				local = last
			}
			if last == "self" {
				// use a::b::{self}: the module b, bound under its name.
				if u.alias == "" {
					local = segs[len(segs)-2]
				}
				f.Imports = append(f.Imports, code.Import{Module: u.path, Local: local, Line: treesit.Line(c)})
				continue
			}
			f.Imports = append(f.Imports, code.Import{Module: u.path, Local: local, Name: last, Line: treesit.Line(c)})
		}
		return false
	})
}

// use is one path a use declaration names, and the name it is bound under when renamed.
type use struct{ path, alias string }

// expandUse expands a use tree: a::{b, c::{d as e}} is a::b and a::c::d (as e).
func expandUse(tree string) []use {
	tree = strings.TrimSpace(tree)
	open := strings.IndexByte(tree, '{')
	if open < 0 {
		p, alias, _ := strings.Cut(tree, " as ")
		return []use{{strings.ReplaceAll(strings.TrimSpace(p), " ", ""), strings.TrimSpace(alias)}}
	}
	prefix := strings.TrimSpace(tree[:open])
	inner := tree[open+1:]
	inner = inner[:max(strings.LastIndexByte(inner, '}'), 0)]
	var out []use
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) {
			switch inner[i] {
			case '{':
				depth++
				continue
			case '}':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		part := strings.TrimSpace(inner[start:i])
		start = i + 1
		if part == "" {
			continue
		}
		for _, u := range expandUse(part) {
			u.path = prefix + u.path
			out = append(out, u)
		}
	}
	return out
}

// rustModule is the files a use path names from the file at rel: the module's file
// (a/b.rs or a/b/mod.rs) under its crate's src (crate::), the file's parent module
// (super::), its own (self::), or a workspace crate's (name::, its folder name or under
// crates/); for an item (the path's last segment, named by the import), the file the item's
// name gives by convention too (Arg in builder/arg.rs).
func rustModule(rel string, _ *code.Facts, module string) []string {
	// A path names an item (Arg in crate::builder::Arg), or with self a module; which names a
	// module otherwise cannot be told from the path, and the item's files cover both.
	segs := strings.Split(module, "::")
	item := ""
	if n := len(segs); segs[n-1] == "self" {
		segs = segs[:n-1]
	} else if n > 1 {
		item, segs = segs[n-1], segs[:n-1]
	}
	var bases []string
	switch segs[0] {
	case "crate":
		bases = []string{crateSrc(rel)}
	case "self":
		bases = []string{selfDir(rel)}
	case "super":
		bases = []string{path.Dir(selfDir(rel))}
		for len(segs) > 1 && segs[1] == "super" {
			bases[0] = path.Dir(bases[0])
			segs = segs[1:]
		}
	case "std", "core", "alloc":
		return nil
	default:
		name := segs[0]
		for _, n := range []string{name, strings.ReplaceAll(name, "_", "-")} {
			bases = append(bases, path.Join(n, "src"), path.Join("crates", n, "src"))
		}
		segs = append([]string{"lib"}, segs[1:]...)
		if len(segs) == 1 {
			var out []string
			for _, b := range bases {
				out = append(out, path.Join(b, "lib.rs"))
				if item != "" {
					out = append(out, path.Join(b, snake(item)+".rs"))
				}
			}
			return out
		}
		segs = segs[1:]
		var out []string
		for _, b := range bases {
			out = append(out, moduleFiles(b, segs, item)...)
		}
		return out
	}
	var out []string
	for _, b := range bases {
		out = append(out, moduleFiles(b, segs[1:], item)...)
	}
	return out
}

// moduleFiles are the files of module path segs under base, and of item's own file.
func moduleFiles(base string, segs []string, item string) []string {
	dir := path.Join(append([]string{base}, segs...)...)
	var out []string
	if len(segs) == 0 {
		out = append(out, path.Join(base, "lib.rs"), path.Join(base, "main.rs"), path.Join(base, "mod.rs"))
	} else {
		out = append(out, dir+".rs", path.Join(dir, "mod.rs"))
	}
	if item != "" {
		out = append(out, path.Join(dir, snake(item)+".rs"))
		if !upper(item) {
			out = append(out, path.Join(dir, item, "mod.rs")) // the item may be a module
		}
	}
	return out
}

// rustSubmodules are the files of the module name declared in the file at rel (mod name;):
// beside a crate root (lib.rs, main.rs, a test, example or bench crate, a binary) or a mod.rs,
// else in the folder named after the file. A capitalized name is a type's, never a module's
// (modules are snake case): none.
func rustSubmodules(rel, name string) []string {
	if name == "" || upper(name) {
		return nil
	}
	dir := selfDir(rel)
	switch path.Base(path.Dir(rel)) {
	case "tests", "examples", "benches", "bin":
		dir = path.Dir(rel)
	}
	return []string{path.Join(dir, name+".rs"), path.Join(dir, name, "mod.rs")}
}

// crateSrc is the root folder of the crate holding rel: the part of its path up to src/, or
// a test's, example's or bench's crate (tests/testsuite/ of tests/testsuite/main.rs, or tests/
// of a file right in it).
func crateSrc(rel string) string {
	if i := strings.LastIndex("/"+rel, "/src/"); i >= 0 {
		return path.Join(rel[:i], "src")
	}
	segs := strings.Split(rel, "/")
	for i, s := range segs[:len(segs)-1] {
		switch s {
		case "tests", "examples", "benches":
			if i+2 < len(segs) {
				return path.Join(segs[:i+2]...)
			}
			return path.Join(segs[:i+1]...)
		}
	}
	return "src"
}

// selfDir is the folder of the module the file at rel is: its own folder for lib.rs, main.rs
// and mod.rs, else a folder named after it.
func selfDir(rel string) string {
	switch path.Base(rel) {
	case "lib.rs", "main.rs", "mod.rs":
		return path.Dir(rel)
	}
	return strings.TrimSuffix(rel, ".rs")
}

// snake is a type's name as its module's file is named: ArgGroup is arg_group.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
