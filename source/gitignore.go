package source

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/docforge/docforge/source/project"
)

// What git ignores stays out of code roots: build outputs, generated code and local files
// are listed in .gitignore files, and a project's sources are what it commits. The rules are
// git's: one pattern a line, # comments, ! to include again, a trailing / for folders only, a
// pattern with a slash (other than at its end) anchored to its file's folder, one without
// matching a name at any depth; the last pattern that matches decides. A folder ignored is
// not walked, so nothing in it is included again (as in git).

// ignoreRule is one pattern of a .gitignore file in folder base.
type ignoreRule struct {
	base     string // project-relative folder of the .gitignore ("." for the root)
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool
}

// ignoreRules are the patterns in force in a folder: its ancestors' .gitignore files' first,
// its own last. It is never changed once made (with returns a new one).
type ignoreRules struct{ rules []ignoreRule }

// parseGitignore reads the patterns of the .gitignore in folder base.
func parseGitignore(base string, data []byte) []ignoreRule {
	var out []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: base}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		}
		line = strings.TrimPrefix(line, `\`) // \# and \! stand for themselves
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		r.anchored = strings.Contains(line, "/")
		r.pattern = strings.TrimPrefix(line, "/")
		if r.pattern != "" {
			out = append(out, r)
		}
	}
	return out
}

// with returns the rules in force below a folder whose .gitignore holds more.
func (ir *ignoreRules) with(more []ignoreRule) *ignoreRules {
	if len(more) == 0 {
		return ir
	}
	out := &ignoreRules{}
	if ir != nil {
		out.rules = append(out.rules, ir.rules...)
	}
	out.rules = append(out.rules, more...)
	return out
}

// ignored reports whether git ignores the entry at rel (a folder when dir).
func (ir *ignoreRules) ignored(rel string, dir bool) bool {
	if ir == nil {
		return false
	}
	ignored := false
	for _, r := range ir.rules {
		if r.dirOnly && !dir {
			continue
		}
		sub := rel
		if r.base != "." {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, r.base+"/"); !ok {
				continue
			}
		}
		var match bool
		if r.anchored {
			// MatchGlob also matches below a folder the pattern names; that folder was not
			// walked, so only the entry itself is ever asked about.
			match = project.MatchGlob(r.pattern, sub)
		} else {
			match, _ = path.Match(r.pattern, path.Base(sub))
		}
		if match {
			ignored = !r.negate
		}
	}
	return ignored
}

// readGitignore reads the .gitignore in the project folder rel, if there is one.
func readGitignore(root, rel string) []ignoreRule {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel), ".gitignore"))
	if err != nil {
		return nil
	}
	return parseGitignore(rel, data)
}

// Ignores answers whether git ignores the entries of one tree, reading each folder's
// .gitignore once however many ask; it is safe for concurrent use.
type Ignores struct {
	root  string
	mu    sync.Mutex
	byDir map[string]*ignoreRules
}

// NewIgnores returns the ignores of the tree at root.
func NewIgnores(root string) *Ignores { return &Ignores{root: root, byDir: map[string]*ignoreRules{}} }

// Ignored reports whether git ignores the entry at rel (slash-separated, relative to the
// root; a folder when dir).
func (g *Ignores) Ignored(rel string, dir bool) bool {
	return g.rulesIn(path.Dir(rel)).ignored(rel, dir)
}

// rulesIn is the rules in force for the entries of folder dir: the .gitignore files of the
// root and every folder down to dir, dir's own included.
func (g *Ignores) rulesIn(dir string) *ignoreRules {
	dir = path.Clean(dir)
	g.mu.Lock()
	ir, ok := g.byDir[dir]
	g.mu.Unlock()
	if ok {
		return ir
	}
	var parent *ignoreRules
	if dir != "." && dir != "/" {
		parent = g.rulesIn(path.Dir(dir))
	}
	ir = parent.with(readGitignore(g.root, dir))
	g.mu.Lock()
	g.byDir[dir] = ir
	g.mu.Unlock()
	return ir
}
