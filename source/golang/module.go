package golang

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Policies: how Go sources are read.
const (
	PolicyAST   = "ast"    // go/parser and go/ast, with Logic
	PolicyNoAST = "no-ast" // the lexical declaration scanner, never Logic
)

// Modules finds the import path of a directory from the nearest go.mod at or above it inside
// the project root. It caches what it reads and is safe for concurrent use; one is made per
// build, so an edited go.mod is read again by the next build.
type Modules struct {
	root     string
	fallback string // import path of the project root when no go.mod is found
	mu       sync.Mutex
	byDir    map[string]module // slash-separated project-relative directory -> its module
}

type module struct {
	dir  string // where the go.mod is ("." for the project root)
	path string // its module path; empty when there is none
}

// NewModules resolves modules under the project root. fallback names the root's import path
// when no go.mod covers a directory (the project ID is a good choice).
func NewModules(root, fallback string) *Modules {
	return &Modules{root: root, fallback: fallback, byDir: map[string]module{}}
}

// ImportPath returns the import path of the package in relDir (slash-separated, relative to
// the project root). The standard library's module, "std", has no prefix: GOROOT/src/fmt is
// "fmt".
func (m *Modules) ImportPath(relDir string) string {
	relDir = path.Clean(relDir)
	mod := m.moduleOf(relDir)
	if mod.path == "" {
		if relDir == "." {
			return m.fallback
		}
		return m.fallback + "/" + relDir
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(relDir, mod.dir), "/")
	if mod.dir == "." {
		rest = relDir
		if relDir == "." {
			rest = ""
		}
	}
	switch {
	case rest == "":
		return mod.path
	case mod.path == "std":
		return rest
	}
	return mod.path + "/" + rest
}

func (m *Modules) moduleOf(relDir string) module {
	m.mu.Lock()
	mod, ok := m.byDir[relDir]
	m.mu.Unlock()
	if ok {
		return mod
	}
	if p, found := readModulePath(filepath.Join(m.root, filepath.FromSlash(relDir), "go.mod")); found {
		mod = module{dir: relDir, path: p}
	} else if relDir != "." {
		mod = m.moduleOf(path.Dir(relDir))
	}
	m.mu.Lock()
	m.byDir[relDir] = mod
	m.mu.Unlock()
	return mod
}

// readModulePath reads the module directive of a go.mod file.
func readModulePath(file string) (string, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			rest = unq
		}
		return rest, rest != ""
	}
	return "", true // a go.mod without a module line still marks a module root
}

// ModulePath returns the module path of dir's go.mod, and whether dir holds one.
func ModulePath(dir string) (string, bool) {
	path, ok := readModulePath(filepath.Join(dir, "go.mod"))
	if ok && path == "" {
		path = filepath.Base(dir)
	}
	return path, ok
}
