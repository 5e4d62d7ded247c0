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

// peripheralDirs are folders whose code serves the project's own code rather than being it:
// tests, fixtures, examples, demos, benchmarks.
var peripheralDirs = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "__mocks__": true, "spec": true, "testdata": true,
	"testing": true, "fixture": true, "fixtures": true, "e2e": true, "example": true, "examples": true,
	"sample": true, "samples": true, "demo": true, "demos": true, "bench": true, "benchmarks": true,
}

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
		case peripheralDirs[seg] || strings.Contains(seg, ".") && IsTestPath(seg) ||
			strings.Contains(seg, ".example.") || strings.Contains(seg, ".examples."):
			return StandingPeripheral
		case datedName(seg) || hasWord(seg, "legacy") || hasWord(seg, "deprecated"):
			standing = StandingSecondary
		}
	}
	return standing
}

// datedName reports whether a path segment carries a date (2025-11-25), as a snapshot of a
// revision does.
func datedName(seg string) bool {
	for i := 0; i+10 <= len(seg); i++ {
		d := seg[i : i+10]
		if d[4] == '-' && d[7] == '-' && allDigits(d[:4]) && allDigits(d[5:7]) && allDigits(d[8:]) &&
			(i == 0 || !isDigit(seg[i-1])) && (i+10 == len(seg) || !isDigit(seg[i+10])) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

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
		standing = min(standing, StandingOf(id))
	}
	for _, id := range ids {
		if StandingOf(id) == standing {
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
