package source

import (
	"path"
	"slices"
	"strings"

	"github.com/docforge/docforge/source/project"
)

// Overlay is a set of content files replaced, added or removed in memory: a proposed change
// projected onto the sources. Loading through an overlay reads no file it names.
type Overlay struct {
	Files   map[string][]byte // path -> the file's proposed bytes (replaced or added)
	Removed map[string]bool   // paths the change deletes
}

// Empty reports whether the overlay changes nothing.
func (o *Overlay) Empty() bool { return o == nil || (len(o.Files) == 0 && len(o.Removed) == 0) }

// Apply returns the inventory's files with the overlay applied: removed paths dropped, added
// paths inserted in order. An added file has no stat: its identity is its bytes.
func (o *Overlay) Apply(files []File) []File {
	if o.Empty() {
		return files
	}
	out := make([]File, 0, len(files)+len(o.Files))
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.Path] = true
		if !o.Removed[f.Path] {
			out = append(out, f)
		}
	}
	for p := range o.Files {
		if !seen[p] {
			out = append(out, File{Path: p, Format: formatOf(path.Base(p)), Size: int64(len(o.Files[p]))})
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (o *Overlay) file(p string) ([]byte, bool) {
	if o == nil {
		return nil, false
	}
	data, ok := o.Files[p]
	return data, ok
}

// UseOverlay makes the loader read the overlay's files from memory.
func (l *Loader) UseOverlay(o *Overlay) { l.overlay = o }

// ContentFormat says how a content file at rel would be read, and whether it would be read at
// all: under a content root, not excluded, no hidden segment, a .md or .toml name. It looks at
// the name only; symlink confinement is the caller's check against the file system.
func ContentFormat(d *project.Descriptor, rel string) (Format, bool) {
	if rel == "" || strings.HasPrefix(rel, "/") || path.Clean(rel) != rel || strings.EqualFold(rel, project.FileName) {
		// The descriptor is configuration, never a source (as the inventory has it), and
		// named in any case: a case-insensitive file system (macOS's default) reads
		// Docforge.toml as docforge.toml.
		return 0, false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." || strings.HasPrefix(seg, ".") {
			return 0, false
		}
	}
	under := false
	for _, r := range d.Sources.ContentRoots {
		if r == "." || strings.HasPrefix(rel, r+"/") {
			under = true
		}
	}
	if !under || excluded(d, rel) {
		return 0, false
	}
	f := formatOf(path.Base(rel))
	return f, f == Markdown || f == Records
}
