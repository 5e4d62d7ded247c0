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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/project"
)

// Format is how a source file is parsed.
type Format uint8

// The source formats.
const (
	Markdown  Format = iota + 1 // .md: one node, TOML front matter between +++ lines
	Records                     // .toml: many nodes as [[node]] tables
	GoFile                      // .go under a code root: a file node and its declarations
	GoPackage                   // a directory of .go files: its package node (stat of the directory)
	GoMod                       // go.mod under a code root: no nodes, but it sets import paths
	_                           // was .py, a LangFile now: kept so the formats after it keep their stored numbers
	TSFile                      // .ts, .tsx, .mts, .cts: the TypeScript adapter's
	JSFile                      // .js, .jsx, .mjs, .cjs: the JavaScript adapter's
	TextFile                    // any other text file under a code root: a file node, its text searchable
	GitIgnore                   // .gitignore under a code root: no nodes, but it decides what is a source
	LangFile                    // a file a table-driven language reads (lang.Languages: .rs, .java)
)

// IsCode reports whether the format is one a language adapter reads.
func (f Format) IsCode() bool {
	return f == GoFile || f == TSFile || f == JSFile || f == LangFile
}

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
// problems the walk itself found (escaping symlinks, unreadable directories). No one changes
// an inventory once it is returned: a Tracker shares its file list between scans.
type Inventory struct {
	Files    []File
	Problems []problem.Problem
	// Descriptor is the stat of docforge.toml, part of the identity because the descriptor
	// changes how every source is read; Configs, of the other files it depends on
	// (Descriptor.ConfigFiles: an MkDocs configuration), zero for one that is absent.
	Descriptor File
	Configs    []File
	rejected   []File
	files      graph.SetDigest // of Files' stat lines
	identity   string
	// aliased says the walk met a symlink or a hard-linked source: a file may then change
	// under a path no watch reports, so a Tracker walks the whole tree again.
	aliased bool
}

// Identity is the cheap source identity: a digest of every source file's path and stat, the
// descriptor's stat, and the walk's problems. Equal identities mean no source changed.
func (inv *Inventory) Identity() string { return inv.identity }

// Scan walks the content roots of d and returns the inventory. It reads no file contents.
// Symlinks are followed only when they resolve inside the content root they were found in;
// any other symlink is a path_escape problem. Hidden names (starting with ".") are skipped.
//
// Directories are read in parallel because a stat is a system call and system calls dominate
// the walk; the result is sorted, so it does not depend on scheduling.
func Scan(ctx context.Context, d *project.Descriptor) (*Inventory, error) {
	descStat, err := stat(filepath.Join(d.Root, project.FileName))
	if err != nil {
		return nil, fmt.Errorf("scan sources: stat descriptor: %w", err)
	}
	inv := &Inventory{Descriptor: fileOf(project.FileName, 0, descStat), Configs: configStats(d)}
	visited := map[dirKey]bool{}
	seen := map[string]bool{}
	type rootOf struct {
		path string
		code bool
	}
	var roots []rootOf
	for _, r := range d.Sources.ContentRoots {
		roots = append(roots, rootOf{r, false})
	}
	for _, r := range d.Sources.CodeRoots {
		roots = append(roots, rootOf{r, true})
	}
	for _, r := range roots {
		root := r.path
		absRoot := filepath.Join(d.Root, filepath.FromSlash(root))
		realRoot, err := filepath.EvalSymlinks(absRoot)
		if err != nil {
			inv.Problems = append(inv.Problems, problem.New(problem.UnreadableFile, problem.Location{Path: root}, "content root %s: %v", root, err))
			continue
		}
		if r.code {
			// Content and code roots may overlap; a directory is listed once per kind.
			visited = map[dirKey]bool{}
		}
		w := &walker{ctx: ctx, d: d, root: root, realRoot: realRoot, code: r.code, visited: visited, sem: make(chan struct{}, scanParallelism)}
		if err := w.walk(absRoot, root); err != nil {
			return nil, err
		}
		// Content roots may nest; a file listed by an earlier root is not listed again.
		slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		for _, f := range w.files {
			if !seen[f.Path] {
				seen[f.Path] = true
				inv.Files = append(inv.Files, f)
			}
		}
		inv.Problems = append(inv.Problems, w.problems...)
		inv.rejected = append(inv.rejected, w.rejected...)
		inv.aliased = inv.aliased || w.linked
	}
	slices.SortFunc(inv.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	problem.Sort(inv.Problems)
	slices.SortFunc(inv.rejected, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	inv.digestFiles()
	inv.identity = identity(inv)
	return inv, nil
}

// scanParallelism bounds the directories read at once. Each blocks in system calls, so a few
// more than the cores keeps them busy.
const scanParallelism = 4

// dirKey identifies a directory independently of the path that reached it.
type dirKey struct{ dev, ino uint64 }

type link struct{ abs, rel string }

// walker lists one content root. Real directories form a tree, so they are read in parallel
// without ever meeting twice; symlinks, which may alias, are resolved afterwards one by one in
// path order, so which alias of a directory wins never depends on timing.
type walker struct {
	ctx            context.Context
	d              *project.Descriptor
	root, realRoot string // current root (relative) and its resolved absolute path
	code           bool   // a code root: Go files, go.mod files and package directories
	sem            chan struct{}

	visited map[dirKey]bool // directories listed so far, this root and earlier ones

	mu       sync.Mutex // guards everything below, and visited during a parallel tree walk
	files    []File
	rejected []File // symlinks refused for escaping; stat of the link itself
	problems []problem.Problem
	links    []link // symlinks met by the tree walk, resolved after it
	linked   bool   // any symlink or hard-linked source was met
	err      error
}

// excluded reports whether the file at rel is no source: an exclude pattern matches it, or it
// is a view's rendered output, which a render writes from the graph and must not feed back.
func excluded(d *project.Descriptor, rel string) bool {
	for _, v := range d.Views {
		if rel == v.Output {
			return true
		}
	}
	for _, g := range d.Sources.Exclude {
		if project.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

func (w *walker) problem(p problem.Problem) {
	w.mu.Lock()
	w.problems = append(w.problems, p)
	w.mu.Unlock()
}

// walk lists the tree at abs, then the symlinks found in it, in path order, until none is left.
func (w *walker) walk(abs, rel string) error {
	w.tree(abs, rel)
	for w.err == nil && len(w.links) > 0 {
		links := w.links
		w.links = nil
		slices.SortFunc(links, func(a, b link) int { return strings.Compare(a.rel, b.rel) })
		for _, l := range links {
			w.symlink(l.abs, l.rel)
		}
	}
	return w.err
}

// tree lists the real directory tree at abs in parallel and returns when all of it is listed.
func (w *walker) tree(abs, rel string) {
	var wg sync.WaitGroup
	var ignore *ignoreRules
	if w.code && rel != "." {
		ignore = NewIgnores(w.d.Root).rulesIn(path.Dir(rel)) // the folders above the root's
	}
	w.dir(&wg, abs, rel, ignore)
	wg.Wait()
}

func (w *walker) dir(wg *sync.WaitGroup, abs, rel string, ignore *ignoreRules) {
	if err := w.ctx.Err(); err != nil {
		w.mu.Lock()
		w.err = fmt.Errorf("scan sources: %w", err)
		w.mu.Unlock()
		return
	}
	f, err := os.Open(abs)
	if err != nil {
		w.problem(problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "read directory: %v", err))
		return
	}
	defer f.Close()
	fd := int(f.Fd())
	dirStat, statErr := fstat(fd)
	if st, err := dirStat, statErr; err == nil {
		key := dirKey{st.dev, st.ino}
		w.mu.Lock()
		again := w.visited[key]
		w.visited[key] = true
		w.mu.Unlock()
		if again {
			return // a symlink loop, or a second link to a listed directory
		}
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		w.problem(problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "read directory: %v", err))
		return
	}
	if w.code && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" && e.Type().IsRegular() }) {
		ignore = ignore.with(readGitignore(w.d.Root, rel))
	}
	l := listEntries(w.d, fd, entries, abs, rel, w.code, ignore, dirStat, statErr)
	for _, name := range l.subdirs {
		childAbs, childRel := filepath.Join(abs, name), path.Join(rel, name)
		select {
		case w.sem <- struct{}{}:
			wg.Go(func() {
				defer func() { <-w.sem }()
				w.dir(wg, childAbs, childRel, ignore)
			})
		default:
			w.dir(wg, childAbs, childRel, ignore)
		}
	}
	w.mu.Lock()
	w.files = append(w.files, l.files...)
	w.links = append(w.links, l.links...)
	w.linked = w.linked || len(l.links) > 0 || l.linked
	w.problems = append(w.problems, l.probs...)
	w.mu.Unlock()
}

// dirListing is what one directory holds for the walk: its source files (with the package
// of a Go directory), the subdirectories to walk, the symlinks to resolve after the tree, and
// the problems met.
type dirListing struct {
	files   []File
	subdirs []string // names
	links   []link
	probs   []problem.Problem
	linked  bool // a hard-linked source: its other name changes it unseen
}

// listEntries lists the entries of the directory open as fd (abs, at rel in the project)
// with the walk's rules (under a code root, ignore is what .gitignore files leave out);
// dirStat is the directory's own stat, unless statErr.
func listEntries(d *project.Descriptor, fd int, entries []fs.DirEntry, abs, rel string, code bool, ignore *ignoreRules, dirStat fileStat, statErr error) dirListing {
	var l dirListing
	goIgnored := code && goIgnoredPath(rel)
	goOnly := code && outputPath(rel)
	for _, e := range entries {
		name := e.Name()
		childRel := path.Join(rel, name)
		typ := e.Type()
		if leftOut(d, name, childRel, typ, code, ignore) {
			continue
		}
		if !utf8.ValidString(name) {
			// Node IDs, paths in answers and cursors are UTF-8 text: two names differing in an
			// invalid byte would read as one, and neither could be asked for.
			l.probs = append(l.probs, problem.Warn(problem.NotUTF8, problem.Location{Path: strings.ToValidUTF8(childRel, "\uFFFD")},
				"the name %q is not valid UTF-8, so it is left out with all it holds; rename it", name))
			continue
		}
		switch {
		case typ&fs.ModeSymlink != 0:
			l.links = append(l.links, link{filepath.Join(abs, name), childRel})
		case typ.IsDir():
			if !code || !SkipCodeDir(name) {
				l.subdirs = append(l.subdirs, name)
			}
		case typ.IsRegular():
			format := listedFormat(name, childRel, code, goIgnored, goOnly)
			if format == 0 {
				continue
			}
			st, err := lstatAt(fd, name)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) { // removed during the walk: simply not a source now
					l.probs = append(l.probs, problem.New(problem.UnreadableFile, problem.Location{Path: childRel}, "stat: %v", err))
				}
				continue
			}
			l.files = append(l.files, fileOf(childRel, format, st))
			l.linked = l.linked || st.nlink > 1
		}
	}
	if code && statErr == nil && slices.ContainsFunc(l.files, func(f File) bool { return f.Format == GoFile }) {
		// The package node depends only on which Go files the directory holds, which its
		// stat (mtime, ctime) follows.
		l.files = append(l.files, fileOf(rel, GoPackage, dirStat))
	}
	return l
}

// leftOut reports whether a listing leaves an entry out: a hidden one (but the few kept
// under a code root), one the descriptor excludes, one .gitignore leaves out.
func leftOut(d *project.Descriptor, name, rel string, typ fs.FileMode, code bool, ignore *ignoreRules) bool {
	return strings.HasPrefix(name, ".") && !(code && keptHidden(name)) || excluded(d, rel) || ignore.ignored(rel, typ.IsDir())
}

// listedFormat is the format a listed regular file is read as, or 0 when it is no source: in
// a folder the go tool ignores (testdata, _name) Go files are fixtures, read as text; under
// build output only Go files count; the descriptor is configuration, never a source, even
// under a root of ".".
func listedFormat(name, rel string, code, goIgnored, goOnly bool) Format {
	format := rootFormatOf(name, code)
	if code && name == ".gitignore" {
		format = GitIgnore
	}
	if code && goIgnored {
		format = codeFormatIn(name, true)
	}
	if goOnly && format != GoFile && format != GoMod || strings.EqualFold(rel, project.FileName) {
		return 0
	}
	return format
}

// symlink follows a link only when it resolves inside the current content root to a
// directory or a regular file. Any other link is skipped, never read, with one warning: a
// copied tree (an installed library, a vendored checkout) often holds a link into the system,
// and it must not hold back the files around it.
func (w *walker) symlink(abs, rel string) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A dangling link is not a source; report it so the author knows why it is ignored.
		if w.formatOf(path.Base(rel)) != 0 {
			w.problem(problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "symlink does not resolve: %v", err))
		}
		return
	}
	if !project.Within(w.realRoot, real) {
		st, _ := lstat(abs)
		where := "the content root " + w.root
		if w.root == "." {
			where = "the project root"
		}
		p := problem.Warn(problem.PathEscape, problem.Location{Path: rel},
			"symlink resolves to %s, outside %s; it is skipped and never read", real, where)
		p.Remediation = skippedLink
		w.problem(p)
		// The link's own stat is part of the identity, so replacing it is noticed.
		w.rejected = append(w.rejected, fileOf(rel, 0, st))
		return
	}
	st, err := stat(abs)
	if err != nil {
		return
	}
	if st.isDir() {
		w.tree(abs, rel)
		return
	}
	format := w.formatOf(path.Base(rel))
	if format == 0 {
		return
	}
	if !st.isRegular() {
		p := problem.Warn(problem.PathEscape, problem.Location{Path: rel},
			"symlink resolves to %s, which is not a regular file (a device, socket or FIFO); it is skipped and never read", real)
		p.Remediation = skippedLink
		w.problem(p)
		w.rejected = append(w.rejected, fileOf(rel, 0, st))
		return
	}
	w.files = append(w.files, fileOf(rel, format, st))
}

// skippedLink is the remediation of a link the walk skips.
const skippedLink = "nothing is lost but the link's target; to index it, replace the link with the file itself, " +
	"or list the link in [sources] exclude in docforge.toml to silence this warning"

// formatOf returns how a file name is read under the walker's kind of root, or 0 to skip it.
func (w *walker) formatOf(name string) Format { return rootFormatOf(name, w.code) }

// rootFormatOf returns how a file name is read under a code root (code) or a content root.
func rootFormatOf(name string, code bool) Format {
	if code {
		return CodeFormatOf(name)
	}
	return formatOf(name)
}

// CodeFormatOf returns how a file name under a code root is read, or 0 to skip it. Go files
// follow the go tool's rules, so names starting with "_" or "." are skipped; a file no
// language adapter reads is a text file unless its name says it is binary, generated or a
// lock file (TextFile; its content is checked when it is read).
func CodeFormatOf(name string) Format {
	if name == ".cursorrules" {
		return TextFile // an agent's guide (IsGuide), hidden as Cursor names it
	}
	if name == "" || name[0] == '.' {
		return 0
	}
	ext := path.Ext(name)
	switch ext {
	case ".go":
		if name[0] == '_' {
			return 0
		}
		return GoFile
	case ".ts", ".tsx", ".mts", ".cts":
		return TSFile
	case ".js", ".jsx", ".mjs", ".cjs":
		if strings.HasSuffix(name, ".min.js") || strings.HasSuffix(name, ".bundle.js") {
			return 0
		}
		return JSFile
	}
	if lang.ByExtension(name) != nil {
		return LangFile
	}
	switch {
	case name == "go.mod":
		return GoMod
	case notText(strings.ToLower(ext)), lockFile(name):
		return 0
	}
	return TextFile
}

// LanguageOf names the language of a tree-sitter adapter's file at rel (python, typescript,
// javascript, and the table-driven ones: rust, java; "" for any other) and says whether it is a test file by its runner's rules.
func LanguageOf(rel string) (language string, test bool) {
	switch CodeFormatOf(path.Base(rel)) {
	case TSFile:
		return "typescript", ecma.IsTestFile(rel)
	case JSFile:
		return "javascript", ecma.IsTestFile(rel)
	case LangFile:
		l := lang.ByExtension(rel)
		return l.Name, l.TestFile(rel)
	}
	return "", false
}

// codeFormatIn is CodeFormatOf for a file in a folder the go tool ignores (testdata, or a
// name starting with "_"): its Go files are fixtures, read as text.
func codeFormatIn(name string, goIgnored bool) Format {
	f := CodeFormatOf(name)
	if goIgnored && (f == GoFile || f == GoMod) {
		return TextFile
	}
	return f
}

// notText reports whether an extension is a file's that is not text, or not worth
// searching as text.
func notText(ext string) bool {
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".ico", ".webp", ".bmp", ".svg", ".pdf",
		".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".tar", ".7z", ".jar", ".class", ".pyc", ".pyo",
		".so", ".dylib", ".dll", ".exe", ".a", ".o", ".wasm", ".syso", ".woff", ".woff2", ".ttf", ".otf", ".eot",
		".mp3", ".mp4", ".wav", ".mov", ".db", ".sqlite", ".bin", ".dat", ".pyi", ".map", ".snap":
		return true
	}
	return false
}

// lockFile reports whether a name is a dependency lock file's: long, generated, and never
// what a task needs to read.
func lockFile(name string) bool {
	switch name {
	case "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "uv.lock", "poetry.lock", "Cargo.lock", "go.sum",
		"Pipfile.lock", "bun.lockb", "composer.lock":
		return true
	}
	return false
}

// SkipCodeDir reports whether a folder under a code root is left out: hidden folders but the
// agents' (agentFolder), vendored and installed dependencies, caches.
func SkipCodeDir(name string) bool {
	switch name {
	case "vendor", "node_modules", "__pycache__", "site-packages", "venv", "bower_components":
		return true
	}
	return name[0] == '.' && !agentFolder(name)
}

// agentFolder reports whether a hidden folder under a code root is walked all the same: .github
// and .cursor hold the guides written for agents and contributors
// (.github/copilot-instructions.md, .cursor/rules/) and the workflows a task may need.
func agentFolder(name string) bool { return name == ".github" || name == ".cursor" }

// keptHidden reports whether a hidden name under a code root is read all the same: the
// agents' folders, Cursor's .cursorrules guide, and .gitignore, which decides what else is.
func keptHidden(name string) bool {
	return agentFolder(name) || name == ".cursorrules" || name == ".gitignore"
}

// outputPath reports whether the folder at rel is, or is inside, a build output folder (dist,
// coverage): only Go files are read there, since Go packages go by such names too (the
// toolchain's cmd/dist) while everything else in them is made from sources elsewhere.
func outputPath(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == "dist" || seg == "coverage" {
			return true
		}
	}
	return false
}

// goIgnoredPath reports whether the go tool ignores the Go files of the folder at rel: one of
// its folders is testdata or starts with "_".
func goIgnoredPath(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == "testdata" || strings.HasPrefix(seg, "_") {
			return true
		}
	}
	return false
}

func formatOf(name string) Format {
	switch {
	case strings.HasSuffix(name, ".md"), strings.HasSuffix(name, ".mdx"):
		return Markdown // an .mdx page's import and export lines and JSX tags are no text (mdxText)
	case strings.HasSuffix(name, ".toml"):
		return Records
	}
	return 0
}

// configStats are the stats of the files besides docforge.toml that the descriptor depends
// on; an absent one is a zero stat under its name.
func configStats(d *project.Descriptor) []File {
	var out []File
	for _, name := range d.ConfigFiles()[1:] {
		st, _ := lstat(filepath.Join(d.Root, name))
		out = append(out, fileOf(name, 0, st))
	}
	return out
}

func fileOf(rel string, format Format, st fileStat) File {
	return File{Path: rel, Format: format, Size: st.size, MtimeNs: st.mtimeNs, CtimeNs: st.ctimeNs, Ino: st.ino, Dev: st.dev}
}

// identity digests the inventory: the descriptor's stat, the set of source files' stats and
// the rejected links' stats. The files enter as a set digest (graph.SetDigest), so that a
// Tracker that lists a few folders again updates it for those files alone.
func identity(inv *Inventory) string {
	h := sha256.New()
	h.Write([]byte("docforge.identity.v2\n"))
	h.Write(statLine(nil, inv.Descriptor))
	for _, f := range inv.Configs {
		h.Write(statLine(nil, f))
	}
	h.Write([]byte(inv.files.Sum()))
	h.Write([]byte("\nrejected\n"))
	var buf []byte
	for _, f := range inv.rejected {
		buf = statLine(buf[:0], f)
		h.Write(buf)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestFiles sets the inventory's set digest of its files, a part per core: a hash per file
// is most of the cost of the walk's result on a large tree.
func (inv *Inventory) digestFiles() {
	parts := make([]graph.SetDigest, runtime.GOMAXPROCS(0))
	per := (len(inv.Files) + len(parts) - 1) / len(parts)
	var wg sync.WaitGroup
	for i := range parts {
		chunk := inv.Files[min(i*per, len(inv.Files)):min((i+1)*per, len(inv.Files))]
		wg.Go(func() {
			var buf []byte
			for _, f := range chunk {
				parts[i].AddHash(statHash(&buf, f))
			}
		})
	}
	wg.Wait()
	inv.files = graph.SetDigest{}
	for _, p := range parts {
		inv.files.Include(p)
	}
}

// statHash is the SHA-256 of a file's identity line, written into *buf (reused between calls).
func statHash(buf *[]byte, f File) [32]byte {
	*buf = statLine((*buf)[:0], f)
	return sha256.Sum256(*buf)
}

// statLine appends the identity line of one file to buf.
func statLine(buf []byte, f File) []byte {
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
	return append(buf, '\n')
}
