package code

import (
	"path"
	"regexp"
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

// peripheralDir reports whether a folder's code serves the project's own code rather than
// being it: tests, fixtures, examples, demos, benchmarks.
func peripheralDir(name string) bool {
	switch name {
	case "test", "tests", "__tests__", "__mocks__", "spec", "testdata", "testing", "fixture", "fixtures", "e2e",
		"example", "examples", "sample", "samples", "demo", "demos", "bench", "benchmarks":
		return true
	}
	return false
}

// dated matches a date in a name (spec.types.2025-11-25.ts, rev2026-07-28), as a snapshot of
// a revision carries one.
var dated = regexp.MustCompile(`(^|\D)\d{4}-\d{2}-\d{2}(\D|$)`)

// Standing of a declaration, by where it is declared: what a document's name most likely
// means among several declarations of it.
const (
	// StandingPrimary is the project's own current code.
	StandingPrimary = iota
	// StandingSecondary is kept beside it: a legacy or deprecated package, or a snapshot of
	// an earlier revision (a file or folder named by a date, spec.types.2025-11-25.ts).
	StandingSecondary
	// StandingPeripheral serves it: tests, fixtures, examples, demos, benchmarks.
	StandingPeripheral
)

// StandingOf is the standing of a code node by the path its ID holds (the file path for
// Python, TypeScript and JavaScript, the import path for Go).
func StandingOf(id string) int {
	standing := StandingPrimary
	if _, rest, ok := strings.Cut(id, ":"); ok {
		id = rest // the language prefix (ts:, py:, go:) is no folder
	}
	for _, seg := range strings.Split(id, "/") {
		switch {
		case peripheralDir(seg) || strings.Contains(seg, ".") && IsTestPath(seg) ||
			strings.Contains(seg, ".example.") || strings.Contains(seg, ".examples."):
			return StandingPeripheral
		case dated.MatchString(seg) || hasWord(seg, "legacy") || hasWord(seg, "deprecated"):
			standing = StandingSecondary
		}
	}
	return standing
}

// hasWord reports whether a path segment holds word between separators (server-legacy,
// legacy_api, but not legacyless).
func hasWord(seg, word string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(seg), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if w == word {
			return true
		}
	}
	return false
}

// Meant narrows the declarations a name has to those of the best standing present, and
// returns that standing: a document naming `Client` means the project's own Client, not a
// test's or an old revision's.
func Meant(ids []string) (meant []string, standing int) {
	standing = StandingPeripheral
	for _, id := range ids {
		switch s := StandingOf(id); {
		case s < standing:
			meant, standing = []string{id}, s
		case s == standing:
			meant = append(meant, id)
		}
	}
	return meant, standing
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
