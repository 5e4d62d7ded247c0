package adopt

import (
	"bufio"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/project"
)

// Survey is what an existing tree holds.
type Survey struct {
	// Roots are the chosen content roots, project-relative.
	Roots []string
	// Files counts Markdown files under the roots; TOML, YAML and None count them by their
	// front matter (+++, --- or none).
	Files, TOML, YAML, None int
	// Folders are the top-level folders under the roots that hold Markdown, each becoming a
	// family when its name can be one.
	Folders []string
	// Generator names the site tool whose layout was recognised ("hugo", "docusaurus",
	// "mkdocs"), or "".
	Generator string
	// GoModule is the module path of the root go.mod, or "" when the tree is no Go module.
	// A Go module is adopted whole: its code through the Go adapter (CodeRoots), and every
	// Markdown file in it, not only a docs folder.
	GoModule string
	// CodeRoots are the declared code roots; GoPackages and GoFiles count what the go tool
	// would build under them (vendor, testdata and _/. folders skipped).
	CodeRoots           []string
	GoPackages, GoFiles int
	// Languages counts the files of each language the tree-sitter adapters read (python,
	// typescript, javascript) and of their tests, outside dependency and build folders.
	Languages map[string]*LanguageFiles
	// Generated are the pages and folders the site's configuration names that the tree does
	// not hold (an MkDocs nav entry its build fills): links to them are no dangling links.
	Generated []string
	// Routes map a site's URL path prefixes to the folders serving them (a Docusaurus docs
	// plugin's routeBasePath and path); SiteExclude are the site's folders that are no
	// current pages (other versions' copies, translations, React pages).
	Routes      map[string]string
	SiteExclude []string
	// Settings are the exclude globs of the TOML files under the content roots that hold
	// another tool's settings, not records (Cargo.toml, pyproject.toml); init sets them once
	// validation has read the files.
	Settings []string
}

// LanguageFiles counts one language's source files and test files.
type LanguageFiles struct {
	Files int `json:"files"`
	Tests int `json:"tests"`
	// Builds counts the language's build manifests by name (Cargo.toml: 3).
	Builds map[string]int `json:"builds,omitempty"`
}

// HasCode reports whether the survey found code an adapter reads.
func (s *Survey) HasCode() bool { return len(s.CodeRoots) > 0 }

// codeExclude are what a project with code leaves out: dependencies, and the Markdown of test
// inputs, whose documents describe someone else's code or are fixtures (their other files,
// such as txtar archives, are text files under the code root).
var codeExclude = []string{"**/node_modules/**", "**/testdata/**/*.md", "**/vendor/**"}

// skipDirs are never documentation: dependencies, build output, DocForge's own state.
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "public": true, "build": true,
	"site": true, "testdata": true, "dist": true}

// hugoArchetypes excludes the templates Hugo makes new pages from: their front matter holds
// template actions, not values.
const hugoArchetypes = "**/archetypes/**"

// candidateRoots are the folders documentation lives in, in the order they are preferred.
var candidateRoots = []string{"content", "docs", "doc", "documentation", "website/docs", "wiki"}

// Take surveys the tree at root. A tree without Markdown yields a Survey with no roots.
func Take(root string) (*Survey, error) {
	s := &Survey{}
	siteDir, siteConfig := s.findGenerator(root)
	for _, step := range []func() error{
		func() error { return s.goModule(root) },
		func() error { return s.countLanguages(root) },
		func() error {
			if len(s.Languages) > 0 && len(s.CodeRoots) == 0 {
				s.CodeRoots = []string{"."}
			}
			return nil
		},
		func() error { return s.siteRoots(root, siteDir, siteConfig) },
		func() error { return s.fallbackRoots(root) },
		func() error { return s.countDocuments(root) },
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// findGenerator names the site generator whose configuration the tree holds, and where a
// Docusaurus site's is.
func (s *Survey) findGenerator(root string) (siteDir string, siteConfig []byte) {
	siteDir, siteConfig, docusaurus := findDocusaurus(root)
	switch {
	case exists(root, "hugo.toml") || exists(root, "hugo.yaml") || exists(root, "config.toml") && exists(root, "content"),
		exists(root, "theme.toml") && exists(root, "layouts"): // a Hugo theme, its example site inside
		s.Generator = "hugo"
	case docusaurus:
		s.Generator = "docusaurus"
	case exists(root, "mkdocs.yml") || exists(root, "mkdocs.yaml"):
		s.Generator = "mkdocs"
	}
	return siteDir, siteConfig
}

// goModule adopts a Go module at root (or a folder or two below) as code, and then every
// Markdown file of it as documentation.
func (s *Survey) goModule(root string) error {
	mod, ok := goModule(root)
	if !ok {
		return nil
	}
	s.GoModule, s.CodeRoots = mod, []string{"."}
	if err := s.countGo(root); err != nil {
		return err
	}
	if s.GoFiles == 0 {
		// A go.mod with no Go code is a Hugo module or a tool's pin, not a program.
		s.GoModule, s.CodeRoots = "", nil
		return nil
	}
	if n, err := countMarkdown(root); err != nil {
		return err
	} else if n > 0 && s.Generator != "hugo" {
		// Every Markdown file of the module: the root README, CONTRIBUTING, package
		// READMEs and design notes document the code as much as a docs folder does.
		s.Roots = []string{"."}
	}
	return nil
}

// siteRoots takes the content roots a site generator's configuration names.
func (s *Survey) siteRoots(root, siteDir string, siteConfig []byte) error {
	switch s.Generator {
	case "docusaurus":
		s.Routes, s.SiteExclude = docusaurusRoutes(root, siteDir, siteConfig), docusaurusExclude(siteDir)
		if len(s.Roots) == 0 && siteDir != "." && siteDir != "website" {
			// A site in a folder of its own is one content root, so that its docs plugins'
			// pages keep IDs apart (docs/admin and docs-graphql/admin).
			s.Roots = []string{siteDir}
		}
	case "mkdocs":
		site, ok := readMkDocs(root)
		if !ok {
			return nil
		}
		s.Generated = site.Generated
		if len(s.Roots) == 0 {
			return s.addRootWithMarkdown(root, site.DocsDir)
		}
	case "hugo":
		if len(s.Roots) > 0 {
			return nil
		}
		// Hugo builds pages from its content folders only (README.md beside hugo.toml is
		// not a page): the configured ones, else content/.
		for _, dir := range hugoContentDirs(root) {
			if err := s.addRootWithMarkdown(root, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// fallbackRoots takes the first conventional docs folder holding Markdown, else the root,
// when nothing else named a content root.
func (s *Survey) fallbackRoots(root string) error {
	for _, c := range append(slices.Clone(candidateRoots), ".") {
		if len(s.Roots) > 0 {
			// One root: a second candidate is usually a copy or an unrelated tree.
			return nil
		}
		if err := s.addRootWithMarkdown(root, c); err != nil {
			return err
		}
	}
	return nil
}

// addRootWithMarkdown adds dir as a content root when it holds Markdown and is not one yet.
func (s *Survey) addRootWithMarkdown(root, dir string) error {
	n, err := countMarkdown(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return err
	}
	if n > 0 && !slices.Contains(s.Roots, dir) {
		s.Roots = append(s.Roots, dir)
	}
	return nil
}

// countDocuments counts the Markdown files under the content roots by front-matter style,
// and the top-level folders that hold them (one family each), leaving out what the
// descriptor will exclude.
func (s *Survey) countDocuments(root string) error {
	folders := map[string]bool{}
	for _, r := range s.Roots {
		base := filepath.Join(root, filepath.FromSlash(r))
		err := walkMarkdown(base, func(rel string) error {
			if s.excluded(path.Join(r, rel)) {
				return nil
			}
			s.Files++
			switch frontMatterStyle(filepath.Join(base, filepath.FromSlash(rel))) {
			case "+++":
				s.TOML++
			case "---":
				s.YAML++
			default:
				s.None++
			}
			if top, _, nested := strings.Cut(rel, "/"); nested {
				folders[top] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	s.Folders = slices.Sorted(maps.Keys(folders))
	return nil
}

// excluded reports whether the descriptor (Descriptor) leaves the file out: Hugo's archetypes,
// a Docusaurus site's other versions and pages.
func (s *Survey) excluded(rel string) bool {
	if s.Generator == "hugo" && project.MatchGlob(hugoArchetypes, rel) {
		return true
	}
	return slices.ContainsFunc(s.SiteExclude, func(g string) bool { return project.MatchGlob(g, rel) })
}

func exists(root, rel string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

func countMarkdown(dir string) (int, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return 0, nil
	}
	n := 0
	err := walkMarkdown(dir, func(string) error { n++; return nil })
	return n, err
}

// walkMarkdown calls fn with the slash-separated path, relative to dir, of every Markdown
// file below dir, skipping hidden and dependency folders.
func walkMarkdown(dir string, fn func(rel string) error) error {
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := strings.ToLower(path.Ext(name)); e.Type().IsRegular() && (ext == ".md" || ext == ".mdx" || ext == ".markdown") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			return fn(filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("survey %s: %w", dir, err)
	}
	return nil
}

// frontMatterStyle returns a file's opening fence (+++ or ---), or "".
func frontMatterStyle(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	switch l := strings.TrimRight(strings.TrimPrefix(line, "\uFEFF"), " \t\r\n"); l {
	case "+++", "---":
		return l
	}
	return ""
}

var familyName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Family is the family a top-level folder becomes, or "" when its name cannot be one.
func Family(folder string) string {
	name := strings.ReplaceAll(strings.ToLower(folder), "-", "_")
	if !familyName.MatchString(name) || name == golang.Family {
		return ""
	}
	return name
}

// DefaultFamily holds the pages that no folder family claims.
const DefaultFamily = "docs"

// Descriptor returns the text of a docforge.toml for the surveyed tree: identities derived
// from paths, one family per top-level folder, links as relates_to relations, and front
// matter written for other tools accepted as it is.
func (s *Survey) Descriptor(id, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# DocForge project descriptor, schema version 1. See 'docforge help format'.\n")
	fmt.Fprintf(&b, "# Written by 'docforge init' for an existing documentation tree (%s): node IDs come\n", s.describe())
	fmt.Fprintf(&b, "# from file paths, families from top-level folders, relations from Markdown links.\n")
	fmt.Fprintf(&b, "schema_version = 1\n\n[project]\nid = %q\nname = %q\n\n", id, name)
	fmt.Fprintf(&b, "[sources]\ncontent_roots = [%s]\n", quoteList(s.Roots))
	exclude := []string{"**/node_modules/**", "**/testdata/**"}
	if s.HasCode() {
		if s.GoModule != "" {
			fmt.Fprintf(&b, "# The built-in Go adapter reads the module %s: packages, files, declarations, calls, tests.\n", s.GoModule)
		}
		for _, lang := range slices.Sorted(maps.Keys(s.Languages)) {
			fmt.Fprintf(&b, "# The built-in %s adapter reads %d files: modules, classes, functions, imports, calls, tests.\n", lang, s.Languages[lang].Files)
		}
		fmt.Fprintf(&b, "# Every other text file under the code roots is a file node whose text is searchable.\n")
		fmt.Fprintf(&b, "code_roots = [%s]\n", quoteList(s.CodeRoots))
		exclude = codeExclude
	}
	if s.Generator == "hugo" {
		exclude = append(exclude, hugoArchetypes)
	}
	exclude = append(exclude, s.SiteExclude...)
	if len(s.Settings) > 0 {
		fmt.Fprintf(&b, "# Left out: TOML files of other tools' settings (no [[node]] tables), e.g. %s.\n", s.Settings[0])
	}
	exclude = append(exclude, s.Settings...)
	fmt.Fprintf(&b, "exclude = [%s]\n\n", quoteList(exclude))
	if len(s.Roots) > 0 {
		fmt.Fprintf(&b, "[sources.defaults]\nid = \"path\"              # a file without an id gets its path: storage/wal.md is storage/wal\n")
		fmt.Fprintf(&b, "kind = \"page\"\nfamily = %q\nfamily_from_folder = true  # storage/wal.md is in family storage, when declared below\n", DefaultFamily)
		fmt.Fprintf(&b, "foreign_fields = \"ignore\"   # keys such as date, weight or sidebar_position are not DocForge fields\n")
		if s.Generator == "docusaurus" {
			fmt.Fprintf(&b, "local_ids = true            # a front matter id names the page within its folder, a slug its URL, as Docusaurus reads them\n")
			fmt.Fprintf(&b, "strip_number_prefixes = true  # 01-intro.md is intro, as Docusaurus names it\n")
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "[sources.links]\nrelation = \"relates_to\"\ndangling = \"warning\"        # \"error\" makes a link to a missing file fail validation\n")
		if s.Generator == "hugo" {
			fmt.Fprintf(&b, "site = \"hugo\"              # links find pages as Hugo does: relative, from the content root, by unique name\n")
		}
		if s.Generator == "docusaurus" {
			fmt.Fprintf(&b, "site = \"docusaurus\"        # links written as URLs find pages as Docusaurus serves them\n")
		}
		if s.Generator == "mkdocs" {
			fmt.Fprintf(&b, "site = \"mkdocs\"            # links find pages as the built site does; mkdocs.yml's nav titles them\n")
		}
		if len(s.Routes) > 0 {
			fmt.Fprintf(&b, "# The site's URL paths and the folders serving them (its docs plugins' routeBasePath and path):\n# a link such as /graphql/overview names a page of the folder first.\n")
			fmt.Fprintf(&b, "routes = {")
			for i, k := range slices.Sorted(maps.Keys(s.Routes)) {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %q = %q", k, s.Routes[k])
			}
			b.WriteString(" }\n")
		}
		if len(s.Generated) > 0 {
			fmt.Fprintf(&b, "# Named by %s.yml's nav, missing from the tree: the site's build generates these pages,\n# so a link to one is no dangling link.\n", s.Generator)
			fmt.Fprintf(&b, "generated = [%s]\n", quoteList(s.Generated))
		}
		b.WriteString("\n")
	}
	allowed := []string{"relates_to", "contains", "depends_on", "implements", "documents", "supersedes"}
	if s.HasCode() {
		for _, rel := range golang.Relations() {
			if !slices.Contains(allowed, rel) {
				allowed = append(allowed, rel)
			}
		}
	}
	fmt.Fprintf(&b, "[relations]\nallowed = [%s]\n", quoteList(allowed))
	if len(s.Roots) > 0 {
		for _, f := range s.Families() {
			fmt.Fprintf(&b, "\n[families.%s]\nkinds = [\"page\"]\n", f)
		}
		// One rendered page per family, so that 'docforge render' works at once.
		fmt.Fprintf(&b, "\n# 'docforge render' writes one HTML page per view; edit or merge them as you like.\n")
		for _, f := range s.Families() {
			fmt.Fprintf(&b, "[[views]]\nid = %q\ntitle = %q\nfamilies = [%q]\noutput = \"site/%s.html\"\n\n", f, viewTitle(f), f, f)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// viewTitle is a family's name as a page title: getting_started is "Getting started".
func viewTitle(family string) string {
	t := strings.ReplaceAll(family, "_", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

// Families are the family names the descriptor declares: the default and one per usable
// top-level folder.
func (s *Survey) Families() []string {
	out := []string{DefaultFamily}
	for _, f := range s.Folders {
		if name := Family(f); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func (s *Survey) describe() string {
	var parts []string
	if s.GoModule != "" {
		parts = append(parts, fmt.Sprintf("Go module %s with %d packages in %d files", s.GoModule, s.GoPackages, s.GoFiles))
	}
	for _, lang := range slices.Sorted(maps.Keys(s.Languages)) {
		parts = append(parts, fmt.Sprintf("%d %s files", s.Languages[lang].Files, lang))
	}
	if s.Generator != "" {
		parts = append(parts, s.Generator+" layout")
	}
	parts = append(parts, fmt.Sprintf("%d Markdown files: %d with TOML front matter, %d with YAML, %d without", s.Files, s.TOML, s.YAML, s.None))
	return strings.Join(parts, "; ")
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// goModule finds the repository's Go module: the root's go.mod, else one a folder or two
// below (a repository whose modules live in server/ or cmd/tool/), by path order. The
// adapter reads every module under the root with its own import paths either way.
func goModule(root string) (string, bool) {
	if mod, ok := golang.ModulePath(root); ok {
		return mod, true
	}
	for _, pattern := range []string{"*/go.mod", "*/*/go.mod"} {
		found, _ := filepath.Glob(filepath.Join(root, pattern))
		slices.Sort(found)
		for _, f := range found {
			rel, _ := filepath.Rel(root, filepath.Dir(f))
			if skipped(filepath.ToSlash(rel)) {
				continue
			}
			if mod, ok := golang.ModulePath(filepath.Dir(f)); ok {
				return mod, true
			}
		}
	}
	return "", false
}

// skipped reports whether a folder path holds a part the go tool skips, or a dependency
// folder.
func skipped(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == "node_modules" || source.SkipCodeDir(part) {
			return true
		}
	}
	return false
}

// countGo counts the Go packages and files the go tool would see under root: it skips
// vendor, testdata, and folders and files starting with "_" or ".". Nested modules are
// counted too, as the adapter reads them.
func (s *Survey) countGo(root string) error {
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if p != root && source.SkipCodeDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Type().IsRegular() && source.CodeFormatOf(name) == source.GoFile {
			s.GoFiles++
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("survey Go code in %s: %w", root, err)
	}
	s.GoPackages = len(dirs)
	return nil
}

// countLanguages counts the Python, TypeScript and JavaScript files (and their tests) the
// adapters would read under root, skipping the folders a code root's walk skips and what
// git ignores.
func (s *Survey) countLanguages(root string) error {
	ignores := source.NewIgnores(root)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if p != root && (source.SkipCodeDir(name) || skipDirs[name] && name != "build" || ignores.Ignored(rel, true)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || ignores.Ignored(rel, false) {
			return nil
		}
		for _, l := range lang.Builds(name) {
			s.language(l).addBuild(name)
		}
		language, test := source.LanguageOf(rel)
		if language == "" || toolConfig(name) {
			return nil
		}
		c := s.language(language)
		c.Files++
		if test {
			c.Tests++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("survey code in %s: %w", root, err)
	}
	maps.DeleteFunc(s.Languages, func(_ string, c *LanguageFiles) bool { return c.Files == 0 }) // a manifest alone is no code
	if len(s.Languages) == 0 {
		s.Languages = nil
	}
	return nil
}

// language is the count of one language's files, made on first use.
func (s *Survey) language(name string) *LanguageFiles {
	if s.Languages == nil {
		s.Languages = map[string]*LanguageFiles{}
	}
	c := s.Languages[name]
	if c == nil {
		c = &LanguageFiles{}
		s.Languages[name] = c
	}
	return c
}

func (c *LanguageFiles) addBuild(name string) {
	if c.Builds == nil {
		c.Builds = map[string]int{}
	}
	c.Builds[name]++
}

// toolConfig reports whether a script is a build or site tool's settings (docusaurus.config.js,
// sidebars.js, vite.config.ts, Sphinx's conf.py): a documentation site that has only these
// has no code to adopt.
func toolConfig(name string) bool {
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	return strings.HasSuffix(stem, ".config") || stem == "sidebars" || name == "conf.py"
}
