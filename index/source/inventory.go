package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/docforge/docforge/index/problem"
	"github.com/docforge/docforge/index/project"
)

// Format is how a source file is parsed.
type Format uint8

// The source formats.
const (
	Markdown Format = iota + 1 // .md: one node, TOML front matter between +++ lines
	Records                    // .toml: many nodes as [[node]] tables
)

// File is one source file as the stat walk saw it.
type File struct {
	Path    string // slash-separated, relative to the project root
	Format  Format
	Size    int64
	MtimeNs int64
	CtimeNs int64
	Ino     uint64
	Dev     uint64
}

// SameVersion reports whether two stats of one path show the same file version.
func (f File) SameVersion(o File) bool {
	return f.Size == o.Size && f.MtimeNs == o.MtimeNs && f.CtimeNs == o.CtimeNs && f.Ino == o.Ino && f.Dev == o.Dev
}

// Inventory is the result of the stat walk: every source file, sorted by path, plus the
// problems the walk itself found (escaping symlinks, unreadable directories).
type Inventory struct {
	Files    []File
	Problems []problem.Problem
	// Descriptor is the stat of docforge.toml, part of the identity because the descriptor
	// changes how every source is read.
	Descriptor File
	rejected   []File
	identity   string
}

// Identity is the cheap source identity: a digest of every source file's path and stat, the
// descriptor's stat, and the walk's problems. Equal identities mean no source changed.
func (inv *Inventory) Identity() string { return inv.identity }

// Scan walks the content roots of d and returns the inventory. It reads no file contents.
// Symlinks are followed only when they resolve inside the content root they were found in;
// any other symlink is a path_escape problem. Hidden names (starting with ".") are skipped.
func Scan(ctx context.Context, d *project.Descriptor) (*Inventory, error) {
	w := walker{ctx: ctx, d: d, seen: map[string]bool{}, dirs: map[string]bool{}}
	descStat, err := stat(filepath.Join(d.Root, project.FileName))
	if err != nil {
		return nil, fmt.Errorf("scan sources: stat descriptor: %w", err)
	}
	inv := &Inventory{Descriptor: fileOf(project.FileName, 0, descStat)}
	for _, root := range d.Sources.ContentRoots {
		absRoot := filepath.Join(d.Root, filepath.FromSlash(root))
		realRoot, err := filepath.EvalSymlinks(absRoot)
		if err != nil {
			w.problems = append(w.problems, problem.New(problem.UnreadableFile, problem.Location{Path: root}, "content root %s: %v", root, err))
			continue
		}
		w.root, w.realRoot = root, realRoot
		if err := w.dir(absRoot, root); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	problem.Sort(w.problems)
	slices.SortFunc(w.rejected, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	inv.Files, inv.Problems, inv.rejected = w.files, w.problems, w.rejected
	inv.identity = identity(inv)
	return inv, nil
}

type walker struct {
	ctx            context.Context
	d              *project.Descriptor
	root, realRoot string // current content root (relative) and its resolved absolute path
	files          []File
	rejected       []File // symlinks refused for escaping; stat of the link itself
	problems       []problem.Problem
	seen           map[string]bool // relative paths already listed (content roots may nest)
	dirs           map[string]bool // resolved directories visited (symlink loops)
}

func (w *walker) excluded(rel string) bool {
	for _, g := range w.d.Sources.Exclude {
		if project.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

func (w *walker) dir(abs, rel string) error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("scan sources: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		if w.dirs[real] {
			return nil
		}
		w.dirs[real] = true
	}
	f, err := os.Open(abs)
	if err != nil {
		w.problems = append(w.problems, problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "read directory: %v", err))
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		w.problems = append(w.problems, problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "read directory: %v", err))
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		childRel := path.Join(rel, name)
		if w.excluded(childRel) {
			continue
		}
		childAbs := filepath.Join(abs, name)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			if err := w.symlink(childAbs, childRel); err != nil {
				return err
			}
			continue
		}
		if typ.IsDir() {
			if err := w.dir(childAbs, childRel); err != nil {
				return err
			}
			continue
		}
		format := formatOf(name)
		if format == 0 || !typ.IsRegular() || w.seen[childRel] {
			continue
		}
		st, err := lstat(childAbs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed during the walk: it is simply not a source now
			}
			w.problems = append(w.problems, problem.New(problem.UnreadableFile, problem.Location{Path: childRel}, "stat: %v", err))
			continue
		}
		w.seen[childRel] = true
		w.files = append(w.files, fileOf(childRel, format, st))
	}
	return nil
}

// symlink follows a link only when it resolves inside the current content root.
func (w *walker) symlink(abs, rel string) error {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A dangling link is not a source; report it so the author knows why it is ignored.
		if formatOf(rel) != 0 {
			w.problems = append(w.problems, problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "symlink does not resolve: %v", err))
		}
		return nil
	}
	if !project.Within(w.realRoot, real) {
		st, _ := lstat(abs)
		w.problems = append(w.problems, problem.Problem{
			Code: problem.PathEscape, Severity: problem.SeverityError, Location: problem.Location{Path: rel},
			Message:     fmt.Sprintf("symlink resolves to %s, outside content root %s", real, w.root),
			Remediation: problem.Describe(problem.PathEscape).Remediation,
		})
		// The link's own stat is part of the identity, so replacing it is noticed.
		w.rejected = append(w.rejected, fileOf(rel, 0, st))
		return nil
	}
	st, err := stat(abs)
	if err != nil {
		return nil
	}
	if st.isDir() {
		return w.dir(abs, rel)
	}
	format := formatOf(rel)
	if format == 0 || !st.isRegular() || w.seen[rel] {
		return nil
	}
	w.seen[rel] = true
	w.files = append(w.files, fileOf(rel, format, st))
	return nil
}

func formatOf(name string) Format {
	switch {
	case strings.HasSuffix(name, ".md"):
		return Markdown
	case strings.HasSuffix(name, ".toml"):
		return Records
	}
	return 0
}

func fileOf(rel string, format Format, st fileStat) File {
	return File{Path: rel, Format: format, Size: st.size, MtimeNs: st.mtimeNs, CtimeNs: st.ctimeNs, Ino: st.ino, Dev: st.dev}
}

func identity(inv *Inventory) string {
	h := sha256.New()
	var buf []byte
	line := func(f File) {
		buf = buf[:0]
		buf = append(buf, f.Path...)
		buf = append(buf, 0)
		buf = strconv.AppendInt(buf, f.Size, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, f.MtimeNs, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, f.CtimeNs, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendUint(buf, f.Ino, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendUint(buf, f.Dev, 10)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	h.Write([]byte("docforge.identity.v1\n"))
	line(inv.Descriptor)
	for _, f := range inv.Files {
		line(f)
	}
	h.Write([]byte("rejected\n"))
	for _, f := range inv.rejected {
		line(f)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
