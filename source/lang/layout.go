package lang

import (
	"context"
	"strings"
	"sync"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Layout is what resolving names across the table-driven languages' files needs beyond one
// file: what the files that re-export names (Rust's mod.rs, lib.rs and main.rs: Reexports)
// import, which they offer again. It depends on those files' content alone, so a sync
// rebuilds everything when one changes (Affects). It is safe for concurrent use.
type Layout struct {
	read func(rel string) []byte
	mu   sync.Mutex
	// facts are the re-exporting files' imports (and package), each read once: parsed by
	// the loader anyway (Remember), or here when first asked.
	facts map[string]*code.Facts
}

// NewLayout returns a layout that reads a re-exporting file's bytes with read (nil when it
// cannot be read) when its imports are first needed.
func NewLayout(read func(rel string) []byte) *Layout {
	return &Layout{read: read, facts: map[string]*code.Facts{}}
}

// Affects reports whether a change to the file at rel may change a Layout: a file whose
// imports re-export names.
func Affects(rel string) bool {
	l := ByExtension(rel)
	return l != nil && l.Reexports != nil && l.Reexports(rel)
}

// Remember keeps the imports of a re-exporting file the loader has parsed anyway.
func (y *Layout) Remember(l *Language, rel string, f *code.Facts) {
	if y == nil || l.Reexports == nil || !l.Reexports(rel) {
		return
	}
	y.mu.Lock()
	y.facts[rel] = &code.Facts{Imports: f.Imports, Package: f.Package}
	y.mu.Unlock()
}

// factsOf are the imports of the re-exporting file at rel, nil for any other file.
func (y *Layout) factsOf(l *Language, rel string) *code.Facts {
	if l.Reexports == nil || !l.Reexports(rel) {
		return nil
	}
	y.mu.Lock()
	f, ok := y.facts[rel]
	y.mu.Unlock()
	if ok {
		return f
	}
	f = &code.Facts{}
	if src := y.read(rel); len(src) > 0 {
		if all, err := Extract(context.Background(), l, src, false, 0, treesit.Bounds{}); err == nil {
			f = &code.Facts{Imports: all.Imports, Package: all.Package}
		}
	}
	y.Remember(l, rel, f)
	return f
}

// ids adapts a Layout to code.Layout, which speaks in node IDs, for one language.
type ids struct {
	y *Layout
	l *Language
}

func (a ids) Submodules(string, string) []string { return nil }

// Reexports are the bindings under which the file offers name through its imports.
func (a ids) Reexports(file, name string) []code.Binding {
	rel, ok := strings.CutPrefix(file, a.l.Prefix)
	if !ok || a.y == nil {
		return nil
	}
	f := a.y.factsOf(a.l, rel)
	if f == nil {
		return nil
	}
	return code.Reexports(f.Imports, name, func(spec string) []string { return a.module(rel, f, spec) })
}

func (a ids) module(rel string, f *code.Facts, spec string) []string {
	if a.l.Module == nil {
		return nil
	}
	files := a.l.Module(rel, f, spec)
	for i, file := range files {
		files[i] = a.l.Prefix + file
	}
	return files
}
