package source

import (
	"path"
	"regexp"
	"strings"

	"github.com/docforge/docforge/source/project"
)

// indexNames are the file names that stand for their folder: Hugo's _index.md and index.md,
// GitHub's README.md.
var indexNames = map[string]bool{"_index": true, "index": true, "readme": true}

// indexPage reports whether the file at rel stands for its folder.
func indexPage(rel string) bool {
	base := path.Base(rel)
	return indexNames[strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))]
}

// DerivedID returns the node ID a Markdown file at project-relative path rel gets when the
// descriptor derives identities: its path under its content root, lowercase, slash-separated,
// without extension, with an index file naming its folder. Characters an ID may not hold
// become '-'. The content root's own index file is "index".
func DerivedID(d *project.Descriptor, rel string) string {
	p := underContentRoot(d, rel)
	p = strings.TrimSuffix(p, path.Ext(p))
	if dir, base := path.Split(p); indexNames[strings.ToLower(base)] {
		p = strings.TrimSuffix(dir, "/")
	}
	segs := idSegments(d, p)
	if len(segs) == 0 {
		return "index"
	}
	return strings.Join(segs, "/")
}

// underContentRoot is rel below its content root.
func underContentRoot(d *project.Descriptor, rel string) string {
	if root, ok := d.ContentRootOf(rel); ok && root != "." {
		return strings.TrimPrefix(rel, root+"/")
	}
	return rel
}

// idSegments spells each element of the slash-separated path p as an ID segment, dropping
// those that leave nothing (and number prefixes, when the descriptor strips them).
func idSegments(d *project.Descriptor, p string) []string {
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		if d.Sources.Defaults.StripNumberPrefixes {
			seg = stripNumberPrefix(seg)
		}
		if s := idSegment(seg); s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}

// numberPrefix is an ordering number before a name, as Docusaurus reads one: "01-intro",
// "2_setup", "3. usage".
var numberPrefix = regexp.MustCompile(`^[0-9]+\s*[-_.]+\s*`)

// dateOrVersion starts a name that only looks numbered: 2024-01-notes, 7.0-changes.
var dateOrVersion = regexp.MustCompile(`^[0-9]+[-_.][0-9]`)

// stripNumberPrefix drops a name's number prefix, leaving a date, a version, or a name that
// would be nothing without it as it is.
func stripNumberPrefix(name string) string {
	m := numberPrefix.FindStringIndex(name)
	if m == nil || m[1] == len(name) || dateOrVersion.MatchString(name) {
		return name
	}
	return name[m[1]:]
}

// localID is a front matter id read as a page's name within its folder: the folder's path
// under its content root, as a derived ID spells it, then the name.
func localID(d *project.Descriptor, rel, id string) string {
	segs := []string{}
	if dir := path.Dir(underContentRoot(d, rel)); dir != "." {
		segs = idSegments(d, dir)
	}
	return strings.Join(append(segs, id), "/")
}

// slugID is the ID of a page whose front matter slug names its URL, as Docusaurus reads a
// slug: "/a/b" below the URL of the docs its file belongs to, "a/b" below its folder's. The
// ID spells the URL, so that a link written as that URL finds the page.
func slugID(d *project.Descriptor, rel, slug string) string {
	var segs []string
	if strings.HasPrefix(slug, "/") {
		if docs := docsFolder(d, rel); docs != "" {
			segs = idSegments(d, docs)
		}
	} else if dir := path.Dir(underContentRoot(d, rel)); dir != "." {
		segs = idSegments(d, dir)
	}
	for _, seg := range strings.Split(slug, "/") {
		if s := idSegment(seg); s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return "index"
	}
	return strings.Join(segs, "/")
}

// docsFolder is the folder, below its content root, of the docs the page at rel belongs to:
// the longest [sources.links] routes folder holding it, else a versioned_docs/version-x
// folder, else its top-level folder ("" for a page at the content root).
func docsFolder(d *project.Descriptor, rel string) string {
	if _, folder, ok := d.Sources.Links.RouteOf(rel); ok {
		// The folder's path below the content root holding its pages ("" for the root itself).
		return strings.TrimPrefix(path.Dir(underContentRoot(d, folder+"/page.md")), ".")
	}
	segs := strings.Split(path.Dir(underContentRoot(d, rel)), "/")
	for i := 1; i < len(segs); i++ {
		if strings.HasSuffix(segs[i-1], "versioned_docs") && strings.HasPrefix(segs[i], "version-") {
			return strings.Join(segs[:i+1], "/")
		}
	}
	if segs[0] == "." {
		return ""
	}
	return segs[0]
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
	case f.Slug != "" && df.LocalIDs && !strings.Contains(f.ID, "/"):
		f.ID = slugID(d, rel, f.Slug)
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
