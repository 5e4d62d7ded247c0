package code

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
)

// File is one source file to assemble: where it is, its ID prefix and language, its facts,
// and the scope its names resolve in.
type File struct {
	Path     string // project-relative, slash-separated
	Prefix   string // graph.PythonPrefix, graph.TypeScriptPrefix, graph.JavaScriptPrefix
	Language string
	Facts    *Facts
	Scope    *Scope
	// Imported are the candidate file nodes of each module the file imports.
	Imported []string
	// IsTest says the file is a test file by its language's conventions.
	IsTest bool
}

// FileID is the node ID of the file at rel under an adapter's prefix.
func FileID(prefix, rel string) string { return prefix + rel }

// FileFragment turns one file's facts into its fragment: the file node, a node per
// declaration, and the candidate relations (defines, imports, calls, tested_by, depends_on).
func FileFragment(in File) *graph.Fragment {
	f := in.Facts
	frag := &graph.Fragment{Path: in.Path}
	fileID := FileID(in.Prefix, in.Path)
	file := graph.Node{Record: graph.Record{
		ID: fileID, Kind: KindFile, Family: Family, Title: path.Base(in.Path), Language: in.Language,
		SourcePath: in.Path, Anchor: "L1",
	}, Line: 1, Body: f.Doc}
	if f.Error != nil {
		file.Capabilities = []string{CapParseError}
		// tree-sitter grammars lag their languages (TypeScript's `export type *`, `import('m').T[]`),
		// so a parse error is DocForge's limit as often as the file's mistake: said as such, once.
		frag.Problems = append(frag.Problems, problem.Note(problem.ParserLimitation,
			problem.Location{Path: in.Path, Line: f.Error.Line, Column: f.Error.Column},
			"the %s grammar could not parse this (%s); the declarations around it are indexed", in.Language, f.Error.Message))
	}
	var fileRefs, declRefs []graph.Edge
	for _, target := range in.Imported {
		if target != fileID {
			fileRefs = append(fileRefs, graph.Edge{Source: fileID, Relation: RelImports, Target: target})
		}
	}
	seen := map[string]bool{}
	var decls []graph.Node
	for i := range f.Decls {
		d := &f.Decls[i]
		qual := d.Qual()
		if seen[qual] {
			continue // a second definition of a name (a conditional def): the first stands for both
		}
		seen[qual] = true
		id := fileID + "/" + qual
		caps := []string{CapUnexported}
		if d.Exported {
			caps = []string{CapExported}
		}
		test := d.Test
		if test {
			caps = append(caps, CapTest)
		}
		if d.Ambiguous > 0 || slices.ContainsFunc(d.Calls, func(c string) bool { return unbound(in.Scope, c) }) {
			caps = append(caps, CapAmbiguousCalls)
		}
		n := graph.Node{Record: graph.Record{
			ID: id, Kind: d.Kind, Family: Family, Title: d.Title, Language: in.Language, Capabilities: caps,
			SourcePath: in.Path, Anchor: "L" + strconv.Itoa(d.Line),
		}, Line: d.Line, EndLine: d.End, CodeTerms: d.Terms, Body: d.Doc, Logic: d.Logic}
		fileRefs = append(fileRefs, graph.Edge{Source: fileID, Relation: RelDefines, Target: id})
		class := d.Parent
		if d.Kind == KindClass {
			class = qual
		}
		for _, c := range d.Calls {
			for _, target := range in.Scope.Targets(c, class) {
				if target == id {
					continue
				}
				declRefs = append(declRefs, graph.Edge{Source: id, Relation: RelCalls, Target: target})
				if test {
					declRefs = append(declRefs, graph.Edge{Source: target, Relation: RelTestedBy, Target: id})
				}
			}
		}
		for _, u := range d.Uses {
			for _, target := range in.Scope.Targets(u, class) {
				if target != id {
					declRefs = append(declRefs, graph.Edge{Source: id, Relation: RelDependsOn, Target: target})
				}
			}
		}
		n.ContentHash = graph.CodeContentHash(&n, d.Signature, d.Implementation)
		decls = append(decls, n)
	}
	file.ContentHash = graph.ContentHash(&file, fileRefs)
	frag.Nodes = append([]graph.Node{file}, decls...)
	frag.Refs = append(fileRefs, declRefs...)
	slices.SortStableFunc(frag.Refs[len(fileRefs):], graph.Edge.Compare)
	frag.Refs = slices.Compact(frag.Refs)
	return frag
}

// NewScope returns the scope of a file: its own declarations, and the names its imports bind
// (module resolves an import's module to its candidate file nodes). It also returns the
// candidate files of the modules imported, for the file's imports relations (an implicit
// binding is none).
func NewScope(fileID string, f *Facts, layout Layout, module func(spec string) []string) (*Scope, []string) {
	s := &Scope{File: fileID, Decls: map[string]bool{}, Names: map[string][]Binding{}, Layout: layout}
	for i := range f.Decls {
		// A test is no name of the module's (a describe block is named by its title, which
		// often is the name of what it imports).
		if !f.Decls[i].Test {
			s.Decls[f.Decls[i].Qual()] = true
		}
	}
	var imported []string
	for _, imp := range f.Imports {
		files := module(imp.Module)
		if len(files) == 0 {
			continue
		}
		if !imp.Implicit {
			imported = append(imported, files...)
		}
		if imp.Name == "*" {
			s.Stars = append(s.Stars, Binding{Files: files})
			continue
		}
		if imp.Local == "" {
			continue
		}
		if imp.Name == "" {
			s.Names[imp.Local] = append(s.Names[imp.Local], Binding{Files: files})
			continue
		}
		s.Names[imp.Local] = append(s.Names[imp.Local], Binding{Files: files, Qual: imp.Name})
		if layout != nil {
			// from pkg import mod: the name may be a submodule.
			for _, f := range files {
				if subs := layout.Submodules(f, imp.Name); len(subs) > 0 {
					s.Names[imp.Local] = append(s.Names[imp.Local], Binding{Files: subs})
					imported = append(imported, subs...)
				}
			}
		}
	}
	slices.Sort(imported)
	return s, slices.Compact(imported)
}

// unbound reports whether a call names a member of a value the file neither declares nor
// imports: a parameter's or a local's, whose class the adapter cannot tell.
func unbound(s *Scope, call string) bool {
	head, _, dotted := strings.Cut(call, ".")
	return dotted && !s.Bound(head)
}
