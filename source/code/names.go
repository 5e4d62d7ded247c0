package code

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/golang"
)

// IsPythonTest reports whether pytest collects the file by its default rules: test_*.py or
// *_test.py; conftest.py holds fixtures, which count with the tests.
func IsPythonTest(rel string) bool {
	base := path.Base(rel)
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py")
}

// IsScriptTest reports whether a TypeScript or JavaScript file is a test file by the
// conventions of Jest, Vitest, Mocha, node:test and tap: *.test.*, *.spec.*, or under
// __tests__, test or tests.
func IsScriptTest(rel string) bool {
	base := path.Base(rel)
	if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") {
		return true
	}
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if seg == "__tests__" || seg == "test" || seg == "tests" {
			return true
		}
	}
	return false
}

// IsTestPath reports whether a source file is a test file in its language: Go's _test.go,
// pytest's files, and the JavaScript runners' conventions.
func IsTestPath(rel string) bool {
	switch path.Ext(rel) {
	case ".go":
		return golang.IsTestFile(rel)
	case ".py":
		return IsPythonTest(rel)
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		return IsScriptTest(rel)
	}
	return false
}

// DeclName splits a code declaration's ID into the name of its package or module and its
// own name (Name, or Class.member). ok is false for a file's, a package's, a text file's or
// a document's ID.
func DeclName(id string) (scope, name string, ok bool) {
	if strings.HasPrefix(id, graph.CodePrefix) {
		return golang.DeclName(id)
	}
	if !graph.IsCode(id) || strings.HasPrefix(id, graph.TextPrefix) {
		return "", "", false
	}
	i := strings.LastIndexByte(id, '/')
	if i < 0 {
		return "", "", false
	}
	file, name := id[:i], id[i+1:]
	base := file[strings.LastIndexAny(file, "/:")+1:]
	ext := path.Ext(base)
	switch ext {
	case ".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
	default:
		return "", "", false // a file's own ID: its folder, then its name
	}
	scope = strings.TrimSuffix(base, ext)
	if scope == "__init__" || scope == "index" {
		dir := file[:max(strings.LastIndexByte(file, '/'), 0)]
		scope = dir[strings.LastIndexAny(dir, "/:")+1:]
	}
	return scope, name, name != ""
}
