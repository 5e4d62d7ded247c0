package lang

import (
	"context"
	"encoding/json"
	"path"
	"slices"
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
	// manifests are the project's files a language reads for its layout (composer.json),
	// by base name; psr4 the namespace prefixes composer.json files map to folders, read
	// once.
	manifests map[string][]string
	psr4      []psr4Root
	psr4Once  sync.Once
	// files are the project's paths of the languages whose names resolve by which files
	// exist (Candidates, FileNames: Python's, Swift's); packages its Python packages and
	// swiftTypes its Swift files by type, each read once.
	files      map[string]bool
	packages   func() *pyPackages
	swiftTypes func() map[string][]string
}

// NewLayout returns a layout that reads a re-exporting file's bytes with read (nil when it
// cannot be read) when its imports are first needed, and the manifests among files (the
// project's paths) a language's layout reads (Language.Manifests).
func NewLayout(files []string, read func(rel string) []byte) *Layout {
	y := &Layout{read: read, facts: map[string]*code.Facts{}, manifests: map[string][]string{}, files: map[string]bool{}}
	y.packages = sync.OnceValue(func() *pyPackages { return newPyPackages(y.files) })
	y.swiftTypes = sync.OnceValue(func() map[string][]string { return swiftFilesByType(y.files) })
	for _, f := range files {
		if l := ByExtension(f); l != nil && (l.Candidates || l.FileNames) {
			y.files[f] = true
		}
		if isManifest(path.Base(f)) {
			y.manifests[path.Base(f)] = append(y.manifests[path.Base(f)], f)
		}
	}
	return y
}

// isManifest reports whether a file name is one a language's layout reads.
func isManifest(name string) bool {
	for _, l := range registered().all {
		if slices.Contains(l.Manifests, name) {
			return true
		}
	}
	return false
}

// Affects reports whether a change to the file at rel may change a Layout: a file whose
// imports re-export names, or a manifest a language's layout reads.
func Affects(rel string) bool {
	if isManifest(path.Base(rel)) {
		return true
	}
	l := ByExtension(rel)
	return l != nil && l.Reexports != nil && l.Reexports(rel)
}

// Removes reports whether removing the file at rel may change how others resolve: a module
// chosen among its candidates because it existed (Candidates).
func Removes(rel string) bool {
	l := ByExtension(rel)
	return l != nil && l.Candidates
}

// ByName reports whether other files' names resolve by the name of the file at rel, so that
// adding or removing it changes them (Language.FileNames).
func ByName(rel string) bool {
	l := ByExtension(rel)
	return l != nil && l.FileNames
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

// Submodules are the files a package's file offers name from as a submodule.
func (a ids) Submodules(file, name string) []string {
	rel, ok := strings.CutPrefix(file, a.l.Prefix)
	if !ok || a.l.Submodules == nil {
		return nil
	}
	out := a.l.Submodules(rel, name)
	for i, f := range out {
		out[i] = a.l.Prefix + f
	}
	return out
}

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
	var files []string
	switch {
	case a.l.ModuleIn != nil && a.y != nil:
		files = a.l.ModuleIn(a.y, rel, f, spec)
	case a.l.Module != nil:
		files = a.l.Module(rel, f, spec)
	}
	for i, file := range files {
		files[i] = a.l.Prefix + file
	}
	return files
}

// psr4Root is one PSR-4 autoload entry of a composer.json: classes of the namespace prefix
// (with dots: Shop.Util.) live in the folders (project paths).
type psr4Root struct {
	prefix  string
	folders []string
}

// psr4Roots returns the PSR-4 roots the project's composer.json files declare (autoload and
// autoload-dev), longest prefix first; a file that cannot be read or parsed declares none.
func (y *Layout) psr4Roots() []psr4Root {
	y.psr4Once.Do(func() {
		for _, manifest := range y.manifests["composer.json"] {
			var c struct {
				Autoload struct {
					PSR4 map[string]json.RawMessage `json:"psr-4"`
				} `json:"autoload"`
				AutoloadDev struct {
					PSR4 map[string]json.RawMessage `json:"psr-4"`
				} `json:"autoload-dev"`
			}
			if json.Unmarshal(y.read(manifest), &c) != nil {
				continue
			}
			dir := path.Dir(manifest)
			for _, m := range []map[string]json.RawMessage{c.Autoload.PSR4, c.AutoloadDev.PSR4} {
				for prefix, raw := range m {
					var folders []string
					var one string
					if json.Unmarshal(raw, &one) == nil {
						folders = []string{one}
					} else if json.Unmarshal(raw, &folders) != nil {
						continue
					}
					root := psr4Root{prefix: strings.ReplaceAll(prefix, `\`, ".")}
					for _, f := range folders {
						if p := path.Join(dir, f); p != ".." && !strings.HasPrefix(p, "../") {
							root.folders = append(root.folders, p)
						}
					}
					y.psr4 = append(y.psr4, root)
				}
			}
		}
		slices.SortStableFunc(y.psr4, func(a, b psr4Root) int { return len(b.prefix) - len(a.prefix) })
	})
	return y.psr4
}
