package python

import (
	"context"
	"github.com/docforge/docforge/source/treesit"
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
)

// Layout is what resolving names across a project's Python files needs: where each top-level
// package lives (the directories on which it is importable), and what every package's
// __init__.py imports, which the package offers again. It depends on the paths of the __init__.py
// files and their content, nothing else, so a sync rebuilds everything when one of them changes
// (Affects).
type Layout struct {
	roots map[string][]string // top-level package name -> directories holding it
	pkgs  map[string]bool     // package directories
	files map[string]bool     // the project's Python files
	read  func(rel string) []byte
	// inits are the imports of the __init__.py files: a file's names resolve through the few
	// packages it imports, so an edit parses those, not every package.
	inits code.ImportMemo
}

// Affects reports whether a change to the file at rel may change a Layout.
func Affects(rel string) bool { return path.Base(rel) == "__init__.py" }

// NewLayout reads the layout of files, the project's Python files; read returns an
// __init__.py's bytes (nil when it cannot be read) when its imports are first needed.
func NewLayout(files []string, read func(rel string) []byte) *Layout {
	l := &Layout{roots: map[string][]string{}, pkgs: map[string]bool{}, files: map[string]bool{}, read: read}
	for _, f := range files {
		l.files[f] = true
		if path.Base(f) == "__init__.py" {
			l.pkgs[path.Dir(f)] = true
		}
	}
	for dir := range l.pkgs {
		if parent := path.Dir(dir); !l.pkgs[parent] || dir == "." {
			name := path.Base(dir)
			l.roots[name] = append(l.roots[name], parent)
		}
	}
	for _, rs := range l.roots {
		slices.Sort(rs)
	}
	return l
}

// initImports are the imports of the package's __init__.py at rel, parsed once.
func (l *Layout) initImports(rel string) []code.Import {
	if !l.pkgs[path.Dir(rel)] || path.Base(rel) != "__init__.py" {
		return nil
	}
	return l.inits.Get(rel, func() []code.Import {
		if src := l.read(rel); len(src) > 0 {
			if f, err := Extract(context.Background(), src, false, 0, treesit.Bounds{}); err == nil {
				return f.Imports
			}
		}
		return nil
	})
}

// Remember keeps the imports of a package's __init__.py the loader has parsed anyway.
func (l *Layout) Remember(rel string, f *code.Facts) {
	if path.Base(rel) == "__init__.py" {
		l.inits.Remember(rel, f.Imports)
	}
}

// Module returns the candidate files of the module spec (as an import writes it) imported by
// the file at rel: a relative module from rel's package, an absolute one from every directory
// its top-level package lives in, and a module beside rel (a script's own directory is on its
// path).
func (l *Layout) Module(rel, spec string) []string {
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
		for _, root := range l.roots[head] {
			dirs = append(dirs, path.Join(root, p))
		}
		if len(l.roots[head]) == 0 {
			dirs = append(dirs, path.Join(path.Dir(rel), p))
		}
	}
	// Python takes a package before a module of the same name; of the candidates the one
	// that exists is the module, and while none does every one is kept (the edge appears
	// with the file). A chosen file goes away only in a cold build (Removes).
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		out = append(out, d+"/__init__.py", d+".py")
	}
	for _, f := range out {
		if l.files[f] {
			return []string{f}
		}
	}
	return out
}

// Removes reports whether removing the file at rel may change how others resolve: a module
// chosen among its candidates because it existed.
func Removes(rel string) bool { return strings.HasSuffix(rel, ".py") }

// layoutIDs adapts a Layout to code.Layout, which speaks in node IDs.
type layoutIDs struct{ l *Layout }

func fileID(rel string) string { return graph.PythonPrefix + rel }

func relOf(id string) string { return strings.TrimPrefix(id, graph.PythonPrefix) }

func (a layoutIDs) Submodules(file, name string) []string {
	rel := relOf(file)
	if path.Base(rel) != "__init__.py" {
		return nil
	}
	d := path.Join(path.Dir(rel), name)
	return []string{fileID(d + ".py"), fileID(d + "/__init__.py")}
}

func (a layoutIDs) Reexports(file, name string) []code.Binding {
	rel := relOf(file)
	return code.Reexports(a.l.initImports(rel), name, func(spec string) []string { return a.module(rel, spec) })
}

func (a layoutIDs) module(rel, spec string) []string {
	files := a.l.Module(rel, spec)
	for i, f := range files {
		files[i] = fileID(f)
	}
	return files
}

// Fragment assembles the fragment of the Python file at rel from its facts.
func Fragment(rel string, f *code.Facts, l *Layout) *graph.Fragment {
	ids := layoutIDs{l}
	scope, imported := code.NewScope(fileID(rel), f, ids, func(spec string) []string { return ids.module(rel, spec) })
	return code.FileFragment(code.File{Path: rel, Prefix: graph.PythonPrefix, Language: Language, Facts: f, Scope: scope, Imported: imported, IsTest: IsTestFile(rel)})
}

// Language is the language of Python nodes.
const Language = "python"

// Kinds are the node kinds the Python adapter makes, in the code family: a module is its file.
func Kinds() []string {
	return []string{code.KindFile, code.KindClass, code.KindType, code.KindFunc, code.KindMethod, code.KindVar, code.KindConst}
}
