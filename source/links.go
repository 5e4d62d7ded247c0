package source

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/shortcode"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/project"
)

// linkDest is one link destination found in a body, as written.
type linkDest struct {
	dest         string
	line, column int
	// fromRoots marks a Hugo ref/relref shortcode, which Hugo resolves against the page's
	// folder first and the content root second.
	fromRoots bool
}

var (
	// A reference definition: up to three spaces, [label]:, the destination. A label that
	// starts with ^ is a footnote, not a link.
	refDefinition = regexp.MustCompile(`^ {0,3}\[[^\]^][^\]]*\]:[ \t]*(<[^>]*>|\S+)`)
	// A URL scheme (https:, mailto:) or a protocol-relative //host link: external.
	externalDest = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)`)
)

// appendLinks finds inline links [text](dest), reference definitions and Hugo ref shortcodes
// on one line outside inline code spans. Images (![alt](src)) are not relations.
func appendLinks(out []linkDest, line string, lineNo int) []linkDest {
	col := func(i int) int { return utf8.RuneCountInString(line[:i]) + 1 }
	if m := refDefinition.FindStringSubmatchIndex(line); m != nil {
		// A shortcode as the destination is the site's to expand, not a path.
		if dest := strings.Trim(line[m[2]:m[3]], "<>"); !strings.HasPrefix(dest, "{{") {
			out = append(out, linkDest{dest: dest, line: lineNo, column: col(m[2])})
		}
		return out
	}
	for _, t := range shortcode.Tags(line) {
		if dest, at, ok := t.Ref(); ok && dest != "" {
			out = append(out, linkDest{dest: dest, line: lineNo, column: col(at), fromRoots: true})
		}
	}
	inCode, open := false, -1
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '`':
			inCode = !inCode
		case inCode:
		case c == '\\':
			i++ // an escaped character is literal
		case c == '[':
			open = i
		case c == ']' && open >= 0 && i+1 < len(line) && line[i+1] == '(':
			image := open > 0 && line[open-1] == '!'
			start, end := i+2, i+2
			for start < len(line) && line[start] == ' ' {
				start++
			}
			var dest string
			if start < len(line) && line[start] == '<' {
				if j := strings.IndexByte(line[start:], '>'); j > 0 {
					dest, end = line[start+1:start+j], start+j+1
				}
			} else {
				depth := 0
				for end = start; end < len(line); end++ {
					if b := line[end]; b == ' ' || b == '\t' || (b == ')' && depth == 0) {
						break
					} else if b == '(' {
						depth++
					} else if b == ')' {
						depth--
					}
				}
				dest = line[start:end]
			}
			// A shortcode as the destination ([x]({{< relref "y" >}})) is read on its own.
			if !image && dest != "" && !strings.HasPrefix(dest, "{{") {
				out = append(out, linkDest{dest: dest, line: lineNo, column: col(start)})
			}
			open = -1
			i = end - 1
		}
	}
	return out
}

// path is the destination as written without its #anchor and ?query, and the anchor.
func (ld linkDest) path() (dest, anchor string) {
	dest, anchor, _ = strings.Cut(strings.TrimSpace(ld.dest), "#")
	dest, _, _ = strings.Cut(dest, "?")
	return dest, anchor
}

// linkExtensions are the file types a link can name as a node; links to anything else
// (images, rendered .html) are not relations. A .go file names its file node when the
// project's links reach code.
var linkExtensions = map[string]bool{".md": true, ".mdx": true, ".markdown": true, ".toml": true}

// inCodeRoot reports whether the project-relative path p is under a code root.
func inCodeRoot(d *project.Descriptor, p string) bool {
	for _, r := range d.Sources.CodeRoots {
		if r == "." || p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// RouteOf is a file's site route: its project-relative path lower-cased, without a Markdown
// extension, an index file (_index.md, index.md, README.md) standing for its folder.
func RouteOf(p string) string {
	route, _ := routeAndLanguage(p)
	return route
}

// languageTag is a Hugo translation's language in its file name: about.fr.md, _index.pt-br.md.
var languageTag = regexp.MustCompile(`\.([a-z]{2}(?:-[a-z]{2,4})?)$`)

// routeAndLanguage is RouteOf, and the language tag the file name carries ("" for none): a
// Hugo site's translations share one route.
func routeAndLanguage(p string) (route, lang string) {
	p = strings.ToLower(p)
	if ext := path.Ext(p); ext == ".md" || ext == ".mdx" || ext == ".markdown" {
		p = strings.TrimSuffix(p, ext)
		if m := languageTag.FindStringSubmatchIndex(p); m != nil {
			p, lang = p[:m[0]], p[m[2]:m[3]]
		}
	}
	if dir, base := path.Split(p); indexNames[base] && dir != "" {
		p = strings.TrimSuffix(dir, "/")
	}
	return p, lang
}

// sameLanguageFirst orders the files of one route for a link from the file at from: its own
// language first, then files without a language tag, then the rest in path order.
func sameLanguageFirst(paths []string, from string) []string {
	_, want := routeAndLanguage(from)
	rank := func(p string) int {
		switch _, lang := routeAndLanguage(p); lang {
		case want:
			return 0
		case "":
			return 1
		}
		return 2
	}
	out := slices.Clone(paths)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// RouteName is the last segment of a route: what a route index is keyed by.
func RouteName(route string) string { return path.Base(route) }

// linkRoutes fills a link's Routes and Unique from its candidate bases (see graph.Link).
func linkRoutes(bases []string, dest string, hugoRef bool) (routes []string, unique string) {
	for _, b := range bases {
		if r := RouteOf(b); !slices.Contains(routes, r) {
			routes = append(routes, r)
		}
	}
	if hugoRef {
		unique = RouteOf(strings.TrimLeft(path.Clean("/"+dest), "/"))
	}
	return routes, unique
}

// linkFrom turns a destination written in the file at rel into the candidate files it may
// name. ok is false for links that are not relations: external URLs, anchors in the same
// page, other file types, and paths outside every content root.
func linkFrom(d *project.Descriptor, rel string, ld linkDest) (l graph.Link, ok bool) {
	paths, anchor, bases, ok := linkPaths(d, rel, ld)
	if !ok || outsideFile(d, ld) || generatedPage(d, paths) {
		return graph.Link{}, false
	}
	l = graph.Link{Paths: paths, Anchor: anchor}
	dest, _ := ld.path()
	if ext := strings.ToLower(path.Ext(path.Base(dest))); ext == "" || ld.fromRoots {
		l.Routes, l.Unique = linkRoutes(bases, dest, hugoLookup(d, ld))
		if ext == "" && d.Sources.Links.DocusaurusSite() {
			l.RouteIDs = routeIDs(d, bases)
		}
	}
	return l, true
}

// pageURL is the URL path a site serves the page at rel under: its path below the
// [sources.links] routes folder holding it, after that folder's prefix, without extension,
// an index page standing for its folder. ok is false when no routes folder holds it.
func pageURL(d *project.Descriptor, rel string) (url string, ok bool) {
	prefix, folder, ok := d.Sources.Links.RouteOf(rel)
	if !ok {
		return "", false
	}
	below := strings.TrimPrefix(rel, folder+"/")
	below = strings.TrimSuffix(below, path.Ext(below))
	if indexPage(rel) {
		below = path.Dir(below)
	}
	return path.Join("/", prefix, below), true
}

// routeIDs are the node IDs a Docusaurus route may name: each base under a content root as
// a derived ID spells it, which with local_ids and strip_number_prefixes is the page's URL. A
// base with characters an ID cannot hold is no page's URL ("/overview]" is not "overview").
func routeIDs(d *project.Descriptor, bases []string) []string {
	var ids []string
	for _, b := range bases {
		if _, in := d.ContentRootOf(b + ".md"); !in || !spelledAsID(d, underContentRoot(d, b)) {
			continue
		}
		if id := DerivedID(d, b+".md"); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// spelledAsID reports whether every segment of the path p is an ID segment as written, case
// and (when the descriptor strips them) number prefixes aside.
func spelledAsID(d *project.Descriptor, p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if d.Sources.Defaults.StripNumberPrefixes {
			seg = stripNumberPrefix(seg)
		}
		if idSegment(seg) != strings.ToLower(seg) {
			return false
		}
	}
	return true
}

// outsideFile reports whether a root-relative link outside a Hugo site names a file that
// exists outside every content root and every code root: GitHub reads /README.md from the repository root (or
// the project root), so the link is sound but names no node, and is no relation.
func outsideFile(d *project.Descriptor, ld linkDest) bool {
	dest, _ := ld.path()
	if !strings.HasPrefix(dest, "/") || ld.fromRoots || d.Sources.Links.HugoSite() || d.Root == "" {
		return false
	}
	p := path.Clean(dest)[1:]
	if p == "" || d.Sources.Links.CodeOn() && inCodeRoot(d, p) {
		return false // under a code root, a file is a node (code or text) or a package's folder
	}
	if _, in := d.ContentRootOf(p); !in && fileExists(filepath.Join(d.Root, filepath.FromSlash(p))) {
		return true
	}
	if repo := repositoryRoot(d.Root); repo != "" && repo != d.Root {
		full := filepath.Join(repo, filepath.FromSlash(p))
		rel, err := filepath.Rel(d.Root, full)
		inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if !inside && fileExists(full) {
			return true
		}
	}
	return false
}

// generatedPage reports whether a link names a page the site's build generates
// ([sources.links] generated): its first candidate is in such a folder and no candidate is a
// file of the tree. Such a link is sound but names no node, and is no relation.
func generatedPage(d *project.Descriptor, paths []string) bool {
	if len(paths) == 0 || !d.Sources.Links.GeneratedPage(paths[0]) || d.Root == "" {
		return false
	}
	for _, p := range paths {
		if fileExists(filepath.Join(d.Root, filepath.FromSlash(p))) {
			return false
		}
	}
	return true
}

// repositoryRoot is the nearest folder at or above dir holding .git, or "".
func repositoryRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// hugoLookup reports whether a link resolves as Hugo's page lookup does: a ref shortcode, or
// in a Hugo site ([sources.links] site = "hugo") any link written as a route.
func hugoLookup(d *project.Descriptor, ld linkDest) bool {
	if ld.fromRoots {
		return true
	}
	dest, _ := ld.path()
	return d.Sources.Links.HugoSite() && path.Ext(path.Base(dest)) == ""
}

// linkPaths is linkFrom's path work: the candidate files, the anchor, and the bases (the
// destination joined to each folder it may be relative to) the candidates were made from.
func linkPaths(d *project.Descriptor, rel string, ld linkDest) (paths []string, anchor string, bases []string, ok bool) {
	dest := strings.TrimSpace(ld.dest)
	if dest == "" || strings.HasPrefix(dest, "#") || externalDest.MatchString(dest) || slices.Contains(d.Sources.Links.Ignore, dest) {
		return nil, "", nil, false
	}
	dest, anchor = ld.path()
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u
	}
	ext := strings.ToLower(path.Ext(path.Base(dest)))
	code := d.Sources.Links.CodeOn()
	codeFile := code && CodeFormatOf(path.Base(dest)).IsCode()
	if ext != "" && !linkExtensions[ext] && !codeFile {
		return nil, "", nil, false
	}
	bases = linkBases(d, rel, dest, ext, ld)
	for _, b := range bases {
		paths = appendCandidates(d, paths, b, ext, code, codeFile)
	}
	return paths, anchor, bases, len(paths) > 0
}

// linkBases are the paths a destination may name, before extensions and index files: joined
// to the page's folder (and, in a Docusaurus site, to its URL's), a site route's folder, and
// for a root-relative link or a Hugo lookup the project root and each content root; never
// above the project.
func linkBases(d *project.Descriptor, rel, dest, ext string, ld linkDest) []string {
	var bases []string
	rooted := strings.HasPrefix(dest, "/")
	if !rooted {
		bases = append(bases, path.Join(path.Dir(rel), dest))
		if d.Sources.Links.Site == "mkdocs" && ext == "" && !indexPage(rel) && (d.MkDocs == nil || d.MkDocs.DirectoryURLs) {
			// MkDocs serves a/b.md at a/b/: a link written as a URL there is relative to it,
			// so ../c names a/c, as the built site resolves it.
			if b := path.Join(strings.TrimSuffix(rel, path.Ext(rel)), dest); b != bases[0] {
				bases = append(bases, b)
			}
		}
		if u, ok := pageURL(d, rel); ok && ext == "" && d.Sources.Links.DocusaurusSite() {
			// A link written as a URL is relative to the page's URL, which can climb out of
			// the folder serving the page into another docs plugin's.
			if folder, rest, ok := d.Sources.Links.RouteBase(path.Join(path.Dir(u), dest)); ok {
				if b := path.Join(folder, rest); b != bases[0] {
					bases = append(bases, b)
				}
			}
		}
	} else if folder, rest, ok := d.Sources.Links.RouteBase(dest); ok {
		bases = append(bases, path.Join(folder, rest)) // a site route: the folder its prefix serves
	}
	if rooted || hugoLookup(d, ld) {
		// A root-relative link names the project root (GitHub) or a content root (Hugo,
		// Docusaurus routes).
		if rooted {
			bases = append(bases, path.Clean(strings.TrimPrefix(dest, "/")))
		}
		for _, r := range d.Sources.ContentRoots {
			bases = append(bases, path.Join(r, strings.TrimPrefix(dest, "/")))
		}
	}
	return slices.DeleteFunc(bases, func(b string) bool { return b == ".." || strings.HasPrefix(b, "../") || b == "." })
}

// appendCandidates adds the files a base may be: itself when it has an extension, else the
// page files Docusaurus and Hugo write extension-less links to, under a content root; and a
// code file's file node or a folder's package node under a code root.
func appendCandidates(d *project.Descriptor, paths []string, b, ext string, code, codeFile bool) []string {
	forms := []string{b}
	if ext == "" {
		forms = []string{b + ".md", b + ".mdx", b + "/_index.md", b + "/index.md", b + "/index.mdx", b + "/README.md"}
	}
	for _, f := range forms {
		if _, in := d.ContentRootOf(f); in && !slices.Contains(paths, f) && !codeFile {
			paths = append(paths, f)
		}
	}
	if code && (codeFile || ext == "") && inCodeRoot(d, b) && !slices.Contains(paths, b) {
		paths = append(paths, b)
	}
	return paths
}

// nodeLinks converts a node's link destinations and wiki references into links.
func nodeLinks(d *project.Descriptor, rel, source string, dests []linkDest, wiki []wikiRef) []graph.Link {
	var out []graph.Link
	for _, ld := range dests {
		l, ok := linkFrom(d, rel, ld)
		if !ok {
			continue
		}
		l.Source, l.Dest, l.At = source, ld.dest, problem.Location{Path: rel, Line: ld.line, Column: ld.column}
		out = append(out, l)
	}
	for _, w := range wiki {
		id, anchor, _ := strings.Cut(w.target, "#")
		if ValidTargetID(id) {
			out = append(out, graph.Link{Source: source, ID: id, Anchor: anchor, Dest: w.target,
				At: problem.Location{Path: rel, Line: w.line, Column: w.column}})
		}
	}
	return out
}

// mentionName is a backticked Go name: Name, pkg.Name, Type.Method or pkg.Type.Method.
var mentionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$`)

// appendMentions finds inline code spans on one line that may name a declaration: a dotted
// name, or a single name with an upper-case letter or an underscore (a plain lower-case word
// in backticks is prose as often as code); a pointer or address sign before it and a call
// after it (`*Server`, `NewServer(opts)`) are dropped. Spans that are project paths go to
// paths instead.
func appendMentions(mentions, paths []linkDest, line string, lineNo int) ([]linkDest, []linkDest) {
	for i := 0; i < len(line); i++ {
		if line[i] != '`' {
			continue
		}
		j := strings.IndexByte(line[i+1:], '`')
		if j < 0 {
			break
		}
		span := strings.TrimSpace(line[i+1 : i+1+j])
		at := linkDest{line: lineNo, column: utf8.RuneCountInString(line[:i+1]) + 1}
		i += j + 1
		if projectPath.MatchString(span) && !strings.HasPrefix(span, "./") && !strings.HasPrefix(span, "../") {
			at.dest = span
			paths = append(paths, at)
			continue
		}
		span = strings.TrimLeft(span, "*&")
		if k := strings.IndexByte(span, '('); k > 0 && strings.HasSuffix(span, ")") {
			span = span[:k]
		}
		if !mentionName.MatchString(span) {
			continue
		}
		if !strings.Contains(span, ".") && strings.ToLower(span) == span && !strings.Contains(span, "_") {
			continue
		}
		at.dest = span
		mentions = append(mentions, at)
	}
	return mentions, paths
}

// projectPath is a backticked path of two segments or more: `pkg/github/`, `cmd/server/main.go`.
var projectPath = regexp.MustCompile(`^[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?$`)

// mentionLinks turns a node's mentions into links, once each.
func mentionLinks(rel, source string, mentions []linkDest) []graph.Link {
	var out []graph.Link
	seen := map[string]bool{}
	for _, m := range mentions {
		if !seen[m.dest] {
			seen[m.dest] = true
			out = append(out, graph.Link{Source: source, Mention: m.dest, Dest: m.dest, At: problem.Location{Path: rel, Line: m.line, Column: m.column}})
		}
	}
	return out
}

// DeclarationKeys are the names a backticked mention may use for the code node id: Name and
// pkg.Name for a package-level declaration, Type.Method and pkg.Type.Method for a method.
// Packages, files and init functions have none.
func DeclarationKeys(id string) []string {
	pkg, name, ok := code.DeclName(id)
	if !ok || name == "init" || strings.HasPrefix(name, "init.") {
		return nil
	}
	// Name and pkg.Name; a method's Type.Method and pkg.Type.Method.
	return []string{name, pkg + "." + name}
}

// Declarations indexes code node IDs by the keys a mention may use.
type Declarations map[string][]string

// Add indexes one node ID.
func (ds Declarations) Add(id string) {
	for _, k := range DeclarationKeys(id) {
		ds[k] = append(ds[k], id)
	}
}

// Link keys name the lookups resolving a link asks of its targets (LinkTargets): "m:" and a
// mention's name (Declared), "i:" and a wiki link's ID or a route's (Has), "p:" and a candidate path
// (NodesIn), "r:" and a route's last segment (Routed, then NodesIn of the files it gives). A
// change of the targets touches the keys NodeKeys and FileKeys give; a file none of whose
// links' keys it touches resolves them as before, so a delta need not read it again.

// LinkKeys are the keys of links, sorted, each once.
func LinkKeys(links []graph.Link) []string {
	var keys []string
	for _, l := range links {
		switch {
		case l.Mention != "":
			keys = append(keys, "m:"+l.Mention)
		case l.ID != "":
			keys = append(keys, "i:"+l.ID)
		default:
			for _, p := range l.Paths {
				keys = append(keys, "p:"+p)
			}
			for _, r := range l.Routes {
				keys = append(keys, "r:"+RouteName(r))
			}
			for _, id := range l.RouteIDs {
				keys = append(keys, "i:"+id)
			}
			if l.Unique != "" {
				keys = append(keys, "r:"+RouteName(l.Unique))
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// NodeKeys are the keys whose answers change when the node id appears or goes.
func NodeKeys(id string) []string {
	keys := []string{"i:" + id}
	if graph.IsCode(id) {
		for _, k := range DeclarationKeys(id) {
			keys = append(keys, "m:"+k)
		}
	}
	return keys
}

// FileKeys are the keys whose answers change when the nodes of the file at path change.
func FileKeys(path string) []string {
	return []string{"p:" + path, "r:" + RouteName(RouteOf(path))}
}

// FileNode is a node as a link target sees it: its ID and anchor in its file.
type FileNode struct {
	ID, Anchor string
}

// LinkTargets answers the two questions link resolution asks of a graph: which nodes a file
// holds, and whether a node ID exists.
type LinkTargets interface {
	NodesIn(path string) []FileNode
	Has(id string) bool
	// Declared returns the code nodes a mention's name may mean.
	Declared(name string) []string
	// Unexported reports whether a code node is declared unexported (private to its
	// package or module), as its capabilities say.
	Unexported(id string) bool
	// Routed returns the files holding nodes whose route (RouteOf) ends in the segment name,
	// in path order.
	Routed(name string) []string
}

// RouteIndex keys files by the last segment of their route, for LinkTargets.Routed.
type RouteIndex map[string][]string

// NewRouteIndex indexes the files at paths, which it sorts.
func NewRouteIndex(paths []string) RouteIndex {
	slices.Sort(paths)
	idx := RouteIndex{}
	for _, p := range paths {
		name := RouteName(RouteOf(p))
		idx[name] = append(idx[name], p)
	}
	return idx
}

// pick names the node a link reaches in one file: the file's only node, or of several the
// one whose ID or anchor the link's anchor names ("" for none).
func pick(nodes []FileNode, anchor string) string {
	if len(nodes) == 1 {
		return nodes[0].ID
	}
	for _, n := range nodes {
		if anchor != "" && (n.ID == anchor || n.Anchor == anchor) {
			return n.ID
		}
	}
	return ""
}

// routeTarget resolves a link by its routes when none of its paths is a node file as written:
// a file whose route is one of them (case aside), else for a Hugo ref the one page anywhere
// whose route ends with it. Several such pages are ambiguous: the link names none of them.
func routeTarget(l graph.Link, t LinkTargets) (target string, ambiguous []string) {
	for _, r := range l.Routes {
		var same []string
		for _, p := range t.Routed(RouteName(r)) {
			if RouteOf(p) == r {
				same = append(same, p)
			}
		}
		for _, p := range sameLanguageFirst(same, l.At.Path) {
			if id := pick(t.NodesIn(p), l.Anchor); id != "" {
				return id, nil
			}
		}
	}
	if l.Unique == "" {
		return "", nil
	}
	// Translations of one page share its route: they are one hit, in the link's language.
	byRoute := map[string][]string{}
	var routes []string
	for _, p := range t.Routed(RouteName(l.Unique)) {
		if r := RouteOf(p); r == l.Unique || strings.HasSuffix(r, "/"+l.Unique) {
			if byRoute[r] == nil {
				routes = append(routes, r)
			}
			byRoute[r] = append(byRoute[r], p)
		}
	}
	switch len(routes) {
	case 0:
		return "", nil
	case 1:
		return pick(t.NodesIn(sameLanguageFirst(byRoute[routes[0]], l.At.Path)[0]), l.Anchor), nil
	}
	for _, r := range routes {
		ambiguous = append(ambiguous, byRoute[r][0])
	}
	return "", ambiguous
}

// resolveLink finds the node one link names (see ResolveLinks): target, or "" with the first
// candidate file that holds several nodes (several), or the pages a Hugo name fits
// (ambiguous).
func resolveLink(l graph.Link, t LinkTargets) (target, several string, ambiguous []string) {
	if l.ID != "" {
		if t.Has(l.ID) {
			return l.ID, "", nil
		}
		return "", "", nil
	}
	for _, p := range l.Paths {
		nodes := t.NodesIn(p)
		if len(nodes) > 1 && graph.IsCode(nodes[0].ID) {
			// A code file holds its file node first, then its declarations: name the file
			// (go:<import path>/<name>, or <prefix><path> for the other languages).
			nodes = slices.DeleteFunc(slices.Clone(nodes), func(n FileNode) bool {
				return !graph.IsCode(n.ID) || !strings.HasSuffix(n.ID, "/"+path.Base(p)) && !strings.HasSuffix(n.ID, ":"+p)
			})
		}
		if target = pick(nodes, l.Anchor); target != "" {
			return target, "", nil
		}
		if len(nodes) > 1 && several == "" {
			several = p
		}
	}
	for _, id := range l.RouteIDs {
		if several == "" && t.Has(id) {
			return id, "", nil
		}
	}
	if several == "" && len(l.Routes) > 0 {
		target, ambiguous = routeTarget(l, t)
	}
	return target, several, ambiguous
}

// Destination resolves one link destination written in the file at from, as a sync resolves
// a link there: the node it names and its anchor, or ok false for a destination that is no
// relation or names no node. hugoRef marks the argument of a ref or relref shortcode.
func Destination(d *project.Descriptor, from, dest string, hugoRef bool, t LinkTargets) (id, anchor string, ok bool) {
	l, ok := linkFrom(d, from, linkDest{dest: dest, fromRoots: hugoRef})
	if !ok {
		return "", "", false
	}
	l.At = problem.Location{Path: from}
	id, _, _ = resolveLink(l, t)
	return id, l.Anchor, id != ""
}

// ResolveLinks turns links into edges of the descriptor's link relation. A link names the
// first of its candidate files that holds nodes: the file's only node, or in a file of
// several records the one whose ID or anchor the link's anchor names. A link to nothing is a
// dangling_link problem, a warning unless [sources.links] makes it an error. A link from a
// node to itself is dropped.
func ResolveLinks(d *project.Descriptor, links []graph.Link, t LinkTargets) ([]graph.EdgeAt, []problem.Problem) {
	var edges []graph.EdgeAt
	var probs []problem.Problem
	rel := d.Sources.Links.Relation
	seen := map[graph.Edge]bool{}
	dangling := func(l graph.Link, format string, args ...any) {
		if l.Optional {
			return
		}
		p := problem.New(problem.DanglingLink, l.At, format, args...)
		if !d.Sources.Links.DanglingIsError() {
			p = problem.Warn(problem.DanglingLink, l.At, format, args...)
		}
		p.NodeID = l.Source
		probs = append(probs, p)
	}
	codeRel := d.Sources.Links.CodeRelation
	for _, l := range links {
		if l.Mention != "" {
			ids := t.Declared(l.Mention)
			// One declaration of the name outside tests, examples, old revisions and legacy
			// code is the one a document means; among several, the one exported.
			ids, standing := code.Meant(ids)
			if exported := slices.DeleteFunc(slices.Clone(ids), t.Unexported); len(exported) == 1 && len(ids) > 1 {
				ids = exported
			}
			switch {
			case len(ids) == 1 && ids[0] != l.Source:
				e := graph.Edge{Source: l.Source, Relation: codeRel, Target: ids[0]}
				if !seen[e] {
					seen[e] = true
					edges = append(edges, graph.EdgeAt{Edge: e, At: l.At})
				}
			case len(ids) > 1 && !l.Optional && standing == code.StandingPrimary:
				// Only ambiguity among the project's own code is the document's to fix: a name
				// that tests, examples or old revisions alone declare relates to none, quietly.
				shown := ids[:min(len(ids), 4)]
				p := problem.Warn(problem.AmbiguousMention, l.At, "node %s: `%s` names %d declarations (%s%s); it relates to none",
					l.Source, l.Mention, len(ids), strings.Join(shown, ", "), map[bool]string{true: ", ...", false: ""}[len(ids) > 4])
				p.NodeID = l.Source
				probs = append(probs, p)
			}
			continue
		}
		if l.ID != "" && !t.Has(l.ID) {
			dangling(l, "node %s: wiki link [[%s]] names no node", l.Source, l.Dest)
			continue
		}
		target, several, ambiguous := resolveLink(l, t)
		switch {
		case len(ambiguous) > 1:
			shown := ambiguous[:min(len(ambiguous), 4)]
			dangling(l, "node %s: link %q may name any of %d pages (%s%s); write more of its path", l.Source, l.Dest, len(ambiguous),
				strings.Join(shown, ", "), map[bool]string{true: ", ...", false: ""}[len(ambiguous) > 4])
		case target == "" && several != "":
			dangling(l, "node %s: link %q names %s, which holds several nodes; add #ID to say which", l.Source, l.Dest, several)
		case target == "":
			dangling(l, "node %s: link %q names no node (looked for %s)", l.Source, l.Dest, strings.Join(l.Paths, ", "))
		case target != l.Source:
			r := rel
			if graph.IsCode(target) {
				r = codeRel
			}
			e := graph.Edge{Source: l.Source, Relation: r, Target: target}
			if !seen[e] { // the first link to a node gives the edge its anchor
				seen[e] = true
				edges = append(edges, graph.EdgeAt{Edge: e, At: l.At, Anchor: l.Anchor})
			}
		}
	}
	return edges, probs
}
