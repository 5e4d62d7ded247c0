package source

import (
	"path"
	"strings"

	"github.com/docforge/docforge/source/project"
)

// indexNames are the file names that stand for their folder: Hugo's _index.md and index.md,
// GitHub's README.md.
var indexNames = map[string]bool{"_index": true, "index": true, "readme": true}

// DerivedID returns the node ID a Markdown file at project-relative path rel gets when the
// descriptor derives identities: its path under its content root, lowercase, slash-separated,
// without extension, with an index file naming its folder. Characters an ID may not hold
// become '-'. The content root's own index file is "index".
func DerivedID(d *project.Descriptor, rel string) string {
	p := rel
	if root, ok := d.ContentRootOf(rel); ok && root != "." {
		p = strings.TrimPrefix(rel, root+"/")
	}
	p = strings.TrimSuffix(p, path.Ext(p))
	if dir, base := path.Split(p); indexNames[strings.ToLower(base)] {
		p = strings.TrimSuffix(dir, "/")
	}
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		if s := idSegment(seg); s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return "index"
	}
	return strings.Join(segs, "/")
}

// localID is a front matter id read as a page's name within its folder: the folder's path
// under its content root, as a derived ID spells it, then the name.
func localID(d *project.Descriptor, rel, id string) string {
	p := rel
	if root, ok := d.ContentRootOf(rel); ok && root != "." {
		p = strings.TrimPrefix(rel, root+"/")
	}
	var segs []string
	if dir := path.Dir(p); dir != "." {
		for _, seg := range strings.Split(dir, "/") {
			if s := idSegment(seg); s != "" {
				segs = append(segs, s)
			}
		}
	}
	return strings.Join(append(segs, id), "/")
}

// idSegment lowercases one path element and replaces what an ID may not hold, collapsing
// the replacements and trimming them from the ends; it starts with a letter or digit.
func idSegment(seg string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(seg) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-'
		switch {
		case ok && (b.Len() > 0 || (r != '.' && r != '_' && r != '-')):
			b.WriteRune(r)
			dash = r == '-'
		case !ok && b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// fileTitle is the title of last resort: the file's name without extension, or its folder's
// name for an index file.
func fileTitle(rel string) string {
	p := strings.TrimSuffix(rel, path.Ext(rel))
	dir, base := path.Split(p)
	if indexNames[strings.ToLower(base)] && dir != "" {
		return path.Base(strings.TrimSuffix(dir, "/"))
	}
	return base
}

// folderFamily is the family named by rel's top-level folder under its content root, when
// the descriptor declares one of that name (lowercase, '-' read as '_').
func folderFamily(d *project.Descriptor, rel string) (string, bool) {
	p := rel
	if root, ok := d.ContentRootOf(rel); ok && root != "." {
		p = strings.TrimPrefix(rel, root+"/")
	}
	top, _, nested := strings.Cut(p, "/")
	if !nested {
		return "", false
	}
	name := strings.ReplaceAll(strings.ToLower(top), "-", "_")
	_, declared := d.Families[name]
	return name, declared
}

// applyDefaults fills the fields a Markdown file left empty from [sources.defaults].
func applyDefaults(d *project.Descriptor, rel string, f *nodeFields) {
	df := d.Sources.Defaults
	switch {
	case f.ID == "" && df.DerivesIDs():
		f.ID = DerivedID(d, rel)
	case f.ID != "" && df.LocalIDs && !strings.Contains(f.ID, "/"):
		f.ID = localID(d, rel, f.ID)
	}
	if f.Family == "" {
		if fam, ok := folderFamily(d, rel); ok && df.FamilyFromFolder {
			f.Family = fam
		} else {
			f.Family = df.Family
		}
	}
	if f.Kind == "" {
		f.Kind = df.Kind
	}
}
