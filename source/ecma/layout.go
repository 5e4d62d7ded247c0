package ecma

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"github.com/docforge/docforge/source/treesit"
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
)

// Language names the language of a file's nodes.
func Language(rel string) string {
	switch path.Ext(rel) {
	case ".ts", ".tsx", ".mts", ".cts":
		return "typescript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	}
	return ""
}

func isJS(rel string) bool {
	switch path.Ext(rel) {
	case ".js", ".jsx", ".mjs", ".cjs":
		return true
	}
	return false
}

// prefix is the ID prefix of a TypeScript or JavaScript file.
func prefix(rel string) string {
	if isJS(rel) {
		return graph.JavaScriptPrefix
	}
	return graph.TypeScriptPrefix
}

func fileID(rel string) string { return prefix(rel) + rel }

func relOf(id string) string {
	_, rel, _ := strings.Cut(id, ":")
	return rel
}

// IsTestFile reports whether a file is a test file by its runner's conventions
// (code.IsScriptTest).
func IsTestFile(rel string) bool { return code.IsScriptTest(rel) }

// Layout is what resolving imports across a project's TypeScript and JavaScript files needs:
// the workspace packages (package.json name, folder and entry points) and what each index
// file exports again. It depends on package.json files and index files alone (Affects).
type Layout struct {
	packages map[string]pkg      // package name -> its folder and entries
	names    []string            // package names, longest first
	scripts  map[string]bool     // the project's script files, where a package's entry is looked for
	configs  map[string]tsconfig // folder -> the tsconfig.json or jsconfig.json in it
	read     func(rel string) []byte
	// exports are what the index files export again: a file's names resolve through the
	// few it imports, so an edit parses those, not every index file.
	exports code.ImportMemo
}

// tsconfig is what import resolution reads of a tsconfig.json: the folder its paths are
// relative to, and the path patterns ("@app/*") with their replacements ("src/app/*").
type tsconfig struct {
	base  string
	paths map[string][]string
}

type pkg struct {
	dir     string
	entries map[string][]string // subpath ("." or "./x") -> files as written, relative to dir
}

// Removes reports whether removing the file at rel may change how others resolve: a module
// chosen among its candidates because it existed.
func Removes(rel string) bool { return Language(rel) != "" }

// Affects reports whether a change to the file at rel may change a Layout: a package.json, a
// tsconfig.json or jsconfig.json, or an index file (a package's entry is looked for among the files, and is almost always
// one).
func Affects(rel string) bool {
	base := path.Base(rel)
	return base == "package.json" || base == "tsconfig.json" || base == "jsconfig.json" || strings.HasPrefix(base, "index.") && Language(rel) != ""
}

// NewLayout reads the layout: manifests are the project's package.json, tsconfig.json and
// jsconfig.json files, scripts its
// TypeScript and JavaScript files; read returns a file's bytes (nil when it cannot be read).
// An index file is read for what it exports again when that is first needed.
func NewLayout(manifests, scripts []string, read func(rel string) []byte) *Layout {
	l := &Layout{packages: map[string]pkg{}, scripts: map[string]bool{}, configs: map[string]tsconfig{}, read: read}
	for _, f := range scripts {
		l.scripts[f] = true
	}
	for _, m := range manifests {
		if base := path.Base(m); base == "tsconfig.json" || base == "jsconfig.json" {
			l.readConfig(m, read(m))
			continue
		}
		var manifest struct {
			Name    string          `json:"name"`
			Main    string          `json:"main"`
			Module  string          `json:"module"`
			Types   string          `json:"types"`
			Exports json.RawMessage `json:"exports"`
		}
		if json.Unmarshal(read(m), &manifest) != nil || manifest.Name == "" {
			continue
		}
		p := pkg{dir: path.Dir(m), entries: map[string][]string{}}
		for _, e := range []string{manifest.Types, manifest.Module, manifest.Main} {
			if e != "" {
				p.entries["."] = append(p.entries["."], e)
			}
		}
		addExports(p.entries, manifest.Exports)
		if _, dup := l.packages[manifest.Name]; !dup {
			l.packages[manifest.Name] = p
			l.names = append(l.names, manifest.Name)
		}
	}
	slices.SortFunc(l.names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return l
}

// reexports are the re-exports (export ... from) of the index file at rel, parsed once.
func (l *Layout) reexports(rel string) []code.Import {
	if !l.scripts[rel] || !Affects(rel) {
		return nil
	}
	return l.exports.Get(rel, func() []code.Import {
		if src := l.read(rel); len(src) > 0 {
			if f, err := Extract(context.Background(), rel, src, false, 0, treesit.Bounds{}); err == nil {
				return exportsOf(f)
			}
		}
		return nil
	})
}

// Remember keeps the re-exports of an index file the loader has parsed anyway.
func (l *Layout) Remember(rel string, f *code.Facts) {
	if Affects(rel) {
		l.exports.Remember(rel, exportsOf(f))
	}
}

// exportsOf are a file's imports that export again.
func exportsOf(f *code.Facts) []code.Import {
	var ex []code.Import
	for _, imp := range f.Imports {
		if imp.Export {
			ex = append(ex, imp)
		}
	}
	return ex
}

// addExports reads package.json's exports: a string, or an object of subpaths and
// conditions whose string leaves are the entries.
func addExports(entries map[string][]string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		entries["."] = append(entries["."], s)
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range obj {
			if !yield(k) {
				return
			}
		}
	}) {
		sub := "."
		if strings.HasPrefix(k, ".") {
			sub = k
		}
		var leaves []string
		collectStrings(obj[k], &leaves)
		entries[sub] = append(entries[sub], leaves...)
	}
}

func collectStrings(raw json.RawMessage, out *[]string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		*out = append(*out, s)
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range obj {
				if !yield(k) {
					return
				}
			}
		}) {
			collectStrings(obj[k], out)
		}
	}
}

// scriptExts are the extensions a module without one may have, TypeScript's first.
func scriptExts() []string {
	return []string{".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs"}
}

// candidates are the files a module path (relative to the project, with or without an
// extension) may be: TypeScript's sources for an emitted .js name, each extension, and an
// index file in a folder of that name.
func candidates(p string) []string {
	p = path.Clean(p)
	var out []string
	switch ext := path.Ext(p); ext {
	case ".js", ".jsx", ".mjs", ".cjs":
		stem := strings.TrimSuffix(p, ext)
		ts := map[string]string{".js": ".ts", ".jsx": ".tsx", ".mjs": ".mts", ".cjs": ".cts"}[ext]
		return []string{stem + ts, p, stem + ".tsx", stem + ".d.ts"}
	case ".ts", ".tsx", ".mts", ".cts", ".json":
		return []string{p}
	}
	if p != "." && p != ".." && !strings.HasSuffix(p, "/..") {
		for _, e := range scriptExts() {
			out = append(out, p+e)
		}
	}
	for _, e := range scriptExts() {
		out = append(out, path.Join(p, "index"+e))
	}
	return out
}

// Module returns the candidate files of a module specifier imported by the file at rel: for a
// relative one the file it is, the first of its candidates the project has (or every
// candidate while none exists: the edge appears with the file), for a workspace package's
// the file its entry is (its package.json's exports, types, module or main, built output
// mapped back to src/, else src/index or index). A file that resolution chose may only go
// away in a cold build (Removes).
func (l *Layout) Module(rel, spec string) []string {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		all := candidates(path.Join(path.Dir(rel), spec))
		if f := l.first(all); f != "" {
			return []string{f}
		}
		return all
	}
	if files := l.configured(rel, spec); len(files) > 0 {
		return files
	}
	for _, name := range l.names {
		if spec != name && !strings.HasPrefix(spec, name+"/") {
			continue
		}
		p := l.packages[name]
		sub := "." + strings.TrimPrefix(spec, name)
		for _, e := range p.entries[sub] {
			if f := l.first(sourceOf(path.Join(p.dir, e))); f != "" {
				return []string{f}
			}
		}
		conventional := candidates(path.Join(p.dir, "src/index"))
		conventional = append(conventional, candidates(path.Join(p.dir, "index"))...)
		if sub != "." {
			conventional = append(candidates(path.Join(p.dir, "src", sub)), candidates(path.Join(p.dir, sub))...)
		}
		if f := l.first(conventional); f != "" {
			return []string{f}
		}
		return nil
	}
	return nil
}

// first is the first of files the project has, or "".
func (l *Layout) first(files []string) string {
	for _, f := range files {
		if l.scripts[f] {
			return f
		}
	}
	return ""
}

// sourceOf maps a package entry, often built output (dist/index.js, dist/index.d.ts), to
// the sources it is built from (src/index.ts) as well as to itself.
func sourceOf(entry string) []string {
	out := candidates(strings.TrimSuffix(entry, ".d.ts"))
	for _, out2 := range []string{"dist/", "build/", "lib/", "out/"} {
		if i := strings.Index(entry, out2); i >= 0 {
			src := entry[:i] + "src/" + entry[i+len(out2):]
			src = strings.TrimSuffix(src, ".d.ts")
			out = append(out, candidates(src)...)
			for _, sub := range []string{"esm/", "cjs/"} {
				if after, ok := strings.CutPrefix(src[len(entry[:i])+len("src/"):], sub); ok {
					out = append(out, candidates(entry[:i]+"src/"+after)...)
				}
			}
		}
	}
	return out
}

// layoutIDs adapts a Layout to code.Layout.
type layoutIDs struct{ l *Layout }

func (a layoutIDs) Submodules(string, string) []string { return nil }

func (a layoutIDs) Reexports(file, name string) []code.Binding {
	rel := relOf(file)
	return code.Reexports(a.l.reexports(rel), name, func(spec string) []string { return a.module(rel, spec) })
}

func (a layoutIDs) module(rel, spec string) []string {
	files := a.l.Module(rel, spec)
	out := make([]string, 0, len(files))
	for _, f := range files {
		if Language(f) != "" && path.Ext(f) != ".json" {
			out = append(out, fileID(f))
		}
	}
	return out
}

// Fragment assembles the fragment of the TypeScript or JavaScript file at rel.
func Fragment(rel string, f *code.Facts, l *Layout) *graph.Fragment {
	ids := layoutIDs{l}
	scope, imported := code.NewScope(fileID(rel), f, ids, func(spec string) []string { return ids.module(rel, spec) })
	return code.FileFragment(code.File{Path: rel, Prefix: prefix(rel), Language: Language(rel), Facts: f, Scope: scope, Imported: imported, IsTest: IsTestFile(rel)})
}

// readConfig reads a tsconfig.json's baseUrl and paths. The file is JSON with comments and
// trailing commas; one that does not read is no configuration.
func (l *Layout) readConfig(rel string, data []byte) {
	var cfg struct {
		CompilerOptions struct {
			BaseURL string              `json:"baseUrl"`
			Paths   map[string][]string `json:"paths"`
		} `json:"compilerOptions"`
	}
	if json.Unmarshal(plainJSON(data), &cfg) != nil || len(cfg.CompilerOptions.Paths) == 0 {
		return
	}
	dir := path.Dir(rel)
	l.configs[dir] = tsconfig{base: path.Join(dir, cfg.CompilerOptions.BaseURL), paths: cfg.CompilerOptions.Paths}
}

// configured resolves spec through the paths of the tsconfig nearest above rel, as
// TypeScript does: the pattern that matches best (exactly, else the longest prefix before its
// one *), each of its replacements tried in order; the first file the project has is the
// module. When none is there ("*" mapped to "./*", paths into node_modules) resolution goes on
// as without the pattern: nil.
func (l *Layout) configured(rel, spec string) []string {
	cfg, ok := tsconfig{}, false
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if cfg, ok = l.configs[dir]; ok || dir == "." || dir == "/" {
			break
		}
	}
	if !ok {
		return nil
	}
	best, matched, bestLen := "", "", -1
	for pattern := range cfg.paths {
		prefix, suffix, star := strings.Cut(pattern, "*")
		switch {
		case !star && spec == pattern:
			best, matched, bestLen = pattern, "", len(spec)+1 // exact beats every wildcard
		case star && strings.HasPrefix(spec, prefix) && strings.HasSuffix(spec, suffix) && len(spec) >= len(prefix)+len(suffix):
			if len(prefix) > bestLen || len(prefix) == bestLen && pattern < best {
				best, matched, bestLen = pattern, spec[len(prefix):len(spec)-len(suffix)], len(prefix)
			}
		}
	}
	if best == "" {
		return nil
	}
	var all []string
	for _, target := range cfg.paths[best] {
		all = append(all, candidates(path.Join(cfg.base, strings.Replace(target, "*", matched, 1)))...)
	}
	if f := l.first(all); f != "" {
		return []string{f}
	}
	return nil
}

// plainJSON removes the comments and trailing commas tsconfig.json allows, outside strings.
func plainJSON(data []byte) []byte {
	return withoutTrailingCommas(withoutComments(data))
}

// stringEnd is the index of the closing quote of the string opening at i, or len(data).
func stringEnd(data []byte, i int) int {
	j := i + 1
	for j < len(data) && data[j] != '"' {
		if data[j] == '\\' {
			j++
		}
		j++
	}
	return min(j, len(data))
}

func withoutComments(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			j := stringEnd(data, i)
			out = append(out, data[i:min(j+1, len(data))]...)
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		default:
			out = append(out, c)
		}
	}
	return out
}

func withoutTrailingCommas(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			j := stringEnd(data, i)
			out = append(out, data[i:min(j+1, len(data))]...)
			i = j
		case ',':
			rest := bytes.TrimLeft(data[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// Kinds are the node kinds the TypeScript and JavaScript adapter makes, in the code family:
// a module is its file.
func Kinds() []string {
	return []string{code.KindFile, code.KindClass, code.KindInterface, code.KindType, code.KindFunc, code.KindMethod, code.KindVar, code.KindConst}
}
