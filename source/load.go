package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/source/treesit"
)

// Parsed is one file's fragment together with the file it came from and the SHA-256 of the
// exact bytes parsed.
type Parsed struct {
	File     File
	FileHash string
	Fragment *graph.Fragment
	// Unchanged says the content hash equals the one the loader was told the file already
	// had (SkipUnchanged), so it was not parsed and Fragment is empty.
	Unchanged bool
	// Prepared is what the loader's Then hook made of the file, on the goroutine that parsed
	// it (nil without a hook).
	Prepared any
}

// Loader reads and parses sources under one adapter policy. It holds the state of one build
// (the Go module of each directory), so one is made per build.
type Loader struct {
	d       *project.Descriptor
	noAST   bool
	modules *golang.Modules
	known   map[string]string // path -> content hash already extracted
	overlay *Overlay
	work    *Work
	then    func(*Parsed)
	// files are the project's sources (WithFiles), from which the layouts of the languages
	// whose names resolve across files are read once, when the first such file is assembled.
	files      []File
	ignoreOnce sync.Once
	gitignores *Ignores // the .gitignore rules package listings apply, read once per loader
	layoutOnce sync.Once
	ecma       *ecma.Layout
	lang       *lang.Layout
	// bounds bound a code file's parse by its size (treesit.DefaultBounds).
	bounds func(size int) treesit.Bounds
}

// WithBounds makes the loader bound each code file's parse by bounds(size) instead of
// treesit.DefaultBounds.
func (l *Loader) WithBounds(bounds func(size int) treesit.Bounds) *Loader {
	l.bounds = bounds
	return l
}

// WithFiles gives the loader the whole inventory, which resolving Python imports needs even
// when only a few files are read. Without it, the loader walks the sources itself when it
// first needs them.
func (l *Loader) WithFiles(files []File) *Loader { l.files = files; return l }

// AffectsLayout reports whether a change to the file at rel may change how other files
// resolve their imports, or which files are sources: a Python package's __init__.py, a
// package.json, a tsconfig.json, an index file of TypeScript or JavaScript, a Rust mod.rs,
// lib.rs or main.rs, a .gitignore.
func AffectsLayout(rel string) bool {
	return ecma.Affects(rel) || lang.Affects(rel) || path.Base(rel) == ".gitignore"
}

// RemovalAffectsLayout reports whether removing the file at rel may change how other files
// resolve their imports: besides AffectsLayout's, a Python, TypeScript or JavaScript module,
// which resolution picks among its candidates by what exists.
func RemovalAffectsLayout(rel string) bool {
	return AffectsLayout(rel) || ecma.Removes(rel) || lang.Removes(rel) || lang.ByName(rel)
}

// AdditionAffectsLayout reports whether adding the file at rel may change how other files
// resolve their names: a Swift file, whose name says which type it holds.
func AdditionAffectsLayout(rel string) bool { return lang.ByName(rel) }

// ignores are the loader's .gitignore rules, made on first use.
func (l *Loader) ignores() *Ignores {
	l.ignoreOnce.Do(func() { l.gitignores = NewIgnores(l.d.Root) })
	return l.gitignores
}

// layouts reads the language layouts once per loader.
func (l *Loader) layouts() {
	l.layoutOnce.Do(func() {
		files := l.files
		if files == nil {
			if inv, err := Scan(context.Background(), l.d); err == nil {
				files = inv.Files
			}
		}
		var manifests, scripts []string
		for _, f := range files {
			switch {
			case f.Format == TextFile && (path.Base(f.Path) == "package.json" || path.Base(f.Path) == "tsconfig.json" || path.Base(f.Path) == "jsconfig.json"):
				manifests = append(manifests, f.Path)
			case f.Format == TSFile || f.Format == JSFile:
				scripts = append(scripts, f.Path)
			}
		}
		read := func(rel string) []byte {
			data, err := l.read(File{Path: rel})
			if err != nil {
				return nil
			}
			return data
		}
		l.ecma = ecma.NewLayout(manifests, scripts, read)
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		l.lang = lang.NewLayout(paths, read)
	})
}

// Work accumulates the time a loader's reads spent, summed over its goroutines: parsing
// documents and records, and extracting code through the Go adapter. Diagnostics report it.
type Work struct {
	ParseNanos, ExtractNanos atomic.Int64
	// TreeParses counts the files parsed with tree-sitter: none under the no-AST policy.
	TreeParses atomic.Int64
}

// CountWork makes the loader add the time of every read and parse to w.
func (l *Loader) CountWork(w *Work) *Loader { l.work = w; return l }

// SkipUnchanged makes the loader compare each file's content hash with hashes[path] and skip
// parsing when they are equal: extraction is keyed by content, so a file whose stat changed
// but whose bytes did not (a touch, a checkout) is never parsed again.
func (l *Loader) SkipUnchanged(hashes map[string]string) { l.known = hashes }

// unchanged marks out as not parsed when its hash is the known one.
func (l *Loader) unchanged(out *Parsed) bool {
	if h, ok := l.known[out.File.Path]; ok && h == out.FileHash {
		out.Unchanged = true
		out.Fragment = &graph.Fragment{Path: out.File.Path}
		return true
	}
	return false
}

// NewLoader returns a loader for d under policy (golang.PolicyAST or golang.PolicyNoAST; empty
// means AST).
func NewLoader(d *project.Descriptor, policy string) *Loader {
	return &Loader{d: d, noAST: policy == golang.PolicyNoAST, modules: golang.NewModules(d.Root, d.Project.ID), bounds: treesit.DefaultBounds}
}

// packageNames lists a package directory's Go files and hashes the list.
func (l *Loader) packageNames(f File) ([]string, string, error) {
	entries, err := os.ReadDir(filepath.Join(l.d.Root, filepath.FromSlash(f.Path)))
	if err != nil {
		return nil, "", err
	}
	var names []string
	ignore := l.ignores().rulesIn(f.Path)
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && CodeFormatOf(name) == GoFile && !excluded(l.d, path.Join(f.Path, name)) && !ignore.ignored(path.Join(f.Path, name), false) {
			names = append(names, name)
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(names, "\n")))
	return names, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// ContentHash returns the hash ReadAndParse would record for f, without parsing it.
func (l *Loader) ContentHash(f File) (string, error) {
	if f.Format == GoPackage {
		_, h, err := l.packageNames(f)
		return h, err
	}
	fh, err := os.Open(filepath.Join(l.d.Root, filepath.FromSlash(f.Path)))
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(fh, l.d.Limits.MaxFileBytes+1)); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ReadAndParse reads one inventoried file and parses it. The read is bounded by the file size
// limit, so an oversized file is never loaded whole; a parse stops when ctx ends.
func (l *Loader) ReadAndParse(ctx context.Context, f File) Parsed {
	if l.work != nil {
		defer func(start time.Time) {
			if f.Format.IsCode() || f.Format == GoPackage {
				l.work.ExtractNanos.Add(int64(time.Since(start)))
			} else {
				l.work.ParseNanos.Add(int64(time.Since(start)))
			}
		}(time.Now())
	}
	d := l.d
	out := Parsed{File: f}
	if f.Format == GoPackage {
		return l.goPackage(f)
	}
	data, err := l.read(f)
	if err != nil {
		out.Fragment = unreadable(f.Path, err)
		return out
	}
	out.FileHash = FileHash(data)
	if l.unchanged(&out) {
		return out
	}
	if int64(len(data)) > d.Limits.MaxFileBytes {
		out.Fragment = l.tooLarge(f)
		return out
	}
	switch f.Format {
	case GoFile:
		out.Fragment = l.goFile(f.Path, data)
	case TSFile, JSFile, LangFile:
		out.Fragment = l.scriptFile(ctx, f, data)
	case TextFile:
		out.Fragment = textFragment(d, f.Path, data)
	case GoMod, GitIgnore:
		out.Fragment = &graph.Fragment{Path: f.Path}
	default:
		out.Fragment = Parse(d, f.Path, f.Format, data)
	}
	return out
}

// read returns a content file's bytes: the overlay's, or the file's, bounded by the size limit
// so that an oversized file is never loaded whole.
func (l *Loader) read(f File) ([]byte, error) {
	if data, ok := l.overlay.file(f.Path); ok {
		return data, nil
	}
	// The walk's size makes the buffer: one read fills it and one more finds the end, where
	// growing from nothing took six reads and as many copies. A file that grew since the walk
	// is still read whole, up to the limit.
	return readFile(filepath.Join(l.d.Root, filepath.FromSlash(f.Path)), f.Size, l.d.Limits.MaxFileBytes+1)
}

// tooLarge is the fragment of a file over the size limit: no node, and a warning with its
// size (the read stopped past the limit, so the size is the file's own) and the limit. The
// file is left out and the rest of the sources publish.
func (l *Loader) tooLarge(f File) *graph.Fragment {
	size := f.Size
	if st, err := os.Stat(filepath.Join(l.d.Root, filepath.FromSlash(f.Path))); err == nil {
		size = st.Size()
	}
	return &graph.Fragment{Path: f.Path, Problems: []problem.Problem{problem.Warn(problem.FileTooLarge, problem.Location{Path: f.Path},
		"file is %d bytes; the limit is %d ([limits].max_file_bytes): it is left out of the index", size, l.d.Limits.MaxFileBytes)}}
}

// goFile extracts one Go file under the loader's policy.
func (l *Loader) goFile(rel string, data []byte) *graph.Fragment {
	base := path.Base(rel)
	var facts *golang.Facts
	if l.noAST {
		facts = golang.Scan(base, data)
	} else {
		facts = golang.Extract(base, data, golang.DefaultLogicLimit)
	}
	return golang.FileFragment(rel, l.modules.ImportPath(path.Dir(rel)), facts)
}

// scriptFile extracts one Python, TypeScript or JavaScript file under the loader's policy.
// Under the no-AST policy no parser runs: the file is a file node whose text is searchable,
// as is a file over its parse bounds (treesit.DefaultBounds), with a warning naming the bound.
func (l *Loader) scriptFile(ctx context.Context, f File, data []byte) *graph.Fragment {
	rel := f.Path
	if l.noAST {
		return scriptTextFragment(f, data)
	}
	if l.work != nil {
		l.work.TreeParses.Add(1)
	}
	var facts *code.Facts
	var err error
	switch f.Format {
	case TSFile, JSFile:
		facts, err = ecma.Extract(ctx, rel, data, ecma.IsTestFile(rel), golang.DefaultLogicLimit, l.bounds(len(data)))
	case LangFile:
		lg := lang.ByExtension(rel)
		facts, err = lang.Extract(ctx, lg, data, lg.TestFile(rel), golang.DefaultLogicLimit, l.bounds(len(data)))
	default:
		return scriptTextFragment(f, data)
	}
	if bound := (*treesit.BoundError)(nil); errors.As(err, &bound) {
		frag := scriptTextFragment(f, data)
		frag.Problems = append(frag.Problems, problem.Warn(problem.CodeParseError, problem.Location{Path: rel},
			"%s; the file is indexed as text", err))
		return frag
	}
	if err != nil {
		return unreadable(rel, err)
	}
	var frag *graph.Fragment
	l.layouts()
	switch f.Format {
	case LangFile:
		lg := lang.ByExtension(rel)
		l.lang.Remember(lg, rel, facts)
		frag = lang.Fragment(lg, rel, facts, l.lang)
	default:
		l.ecma.Remember(rel, facts)
		frag = ecma.Fragment(rel, facts, l.ecma)
	}
	if line, col, ok := firstInvalidUTF8(data); !ok {
		// The parser read the bytes as they are; the syntax errors it met are most likely
		// the encoding's, so the encoding is what the warning names.
		frag.Problems = slices.DeleteFunc(frag.Problems, func(p problem.Problem) bool { return p.Code == problem.CodeParseError })
		frag.Problems = append(frag.Problems, problem.Warn(problem.NotUTF8, problem.Location{Path: rel, Line: line, Column: col},
			"file is not valid UTF-8; what the parser read of it is indexed"))
	}
	return frag
}

// goPackage lists a package directory's Go files, by the same rules as the stat walk, and
// returns the package node with its contains relations. The file hash covers the names.
func (l *Loader) goPackage(f File) Parsed {
	out := Parsed{File: f}
	names, hash, err := l.packageNames(f)
	if err != nil {
		out.Fragment = unreadable(f.Path, err)
		return out
	}
	out.FileHash = hash
	if l.unchanged(&out) {
		return out
	}
	out.Fragment = golang.PackageFragment(f.Path, l.modules.ImportPath(f.Path), names)
	return out
}

func unreadable(rel string, err error) *graph.Fragment {
	if errors.Is(err, fs.ErrNotExist) {
		// Deleted between the walk and the read: no longer a source, as if the walk had come
		// later. The generation records the walk's identity, which still lists the file, so
		// the next sync sees the tree differ and reads it again.
		return &graph.Fragment{Path: rel, Problems: []problem.Problem{
			problem.Warn(problem.UnreadableFile, problem.Location{Path: rel}, "the file disappeared while it was being read; this generation leaves it out"),
		}}
	}
	return &graph.Fragment{Path: rel, Problems: []problem.Problem{
		problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "%s", err.Error()),
	}}
}

// Then has Each run fn on each parsed file on the goroutine that parsed it, before the file
// is handed on in order: work a consumer would otherwise do serially (analyzing text for the
// full-text index) then uses every core too.
func (l *Loader) Then(fn func(*Parsed)) *Loader {
	l.then = fn
	return l
}

// Each reads and parses files concurrently and calls fn for each result in the order of
// files, so consumers see a deterministic stream while parsing uses every core. At most a
// bounded window of parsed files is held in memory. fn's first error stops the walk.
func (l *Loader) Each(ctx context.Context, files []File, fn func(Parsed) error) error {
	workers := runtime.GOMAXPROCS(0)
	const window = 64
	type slot struct {
		done chan struct{}
		out  Parsed
	}
	slots := make(chan *slot, window)
	jobs := make(chan struct {
		f File
		s *slot
	}, window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.s.out = l.ReadAndParse(ctx, j.f)
				if l.then != nil && j.s.out.Fragment != nil {
					l.then(&j.s.out)
				}
				close(j.s.done)
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(slots)
		for _, f := range files {
			s := &slot{done: make(chan struct{})}
			select {
			case slots <- s:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- struct {
				f File
				s *slot
			}{f, s}:
			case <-ctx.Done():
				close(s.done)
				return
			}
		}
	}()
	var err error
	for s := range slots {
		<-s.done
		if err != nil || s.out.Fragment == nil {
			continue // drain so the producer can finish
		}
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("load sources: %w", cerr)
			cancel()
			continue
		}
		if ferr := fn(s.out); ferr != nil {
			err = ferr
			cancel()
		}
	}
	wg.Wait()
	return err
}

// Validate loads every source of d and returns all problems (bounded), without writing
// anything. It is the whole of `docforge validate`.
func Validate(ctx context.Context, d *project.Descriptor, policy string, limit int) (*Validation, error) {
	inv, err := Scan(ctx, d)
	if err != nil {
		return nil, err
	}
	list := problem.List{Limit: limit}
	list.AddAll(inv.Problems)
	check := NewChecker(d)
	c := Counts{Files: len(inv.Files)}
	err = NewLoader(d, policy).WithFiles(inv.Files).Each(ctx, inv.Files, func(p Parsed) error {
		list.AddAll(p.Fragment.Problems)
		check.Add(p.Fragment)
		c.countCode(p.Fragment.Nodes)
		c.Nodes += len(p.Fragment.Nodes)
		c.Edges += len(p.Fragment.Edges)
		c.Links += len(p.Fragment.Links)
		return nil
	})
	if err != nil {
		return nil, err
	}
	list.AddAll(check.Problems())
	c.LinkEdges = len(check.Edges()) - c.Edges
	return &Validation{Problems: list.Problems(), Counts: c, Inventory: inv, Reviews: check.Reviews(), Drift: check.Drift()}, nil
}

// Validation is what validating a project found.
type Validation struct {
	Problems  []problem.Problem
	Counts    Counts
	Inventory *Inventory
	// Reviews are the stamped relations and how their targets compare with the stamps;
	// Drift the review standing of each node that declares relations.
	Reviews []Review
	Drift   []Drift
}

// Counts is the size of a validated project's graph.
type Counts struct {
	Files int `json:"files"`
	Nodes int `json:"nodes"`
	// Edges counts declared relations; LinkEdges the relations links resolved to, out of
	// Links links found.
	Edges     int `json:"edges"`
	Links     int `json:"links"`
	LinkEdges int `json:"link_edges"`
	// Languages counts the code nodes of each language: files, declarations, tests.
	Languages map[string]*LanguageCount `json:"languages,omitempty"`
}

// LanguageCount is what the adapters found of one language.
type LanguageCount struct {
	Files        int `json:"files"`
	Declarations int `json:"declarations"`
	Tests        int `json:"tests"`
}

// countCode adds a fragment's code nodes to the counts by language; text files are not a
// language's.
func (c *Counts) countCode(nodes []graph.Node) {
	for i := range nodes {
		n := &nodes[i]
		if !graph.IsCode(n.ID) || strings.HasPrefix(n.ID, graph.TextPrefix) || n.Kind == "package" {
			continue
		}
		if c.Languages == nil {
			c.Languages = map[string]*LanguageCount{}
		}
		l := c.Languages[n.Language]
		if l == nil {
			l = &LanguageCount{}
			c.Languages[n.Language] = l
		}
		switch {
		case n.Kind == "file":
			l.Files++
		case slices.Contains(n.Capabilities, "test"):
			l.Tests++
		default:
			l.Declarations++
		}
	}
}

// FileHash is the hash a generation records of a source file's bytes (the files table), and
// what a reader compares a file with to know it is still that generation's.
func FileHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
