package golang

import (
	"path"
	"strconv"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
)

// PackageID, FileID and DeclID build code node IDs.
func PackageID(importPath string) string { return graph.CodePrefix + importPath }

// DeclName splits a declaration's ID into its package name and its own name: Name, or
// Recv.Name for a method. ok is false for a package's or a file's ID and for any ID that is
// not a code node's. (An import path whose last element holds a dot, such as gopkg.in/x.v3,
// is split at its first dot: such IDs name the package wrongly.)
func DeclName(id string) (pkg, name string, ok bool) {
	rest, code := strings.CutPrefix(id, graph.CodePrefix)
	if !code || strings.HasSuffix(rest, ".go") {
		return "", "", false
	}
	return strings.Cut(rest[strings.LastIndexByte(rest, '/')+1:], ".")
}

// IsTestFile reports whether a Go file's path or name is a test file's (the go tool's
// _test.go rule).
func IsTestFile(path string) bool { return strings.HasSuffix(path, "_test.go") }

// FileID names a file node: the package ID, a slash, the file's base name.
func FileID(importPath, base string) string { return PackageID(importPath) + "/" + base }

// PackageFragment is the fragment of a directory's package: its node and a contains relation
// to the node of each Go file in the directory. It depends on the file names only.
func PackageFragment(relDir, importPath string, files []string) *graph.Fragment {
	id := PackageID(importPath)
	n := graph.Node{Record: graph.Record{
		ID: id, Kind: KindPackage, Family: Family, Title: "package " + importPath, Language: Language,
		SourcePath: relDir, Anchor: "",
	}}
	frag := &graph.Fragment{Path: relDir}
	for _, f := range files {
		frag.Refs = append(frag.Refs, graph.Edge{Source: id, Relation: RelContains, Target: FileID(importPath, f)})
	}
	n.ContentHash = graph.ContentHash(&n, frag.Refs)
	frag.Nodes = []graph.Node{n}
	return frag
}

// FileFragment turns one file's facts into its fragment: the file node, a node per
// declaration, and the candidate relations (defines, imports, calls, tested_by).
func FileFragment(rel, importPath string, f *Facts) *graph.Fragment {
	frag := &graph.Fragment{Path: rel}
	base := path.Base(rel)
	fileID := FileID(importPath, base)
	file := graph.Node{Record: graph.Record{
		ID: fileID, Kind: KindFile, Family: Family, Title: base, Language: Language,
		SourcePath: rel, Anchor: "L1",
	}, Line: 1, Body: f.Doc}
	switch {
	case f.Ignored:
		file.Capabilities = []string{CapBuildIgnored}
	case f.Error != nil:
		file.Capabilities = []string{CapParseError}
		frag.Problems = append(frag.Problems, problem.Warn(problem.GoParseError,
			problem.Location{Path: rel, Line: f.Error.Line, Column: f.Error.Column}, "%s", f.Error.Message))
	}
	// An external test package (package foo_test) has its own namespace.
	declPath := importPath
	if strings.HasSuffix(f.Package, "_test") && IsTestFile(rel) {
		declPath = importPath + "_test"
	}
	var fileRefs []graph.Edge
	seenImport := map[string]bool{}
	for _, imp := range f.Imports {
		if imp.Path == "C" || seenImport[imp.Path] {
			continue
		}
		seenImport[imp.Path] = true
		fileRefs = append(fileRefs, graph.Edge{Source: fileID, Relation: RelImports, Target: PackageID(imp.Path)})
	}
	isTestFile := IsTestFile(base)
	inits := 0
	var decls []graph.Node
	var declRefs []graph.Edge
	for _, d := range f.Decls {
		if d.Kind == KindFunc && d.Name == "init" {
			inits++
		}
		id, title := declIdentity(declPath, base, d, inits)
		caps := []string{CapUnexported}
		if IsExported(d.Name) {
			caps = []string{CapExported}
		}
		test := isTestFile && d.Kind == KindFunc && IsTestFunc(d.Name)
		if test {
			caps = append(caps, CapTest)
		}
		n := graph.Node{Record: graph.Record{
			ID: id, Kind: d.Kind, Family: Family, Title: title, Language: Language, Capabilities: caps,
			SourcePath: rel, Anchor: "L" + strconv.Itoa(d.Line),
		}, Line: d.Line, EndLine: d.End, CodeTerms: d.Terms, Body: d.Doc, Logic: d.Logic}
		fileRefs = append(fileRefs, graph.Edge{Source: fileID, Relation: RelDefines, Target: id})
		own, testedBy := declRelations(id, declPath, d, test)
		declRefs = append(declRefs, testedBy...)
		// The calls and references come from the source the digests already cover.
		n.ContentHash = graph.CodeContentHash(&n, d.Signature, d.Implementation)
		declRefs = append(declRefs, own...)
		decls = append(decls, n)
	}
	file.ContentHash = graph.ContentHash(&file, fileRefs)
	frag.Nodes = append([]graph.Node{file}, decls...)
	frag.Refs = append(fileRefs, declRefs...)
	return frag
}

// declIdentity is a declaration's node ID and title; the nth init function of a file is
// init.FILE.n, as a package may hold several.
func declIdentity(declPath, base string, d Decl, inits int) (id, title string) {
	switch {
	case d.Kind == KindMethod:
		return graph.CodePrefix + declPath + "." + d.Recv + "." + d.Name, "func (" + d.Recv + ") " + d.Name
	case d.Kind == KindFunc && d.Name == "init":
		return graph.CodePrefix + declPath + ".init." + strings.TrimSuffix(base, ".go") + "." + strconv.Itoa(inits), "func " + d.Name
	case d.Kind == KindFunc:
		return graph.CodePrefix + declPath + "." + d.Name, "func " + d.Name
	}
	return graph.CodePrefix + declPath + "." + d.Name, d.Kind + " " + d.Name
}

// declRelations are a declaration's calls and references (not to itself), and for a test
// function the tested_by edge from each function it calls.
func declRelations(id, declPath string, d Decl, test bool) (own, testedBy []graph.Edge) {
	for _, c := range d.Calls {
		target := calleeID(declPath, c)
		own = append(own, graph.Edge{Source: id, Relation: RelCalls, Target: target})
		if test {
			testedBy = append(testedBy, graph.Edge{Source: target, Relation: RelTestedBy, Target: id})
		}
	}
	for _, r := range d.Refs {
		if target := calleeID(declPath, r); target != id {
			own = append(own, graph.Edge{Source: id, Relation: RelDependsOn, Target: target})
		}
	}
	return own, testedBy
}

func calleeID(declPath string, c Callee) string {
	switch {
	case c.Pkg != "" && c.Recv != "":
		return graph.CodePrefix + c.Pkg + "." + c.Recv + "." + c.Name
	case c.Pkg != "":
		return graph.CodePrefix + c.Pkg + "." + c.Name
	case c.Recv != "":
		return graph.CodePrefix + declPath + "." + c.Recv + "." + c.Name
	}
	return graph.CodePrefix + declPath + "." + c.Name
}
