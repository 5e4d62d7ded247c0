package project

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/tomlpos"
	"github.com/docforge/docforge/source/golang"
)

// FileName is the descriptor's name at the project root.
const FileName = "docforge.toml"

// StateDir is the project-relative directory that holds disposable state (the index,
// receipts, changesets). `docforge init` adds it to .gitignore.
const StateDir = ".docforge"

// SchemaVersion is the only descriptor schema this package reads.
const SchemaVersion = 1

// Defaults and ceilings for [limits].
const (
	DefaultMaxResults       = 200
	DefaultMaxResponseChars = 65536
	// MinResponseChars is the smallest MCP output limit a descriptor may set: the smallest at
	// which every tool answers a normal page with its full identity (docs/project-format.md).
	MinResponseChars    = 4096
	DefaultMaxFileBytes = 4 << 20
	CeilingMaxResults   = 10000
	CeilingMaxFileBytes = 64 << 20
)

// DefaultAuthorities returns the authority vocabulary used when [authority] is absent.
func DefaultAuthorities() []string { return []string{"normative", "informative", "draft"} }

// ProposalOperations is the closed set of operations a writer may be granted.
func ProposalOperations() []string {
	return []string{"create", "update", "move", "relationship_update", "delete"}
}

// Descriptor is a validated docforge.toml.
type Descriptor struct {
	SchemaVersion int               `toml:"schema_version"`
	Project       Identity          `toml:"project"`
	Sources       Sources           `toml:"sources"`
	Relations     Vocabulary        `toml:"relations"`
	Authority     Vocabulary        `toml:"authority"`
	Families      map[string]Family `toml:"families"`
	Limits        Limits            `toml:"limits"`
	Views         []View            `toml:"views"`
	Render        RenderSettings    `toml:"render"`
	Proposals     Proposals         `toml:"proposals"`
	History       History           `toml:"history"`

	// Root is the absolute, symlink-resolved project root. It is not part of the file.
	Root string `toml:"-"`
	// Hash is the SHA-256 of the descriptor file's bytes, bound into every index; with an
	// MkDocs site, of its configuration's too, whose nav titles pages.
	Hash string `toml:"-"`
	// MkDocs is the site's configuration when [sources.links] site is "mkdocs" and the root
	// holds one (Load reads it).
	MkDocs *MkDocs `toml:"-"`
}

// Identity names the project.
type Identity struct {
	ID   string `toml:"id"`
	Name string `toml:"name"`
}

// Sources says where canonical sources live. Roots are project-relative, slash-separated.
type Sources struct {
	ContentRoots []string `toml:"content_roots"`
	CodeRoots    []string `toml:"code_roots"`
	Exclude      []string `toml:"exclude"`
	Defaults     Defaults `toml:"defaults"`
	Links        Links    `toml:"links"`
}

// Defaults fill in the node fields a Markdown file does not state, so that a documentation
// tree written for another tool (Hugo, Docusaurus, GitHub) becomes a graph without edits.
// Explicit fields in a file always win.
type Defaults struct {
	// ID is "path" to derive a missing id from the file's path, or "" to require it.
	ID string `toml:"id"`
	// Kind and Family are used when a file names none.
	Kind   string `toml:"kind"`
	Family string `toml:"family"`
	// FamilyFromFolder names the family after the file's top-level folder under its content
	// root, when that family is declared; Family covers the rest.
	FamilyFromFolder bool `toml:"family_from_folder"`
	// ForeignFields is "error" (the default) or "ignore": whether front-matter keys that are
	// not node fields (date, weight, sidebar_position, ...) are problems.
	ForeignFields string `toml:"foreign_fields"`
	// LocalIDs reads a front matter id as Docusaurus does, as the page's name within its
	// folder under the content root: docs/admin/acl.md with id enable-acl is
	// docs/admin/enable-acl, so that a page's copies in other versions' folders stay apart.
	LocalIDs bool `toml:"local_ids"`
	// StripNumberPrefixes drops a number prefix from each segment of a derived ID as
	// Docusaurus does for its doc IDs and URLs: docs/01-start/02-install.md is
	// docs/start/install. A date or version (2024-01-05-notes, 1.2-changes) is no prefix.
	StripNumberPrefixes bool `toml:"strip_number_prefixes"`
}

// DerivesIDs reports whether a missing id comes from the file path.
func (d Defaults) DerivesIDs() bool { return d.ID == DeriveFromPath }

// IgnoresForeignFields reports whether unknown front-matter keys are skipped.
func (d Defaults) IgnoresForeignFields() bool { return d.ForeignFields == "ignore" }

// DeriveFromPath is the [sources.defaults] id value that derives IDs from paths.
const DeriveFromPath = "path"

// Links turns ordinary Markdown links between content files into relations.
type Links struct {
	// Enabled resolves links; it is on when the table is present unless set false, and off
	// when the table is absent.
	Enabled *bool `toml:"enabled"`
	// Relation is the relation a link becomes; default relates_to.
	Relation string `toml:"relation"`
	// Dangling is "warning" (the default) or "error": how a link to a missing file counts.
	Dangling string `toml:"dangling"`
	// Code makes links to Go files and folders, and backticked Go identifiers that name
	// exactly one declaration, relations to code nodes; on by default when code roots exist.
	Code *bool `toml:"code"`
	// CodeRelation is the relation those become; default documents (the link relation when
	// the project does not allow documents).
	CodeRelation string `toml:"code_relation"`
	// Site is how a link written as a route (no extension) finds its page: "github" (the
	// default: relative to the file; a leading / from the project root, then each content
	// root), "hugo" (as Hugo's page lookup: relative to the page, then from each content
	// root, case aside, then by a unique page or bundle name) or "docusaurus" (as a URL:
	// relative to the page's URL, an index page's being its folder, then by the page whose
	// ID, which Docusaurus derives its URL from, the route spells) or "mkdocs" (relative to
	// the file, then, with MkDocs' directory URLs, to the page's URL: a/b.md is served at
	// a/b/; the nav of mkdocs.yml at the project root titles the pages it names). Hugo ref
	// shortcodes resolve the Hugo way either way.
	Site string `toml:"site"`
	// Ignore are destinations, exactly as written, that are no links to judge: what a site's
	// own link render hook gives meaning to (Hugo's documentation writes [term](g) for a
	// glossary entry).
	Ignore []string `toml:"ignore"`
	// Generated are the folders (or pages), relative to the project root, that the site's
	// build fills with pages the tree does not hold (MkDocs' API reference from docstrings):
	// a link to a missing page there names a generated page, not a missing one.
	Generated []string `toml:"generated"`
	// Routes map a site's URL path prefixes to the folders their pages come from, as a
	// Docusaurus docs plugin's routeBasePath and path do ("/graphql" is docs-graphql): a
	// root-relative link under a prefix names a page of its folder first.
	Routes map[string]string `toml:"routes"`
}

// RouteBase is the folder a root-relative link's path p (starting with /) names through the
// longest route prefix it starts with, and the rest of p below it; ok is false when no route
// prefix covers p.
func (l Links) RouteBase(p string) (folder, rest string, ok bool) {
	best := ""
	for prefix := range l.Routes {
		base := strings.TrimSuffix(prefix, "/")
		if (p == base || strings.HasPrefix(p, base+"/") || base == "") && (!ok || len(base) > len(best)) {
			best, folder, ok = base, l.Routes[prefix], true
		}
	}
	return folder, strings.TrimPrefix(strings.TrimPrefix(p, best), "/"), ok
}

// RouteOf is the route prefix serving the file at the project-relative path p, and the
// folder it serves from: the longest routes folder holding p. ok is false when none does.
func (l Links) RouteOf(p string) (prefix, folder string, ok bool) {
	for pr, f := range l.Routes {
		if strings.HasPrefix(p, f+"/") && len(f) > len(folder) {
			prefix, folder, ok = pr, f, true
		}
	}
	return prefix, folder, ok
}

// GeneratedPage reports whether the project-relative path p is in a folder (or is a page)
// the site's build generates.
func (l Links) GeneratedPage(p string) bool {
	for _, g := range l.Generated {
		if p == g || g == "." || strings.HasPrefix(p, g+"/") {
			return true
		}
	}
	return false
}

// HugoSite reports whether route links resolve as Hugo's page lookup does.
func (l Links) HugoSite() bool { return l.Site == "hugo" }

// DocusaurusSite reports whether route links resolve as Docusaurus serves its pages.
func (l Links) DocusaurusSite() bool { return l.Site == "docusaurus" }

// CodeOn reports whether links and mentions reach code nodes.
func (l Links) CodeOn() bool { return l.On() && l.Code != nil && *l.Code }

// On reports whether links become relations.
func (l Links) On() bool { return l.Enabled != nil && *l.Enabled }

// DanglingIsError reports whether a dangling link blocks publication.
func (l Links) DanglingIsError() bool { return l.Dangling == "error" }

// Vocabulary is a closed list of allowed names.
type Vocabulary struct {
	Allowed []string `toml:"allowed"`
}

// Family is a node family and the kinds it allows.
type Family struct {
	Kinds []string `toml:"kinds"`
}

// Limits bounds results and inputs.
type Limits struct {
	MaxResults       int   `toml:"max_results" json:"max_results"`
	MaxResponseChars int   `toml:"max_response_chars" json:"max_response_chars"`
	MaxFileBytes     int64 `toml:"max_file_bytes" json:"max_file_bytes"`
}

// View is a declared render output.
type View struct {
	ID       string   `toml:"id" json:"id"`
	Title    string   `toml:"title" json:"title"`
	Families []string `toml:"families" json:"families"`
	Kinds    []string `toml:"kinds" json:"kinds"`
	Tags     []string `toml:"tags" json:"tags"`
	Output   string   `toml:"output" json:"output"`
}

// RenderSettings are the project's choices for rendered views.
type RenderSettings struct {
	// RawHTML passes raw HTML in Markdown bodies through to rendered pages. Off by default:
	// a body's HTML is then shown as text, so no committed file can put script in a page.
	RawHTML bool `toml:"raw_html"`
}

// History bounds the git history indexed as evidence beside the graph (index/history).
type History struct {
	// Enabled indexes history when the project is in a git repository with history; default
	// true.
	Enabled *bool `toml:"enabled"`
	// MaxCommits is how many first-parent commits back from HEAD are indexed; default 5000.
	MaxCommits int `toml:"max_commits"`
	// MaxAgeDays leaves out commits older than this many days before HEAD's; default 730.
	MaxAgeDays int `toml:"max_age_days"`
}

// History window defaults and ceilings.
const (
	DefaultHistoryCommits = 5000
	CeilingHistoryCommits = 100000
	DefaultHistoryDays    = 730
	CeilingHistoryDays    = 36500
)

// On reports whether history is indexed.
func (h History) On() bool { return h.Enabled == nil || *h.Enabled }

// Proposals configures isolated changesets.
type Proposals struct {
	ChangesetRoot string    `toml:"changeset_root"`
	PreviewRoot   string    `toml:"preview_root"`
	Writers       []Writer  `toml:"writers"`
	Appliers      []Applier `toml:"appliers"`
}

// Writer is a declared proposal writer and the operations it may queue.
type Writer struct {
	ID         string   `toml:"id"`
	Operations []string `toml:"operations"`
}

// Applier is a declared canonical applier.
type Applier struct {
	ID string `toml:"id"`
}

// HasRelation reports whether rel is in the project's relation vocabulary.
func (d *Descriptor) HasRelation(rel string) bool { return slices.Contains(d.Relations.Allowed, rel) }

// HasAuthority reports whether a is in the project's authority vocabulary.
func (d *Descriptor) HasAuthority(a string) bool { return slices.Contains(d.Authority.Allowed, a) }

// FamilyAllows reports whether the family exists and whether it allows kind.
func (d *Descriptor) FamilyAllows(family, kind string) (familyOK, kindOK bool) {
	f, ok := d.Families[family]
	if !ok {
		return false, false
	}
	return true, slices.Contains(f.Kinds, kind)
}

// FamilyNames returns the declared family names, sorted.
func (d *Descriptor) FamilyNames() []string {
	names := make([]string, 0, len(d.Families))
	for n := range d.Families {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// StatePath returns the absolute path of a project-relative path under the state directory.
func (d *Descriptor) StatePath(elem ...string) string {
	return filepath.Join(append([]string{d.Root, StateDir}, elem...)...)
}

// Find walks up from dir to the nearest directory holding docforge.toml and returns it.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find project from %s: %w", dir, err)
	}
	for cur := abs; ; {
		if st, err := os.Stat(filepath.Join(cur, FileName)); err == nil && st.Mode().IsRegular() {
			return cur, nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", problem.Errorf(problem.DescriptorNotFound, "no %s in %s or any parent directory", FileName, abs)
		}
		cur = parent
	}
}

var (
	projectIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	namePattern      = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	viewIDPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
)

// MaxRootBytes bounds a project root's path: SQLite opens no file whose path passes
// sqlitePathLimit bytes, and the longest path DocForge keeps under the root (an index delta's
// journal, .docforge/index/delta-GENERATION-PID-HASH.db-journal) takes up to 100 more.
const MaxRootBytes = sqlitePathLimit - 100

// sqlitePathLimit is SQLite's longest file path (SQLITE_MAX_PATHNAME, as it is built).
const sqlitePathLimit = 512

// Load reads and validates the descriptor of the project rooted at root. It returns the
// descriptor only when there are no error-severity problems; problems is every problem found
// (bounded). err is set for failures to read at all (no descriptor, unreadable file, a root
// longer than MaxRootBytes).
func Load(root string) (d *Descriptor, problems []problem.Problem, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("load descriptor: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, problem.Wrap(problem.DescriptorNotFound, err, "project root %s does not exist", abs)
		}
		return nil, nil, fmt.Errorf("load descriptor: resolve %s: %w", abs, err)
	}
	if len(real) > MaxRootBytes {
		pe := problem.Errorf(problem.InvalidArgument, "the project root is %d bytes long; DocForge's index files under it would pass SQLite's %d-byte limit on a file's path, so a root holds at most %d bytes", len(real), sqlitePathLimit, MaxRootBytes)
		pe.Problem.Remediation = "move the project to a shorter path (a symlink does not help: the root is resolved)"
		return nil, nil, pe
	}
	file := filepath.Join(real, FileName)
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, problem.Wrap(problem.DescriptorNotFound, err, "no %s in %s", FileName, real)
		}
		return nil, nil, problem.Wrap(problem.UnreadableFile, err, "read %s", file)
	}
	d, problems = Parse(data, real)
	if d != nil && d.Sources.Links.Site == "mkdocs" {
		if d.MkDocs = ReadMkDocs(real); d.MkDocs != nil {
			d.Hash = sha256Hex(append(append(slices.Clip(data), 0), d.MkDocs.Hash...))
		}
	}
	return d, problems, nil
}

// ConfigFiles are the project-relative files the descriptor's meaning depends on:
// docforge.toml, and an MkDocs site's configuration (either name, so that creating one is
// noticed). A change to any of them is a change of the descriptor.
func (d *Descriptor) ConfigFiles() []string {
	files := []string{FileName}
	if d.Sources.Links.Site == "mkdocs" {
		files = append(files, MkDocsNames()...)
	}
	return files
}

// Parse validates descriptor bytes for a project rooted at root (absolute). It stats the
// declared roots to confine them; it reads nothing else.
func Parse(data []byte, root string) (*Descriptor, []problem.Problem) {
	v := &validator{root: root, pos: tomlpos.Scan(string(data), 1)}
	at := func(line, col int) problem.Location { return problem.Location{Path: FileName, Line: line, Column: col} }
	if !isUTF8(data) {
		v.list.Add(problem.New(problem.NotUTF8, at(1, 1), "%s is not valid UTF-8", FileName))
		return nil, v.list.Problems()
	}
	var d Descriptor
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&d)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			v.list.Add(problem.New(problem.MalformedDescriptor, at(pe.Position.Line, pe.Position.Col), "%s", pe.Message))
		} else {
			v.list.Add(problem.New(problem.MalformedDescriptor, at(1, 1), "%v", err))
		}
		return nil, v.list.Problems()
	}
	for _, k := range md.Undecoded() {
		v.add(problem.UnknownField, k.String(), "unknown descriptor field %q", k.String())
	}
	d.Root = root
	d.Hash = sha256Hex(data)
	v.check(&d, md)
	if v.list.Errors() > 0 {
		return nil, v.list.Problems()
	}
	return &d, v.list.Problems()
}

type validator struct {
	root string
	pos  *tomlpos.Index
	list problem.List
}

// add reports a problem at the key path's position.
func (v *validator) add(c problem.Code, key, format string, args ...any) {
	p, _ := v.pos.Key(key)
	v.list.Add(problem.New(c, problem.Location{Path: FileName, Line: p.Line, Column: p.Column}, format, args...))
}

// addValue reports a problem at the i-th string value of the key path.
func (v *validator) addValue(c problem.Code, key string, i int, format string, args ...any) {
	p, _ := v.pos.Value(key, i)
	v.list.Add(problem.New(c, problem.Location{Path: FileName, Line: p.Line, Column: p.Column}, format, args...))
}

func (v *validator) check(d *Descriptor, md toml.MetaData) {
	if d.SchemaVersion != SchemaVersion {
		v.add(problem.UnsupportedSchemaVersion, "schema_version", "schema_version is %d; this DocForge reads schema version %d", d.SchemaVersion, SchemaVersion)
	}
	if !projectIDPattern.MatchString(d.Project.ID) {
		v.add(problem.InvalidDescriptor, "project.id", "project.id %q must match [a-z0-9][a-z0-9._-]*", d.Project.ID)
	}
	if d.Project.Name == "" {
		d.Project.Name = d.Project.ID
	}

	// A code-only project (code roots, no content roots) is valid: its graph is the Go
	// adapter's alone.
	if len(d.Sources.ContentRoots) == 0 && len(d.Sources.CodeRoots) == 0 {
		v.add(problem.InvalidDescriptor, "sources", "sources.content_roots and sources.code_roots are both empty; declare a directory of Markdown/TOML nodes or of Go code")
	}
	d.Sources.ContentRoots = v.roots("sources.content_roots", d.Sources.ContentRoots, true)
	d.Sources.CodeRoots = v.roots("sources.code_roots", d.Sources.CodeRoots, true)
	for i, g := range d.Sources.Exclude {
		if err := ValidGlob(g); err != nil {
			v.addValue(problem.InvalidDescriptor, "sources.exclude", i, "exclude pattern %q: %v", g, err)
		}
	}

	v.names("relations.allowed", d.Relations.Allowed, "relation")
	v.defaults(d, md.IsDefined("sources", "links"), md.IsDefined("sources", "links", "enabled"))
	if len(d.Sources.CodeRoots) > 0 {
		var missing []string
		for _, rel := range golang.Relations() {
			if !d.HasRelation(rel) {
				missing = append(missing, strconv.Quote(rel))
			}
		}
		if len(missing) > 0 {
			v.add(problem.UndeclaredRelation, "sources.code_roots",
				"the Go adapter relates code nodes with %s, which [relations].allowed does not list; add them, or remove code_roots", strings.Join(missing, ", "))
		}
	}
	if _, reserved := d.Families[golang.Family]; reserved {
		v.add(problem.InvalidDescriptor, "families."+golang.Family, "family name %q is reserved for code nodes made by the Go adapter; rename it", golang.Family)
	}
	if len(d.Authority.Allowed) == 0 {
		d.Authority.Allowed = DefaultAuthorities()
	} else {
		v.names("authority.allowed", d.Authority.Allowed, "authority")
	}

	if len(d.Families) == 0 && len(d.Sources.ContentRoots) > 0 {
		v.add(problem.InvalidDescriptor, "families", "no [families.NAME] declared; every node belongs to a declared family")
	}
	for _, name := range d.FamilyNames() {
		key := "families." + name
		if !namePattern.MatchString(name) {
			v.add(problem.InvalidDescriptor, key, "family name %q must match [a-z][a-z0-9_]*", name)
		}
		if len(d.Families[name].Kinds) == 0 {
			v.add(problem.InvalidDescriptor, key, "family %q declares no kinds", name)
		}
		v.names(key+".kinds", d.Families[name].Kinds, "kind")
	}

	v.limits(&d.Limits)
	v.history(&d.History)
	v.views(d)
	v.proposals(&d.Proposals)
}

// defaults checks [sources.defaults], then [sources.links].
func (v *validator) defaults(d *Descriptor, linksDeclared, enabledDeclared bool) {
	df := &d.Sources.Defaults
	if df.ID != "" && df.ID != DeriveFromPath {
		v.add(problem.InvalidDescriptor, "sources.defaults.id", "sources.defaults.id is %q; use %q to derive IDs from file paths, or leave it out", df.ID, DeriveFromPath)
	}
	if df.Family != "" {
		if _, ok := d.Families[df.Family]; !ok {
			v.add(problem.UnknownFamily, "sources.defaults.family", "sources.defaults.family %q is not declared (declared: %s)", df.Family, strings.Join(d.FamilyNames(), ", "))
		} else if df.Kind != "" && !slices.Contains(d.Families[df.Family].Kinds, df.Kind) {
			v.add(problem.UnknownKind, "sources.defaults.kind", "sources.defaults.kind %q is not allowed in family %q (allowed: %s)", df.Kind, df.Family, strings.Join(d.Families[df.Family].Kinds, ", "))
		}
	}
	if df.DerivesIDs() && (df.Family == "" || df.Kind == "") {
		v.add(problem.InvalidDescriptor, "sources.defaults", "sources.defaults derives IDs but names no default family and kind; set family and kind so that files stating neither still validate")
	}
	v.choice("sources.defaults.foreign_fields", &df.ForeignFields, "error", "ignore")
	v.links(d, linksDeclared, enabledDeclared)
}

// links checks [sources.links], filling in its defaults: on when the table is declared
// without enabled, relates_to links, links to code on with code roots, as documents
// relations where the vocabulary has them.
func (v *validator) links(d *Descriptor, linksDeclared, enabledDeclared bool) {
	l := &d.Sources.Links
	if linksDeclared && !enabledDeclared {
		on := true
		l.Enabled = &on
	}
	if l.Relation == "" {
		l.Relation = "relates_to"
	}
	if l.On() && !d.HasRelation(l.Relation) {
		v.add(problem.UndeclaredRelation, "sources.links", "links become %q relations, which [relations].allowed does not list; add it, or set sources.links.relation to a declared relation", l.Relation)
	}
	l.Generated = v.roots("sources.links.generated", l.Generated, false)
	for prefix, folder := range l.Routes {
		if !strings.HasPrefix(prefix, "/") {
			v.add(problem.InvalidDescriptor, "sources.links.routes", "route prefix %q must start with /, as a site's URL paths do", prefix)
			continue
		}
		if clean, ok := v.confined("sources.links.routes", folder, false); ok {
			l.Routes[prefix] = clean
		}
	}
	v.choice("sources.links.dangling", &l.Dangling, "warning", "error")
	v.choice("sources.links.site", &l.Site, "github", "hugo", "docusaurus", "mkdocs")
	if l.Code == nil {
		on := len(d.Sources.CodeRoots) > 0
		l.Code = &on
	}
	switch {
	case l.CodeRelation == "" && d.HasRelation("documents"):
		l.CodeRelation = "documents"
	case l.CodeRelation == "":
		l.CodeRelation = l.Relation
	case l.CodeOn() && !d.HasRelation(l.CodeRelation):
		v.add(problem.UndeclaredRelation, "sources.links.code_relation", "links to code become %q relations, which [relations].allowed does not list; add it, or set sources.links.code_relation to a declared relation", l.CodeRelation)
	}
}

// choice checks a closed-vocabulary setting at key: empty becomes the first (default) of
// allowed; anything outside allowed is reported.
func (v *validator) choice(key string, value *string, allowed ...string) {
	switch {
	case *value == "":
		*value = allowed[0]
	case !slices.Contains(allowed, *value):
		quoted := make([]string, len(allowed))
		for i, a := range allowed {
			quoted[i] = strconv.Quote(a)
		}
		v.add(problem.InvalidDescriptor, key, "%s is %q; use %s", key, *value, strings.Join(quoted, " or "))
	}
}

func (v *validator) history(h *History) {
	count(v, "history.max_commits", &h.MaxCommits, DefaultHistoryCommits, CeilingHistoryCommits)
	count(v, "history.max_age_days", &h.MaxAgeDays, DefaultHistoryDays, CeilingHistoryDays)
}

func (v *validator) limits(l *Limits) {
	count(v, "limits.max_results", &l.MaxResults, DefaultMaxResults, CeilingMaxResults)
	if l.MaxResponseChars == 0 {
		l.MaxResponseChars = DefaultMaxResponseChars
	} else if l.MaxResponseChars < MinResponseChars {
		v.add(problem.InvalidDescriptor, "limits.max_response_chars", "limits.max_response_chars is %d; use at least %d", l.MaxResponseChars, MinResponseChars)
	}
	count(v, "limits.max_file_bytes", &l.MaxFileBytes, DefaultMaxFileBytes, CeilingMaxFileBytes)
}

// count checks a whole-number setting at key: 0 (unset) becomes def; anything outside 1 to
// ceiling is reported.
func count[T int | int64](v *validator, key string, value *T, def, ceiling T) {
	switch {
	case *value == 0:
		*value = def
	case *value < 1 || *value > ceiling:
		v.add(problem.InvalidDescriptor, key, "%s is %d; use 1 to %d", key, *value, ceiling)
	}
}

func (v *validator) views(d *Descriptor) {
	seen := map[string]bool{}
	for i, view := range d.Views {
		key := fmt.Sprintf("views.%d", i)
		if !viewIDPattern.MatchString(view.ID) {
			v.add(problem.InvalidDescriptor, key+".id", "view id %q must match [a-z0-9][a-z0-9._-]*", view.ID)
		} else if seen[view.ID] {
			v.add(problem.InvalidDescriptor, key+".id", "view id %q is declared twice", view.ID)
		}
		seen[view.ID] = true
		for j, f := range view.Families {
			if _, ok := d.Families[f]; !ok {
				v.addValue(problem.UnknownFamily, key+".families", j, "view %q selects undeclared family %q", view.ID, f)
			}
		}
		if view.Output == "" {
			v.add(problem.InvalidDescriptor, key, "view %q has no output path", view.ID)
		} else if clean, ok := v.confined(key+".output", view.Output, false); ok {
			d.Views[i].Output = clean
		}
	}
}

func (v *validator) proposals(p *Proposals) {
	if p.ChangesetRoot == "" {
		p.ChangesetRoot = StateDir + "/changesets"
	}
	if p.PreviewRoot == "" {
		p.PreviewRoot = StateDir + "/previews"
	}
	if clean, ok := v.confined("proposals.changeset_root", p.ChangesetRoot, false); ok {
		p.ChangesetRoot = clean
	}
	if clean, ok := v.confined("proposals.preview_root", p.PreviewRoot, false); ok {
		p.PreviewRoot = clean
	}
	ids := map[string]bool{}
	for i, w := range p.Writers {
		key := fmt.Sprintf("proposals.writers.%d", i)
		if !viewIDPattern.MatchString(w.ID) || ids[w.ID] {
			v.add(problem.InvalidDescriptor, key+".id", "writer id %q must be unique and match [a-z0-9][a-z0-9._-]*", w.ID)
		}
		ids[w.ID] = true
		for j, op := range w.Operations {
			if !slices.Contains(ProposalOperations(), op) {
				v.addValue(problem.InvalidDescriptor, key+".operations", j, "writer %q: unknown operation %q; use %s", w.ID, op, strings.Join(ProposalOperations(), ", "))
			}
		}
	}
	for i, a := range p.Appliers {
		key := fmt.Sprintf("proposals.appliers.%d", i)
		if !viewIDPattern.MatchString(a.ID) || ids[a.ID] {
			v.add(problem.InvalidDescriptor, key+".id", "applier id %q must be unique and match [a-z0-9][a-z0-9._-]*", a.ID)
		}
		ids[a.ID] = true
	}
}

// names checks a vocabulary list: well-formed and without duplicates.
func (v *validator) names(key string, list []string, what string) {
	seen := map[string]bool{}
	for i, n := range list {
		switch {
		case !namePattern.MatchString(n):
			v.addValue(problem.InvalidDescriptor, key, i, "%s name %q must match [a-z][a-z0-9_]*", what, n)
		case seen[n]:
			v.addValue(problem.InvalidDescriptor, key, i, "%s %q is listed twice", what, n)
		}
		seen[n] = true
	}
}

// roots cleans and confines a list of root directories; mustExist requires each to be a
// directory. It returns the cleaned list (without the bad entries).
func (v *validator) roots(key string, list []string, mustExist bool) []string {
	var out []string
	for i, r := range list {
		clean, ok := v.confinedAt(key, i, r, mustExist)
		if ok && !slices.Contains(out, clean) {
			out = append(out, clean)
		}
	}
	return out
}

func (v *validator) confined(key, rel string, mustExist bool) (string, bool) {
	return v.confinedAt(key, 0, rel, mustExist)
}

// confinedAt checks that rel is a relative path that stays inside the project root, also after
// resolving symlinks of whatever part of it exists.
func (v *validator) confinedAt(key string, i int, rel string, mustExist bool) (string, bool) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		v.addValue(problem.PathEscape, key, i, "%q must be a path relative to the project root", rel)
		return "", false
	}
	clean := path.Clean(filepath.ToSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		v.addValue(problem.PathEscape, key, i, "%q leaves the project root", rel)
		return "", false
	}
	abs := filepath.Join(v.root, filepath.FromSlash(clean))
	real, err := resolveExisting(abs)
	if err != nil {
		v.addValue(problem.UnreadableFile, key, i, "%q: %v", rel, err)
		return "", false
	}
	if !Within(v.root, real) {
		v.addValue(problem.PathEscape, key, i, "%q resolves to %s, outside the project root", rel, real)
		return "", false
	}
	if mustExist {
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			v.addValue(problem.InvalidDescriptor, key, i, "%q is not a directory in the project", rel)
			return "", false
		}
	}
	return clean, true
}

// resolveExisting resolves symlinks in the longest existing prefix of abs and appends the rest.
func resolveExisting(abs string) (string, error) {
	rest := ""
	for cur := abs; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Within reports whether path p is root or lies below it. Both must be clean and absolute.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// ContentRootOf returns the content root holding the project-relative path rel (the deepest
// one, when roots nest) and whether there is one.
func (d *Descriptor) ContentRootOf(rel string) (string, bool) {
	return deepestRoot(d.Sources.ContentRoots, rel)
}

// RootOf returns the content or code root holding the project-relative path rel (the
// deepest one, when roots nest) and whether there is one.
func (d *Descriptor) RootOf(rel string) (string, bool) {
	return deepestRoot(append(slices.Clone(d.Sources.ContentRoots), d.Sources.CodeRoots...), rel)
}

func deepestRoot(roots []string, rel string) (string, bool) {
	best, found := "", false
	for _, r := range roots {
		if (r == "." || strings.HasPrefix(rel, r+"/")) && (!found || len(r) > len(best) || best == ".") {
			best, found = r, true
		}
	}
	return best, found
}
