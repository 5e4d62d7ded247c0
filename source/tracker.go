package source

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/docforge/docforge/source/project"
)

// Tracker keeps a project's last inventory between syncs so that a long-lived process whose
// watch reports which directories changed lists only those again, instead of walking the whole
// tree: on a large project the walk is most of what a one-file edit costs.
//
// The caller's watch must report every change to a directory's files (Changed) before Scan is
// called for a state that includes it, and anything else (a folder created, removed or
// renamed, the descriptor edited, lost events) as ChangedAll. Whatever the tracker cannot
// prove it lists exactly as the walk would (a symlink, a walk problem, another descriptor),
// it answers with a full Scan.
type Tracker struct {
	mu    sync.Mutex
	last  *Inventory
	hash  string          // the descriptor hash last was taken under
	dirty map[string]bool // project-relative, slash-separated directories
	all   bool
}

// NewTracker returns a tracker whose first Scan walks the whole tree.
func NewTracker() *Tracker { return &Tracker{dirty: map[string]bool{}, all: true} }

// Changed records that the entries of dir (project-relative, slash-separated) may have changed.
func (t *Tracker) Changed(dir string) {
	t.mu.Lock()
	t.dirty[path.Clean(dir)] = true
	t.mu.Unlock()
}

// ChangedAll records that anything may have changed: the next Scan walks the tree.
func (t *Tracker) ChangedAll() {
	t.mu.Lock()
	t.all = true
	t.mu.Unlock()
}

// Scan returns the inventory of d as Scan would, listing again only the directories reported
// changed since the last call when it can, and reports whether it walked the whole tree.
func (t *Tracker) Scan(ctx context.Context, d *project.Descriptor) (*Inventory, bool, error) {
	t.mu.Lock()
	last, all, dirty := t.last, t.all || t.last == nil || t.hash != d.Hash, t.dirty
	t.dirty, t.all = map[string]bool{}, false
	t.mu.Unlock()
	var inv *Inventory
	var err error
	if !all {
		inv, err = rescan(ctx, d, last, slices.Sorted(maps.Keys(dirty)))
	}
	walked := inv == nil && err == nil
	if walked {
		inv, err = Scan(ctx, d)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.all = true // what was dirty is not listed yet
		return nil, walked, err
	}
	t.last, t.hash = inv, d.Hash
	return inv, walked, nil
}

// errWalk says a rescan met what only the full walk lists exactly.
var errWalk = errors.New("walk the tree")

// rescan lists the directories dirs again over prev and returns the inventory Scan would
// return, or nil when only the walk can tell (prev has symlinks, hard-linked sources or walk
// problems, or a directory holds one, cannot be read or is gone).
func rescan(ctx context.Context, d *project.Descriptor, prev *Inventory, dirs []string) (*Inventory, error) {
	if prev.aliased || len(prev.Problems) > 0 || len(prev.rejected) > 0 {
		return nil, nil
	}
	descStat, err := stat(filepath.Join(d.Root, project.FileName))
	if err != nil {
		return nil, fmt.Errorf("scan sources: stat descriptor: %w", err)
	}
	inv := &Inventory{Descriptor: fileOf(project.FileName, 0, descStat), Configs: configStats(d)}
	if len(dirs) == 0 {
		// Nothing reported (a sync after a merge, say): the files are prev's, which no one
		// changes once listed.
		inv.Files, inv.files = prev.Files, prev.files
		inv.identity = identity(inv)
		return inv, nil
	}
	var listed []File
	ignores := NewIgnores(d.Root)
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scan sources: %w", err)
		}
		files, err := listAgain(d, dir, ignores)
		if errors.Is(err, errWalk) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		listed = append(listed, files...)
	}
	// Stable, so that of a file listed under two roots the first listing stays, as in the
	// walk: nested content roots, or a content root inside a code root.
	slices.SortStableFunc(listed, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	listed = slices.CompactFunc(listed, func(a, b File) bool { return a.Path == b.Path })
	inv.Files = make([]File, 0, len(prev.Files)+len(listed))
	inv.files = prev.files
	var buf []byte
	rest := listed
	for _, f := range prev.Files {
		if inDir(f, dirs) {
			inv.files.RemoveHash(statHash(&buf, f))
			continue
		}
		for len(rest) > 0 && rest[0].Path < f.Path {
			inv.Files, rest = append(inv.Files, rest[0]), rest[1:]
		}
		inv.Files = append(inv.Files, f)
	}
	inv.Files = append(inv.Files, rest...)
	for _, f := range listed {
		inv.files.AddHash(statHash(&buf, f))
	}
	inv.identity = identity(inv)
	return inv, nil
}

// inDir reports whether f is listed from one of dirs (sorted): a file directly in it, or the
// package of a Go directory.
func inDir(f File, dirs []string) bool {
	dir := f.Path
	if f.Format != GoPackage {
		dir = "."
		if i := strings.LastIndexByte(f.Path, '/'); i >= 0 {
			dir = f.Path[:i]
		}
	}
	_, found := slices.BinarySearch(dirs, dir)
	return found
}

// listAgain lists the files directly in dir under every root the walk would list it from,
// with the walk's rules; a subdirectory is skipped (a change to the folders is the watch's
// ChangedAll).
func listAgain(d *project.Descriptor, dir string, ignores *Ignores) ([]File, error) {
	var out []File
	for _, code := range []bool{false, true} {
		roots := d.Sources.ContentRoots
		if code {
			roots = d.Sources.CodeRoots
		}
		if !slices.ContainsFunc(roots, func(root string) bool { return reaches(d, root, dir, code, ignores) }) {
			continue
		}
		files, err := listDir(d, dir, code, ignores)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// reaches reports whether the walk of root lists dir: dir is root or below it, and no folder
// on the way is hidden, excluded, or (under a code root) one the go tool ignores.
func reaches(d *project.Descriptor, root, dir string, code bool, ignores *Ignores) bool {
	root = path.Clean(root)
	if dir == root {
		return true
	}
	rel := dir
	if root != "." {
		var ok bool
		if rel, ok = strings.CutPrefix(dir, root+"/"); !ok {
			return false
		}
	}
	at := root
	for _, name := range strings.Split(rel, "/") {
		at = path.Join(at, name)
		if strings.HasPrefix(name, ".") && !(code && keptHidden(name)) || excluded(d, at) || code && SkipCodeDir(name) {
			return false
		}
		if code && ignores.Ignored(at, true) {
			return false // a folder git ignores is not walked
		}
	}
	return true
}

// listDir lists the source files directly in dir as the walk does (listEntries), or errWalk
// when it meets what the walk must judge: a symlink, a hard-linked source, an unreadable
// entry, a directory gone.
func listDir(d *project.Descriptor, dir string, code bool, ignores *Ignores) ([]File, error) {
	abs := filepath.Join(d.Root, filepath.FromSlash(dir))
	f, err := os.Open(abs)
	if err != nil {
		return nil, errWalk
	}
	defer f.Close()
	fd := int(f.Fd())
	dirStat, err := fstat(fd)
	if err != nil || !dirStat.isDir() {
		return nil, errWalk
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, errWalk
	}
	var ignore *ignoreRules
	if code {
		ignore = ignores.rulesIn(dir)
	}
	l := listEntries(d, fd, entries, abs, dir, code, ignore, dirStat, nil)
	if len(l.links) > 0 || len(l.probs) > 0 || l.linked {
		return nil, errWalk
	}
	return l.files, nil
}
