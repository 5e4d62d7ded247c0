package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/adopt"
	"github.com/docforge/docforge/source/project"
)

// The tree-sitter adapters' benchmark: the Python standard library Debian's python3 installs,
// and the MCP TypeScript SDK's corpus, each adopted with the descriptor 'docforge init' writes.

// scriptsVersion changes whenever the copies' making changes.
const scriptsVersion = "1"

// scriptCorpus is one corpus: where its project is, and the file a one-file edit appends a
// function to.
type scriptCorpus struct{ name, proj, edit string }

// scriptReport holds one corpus's figures; durations in milliseconds.
type scriptReport struct {
	Name         string         `json:"name"`
	Files        int            `json:"files"`
	Nodes        int64          `json:"nodes"`
	Edges        int64          `json:"edges"`
	ColdMs       float64        `json:"cold_ms"`
	ColdRuns     int            `json:"cold_runs"`
	WorkerEditMs float64        `json:"worker_edit_ms"`
	EditRuns     int            `json:"edit_runs"`
	EditPhases   []index.Timing `json:"edit_phases"`
	Lines        int            `json:"lines"`
	PeakRSSMiB   float64        `json:"peak_rss_mib"`
}

// ensurePythonStdlib copies the standard library Debian's python3 reports (no site-packages, no
// caches, no symlink: Debian's sitecustomize.py points outside the tree) once.
func ensurePythonStdlib(ctx context.Context, dir string) (scriptCorpus, error) {
	c := scriptCorpus{name: "Python standard library", edit: "json/decoder.py"}
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, ahead of any other on PATH
	}
	out, err := exec.CommandContext(ctx, python, "-c", `import sysconfig, sys; print(sysconfig.get_paths()["stdlib"]); print(sys.version.split()[0])`).Output()
	if err != nil {
		return c, fmt.Errorf("python3: %w", err)
	}
	lines := strings.Fields(string(out))
	stdlib := lines[0]
	c.proj, err = filepath.Abs(filepath.Join(dir, "pystdlib"))
	if err != nil {
		return c, err
	}
	return c, generateOnce(c.proj, fmt.Sprintf("pystdlib %s %s %s\n", scriptsVersion, stdlib, lines[1]), func() error {
		fmt.Fprintf(os.Stderr, "copying %s into %s ...\n", stdlib, c.proj)
		if err := os.RemoveAll(c.proj); err != nil {
			return err
		}
		err := filepath.WalkDir(stdlib, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(stdlib, p)
			switch {
			case e.IsDir() && (e.Name() == "site-packages" || e.Name() == "dist-packages" || e.Name() == "__pycache__"):
				return filepath.SkipDir
			case e.IsDir():
				return os.MkdirAll(filepath.Join(c.proj, rel), 0o755)
			case !e.Type().IsRegular():
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(c.proj, rel), data, 0o644)
		})
		if err != nil {
			return err
		}
		return adoptCorpus(c.proj, "pystdlib")
	})
}

// tarCorpus is a development corpus from ../shared/corpora: its tarball's top folder and
// the file an edit appends a declaration to.
type tarCorpus struct{ name, id, tarball, top, edit string }

// ensureTarCorpus extracts a corpus tarball once and adopts it.
func ensureTarCorpus(ctx context.Context, dir string, t tarCorpus) (scriptCorpus, error) {
	c := scriptCorpus{name: t.name, edit: t.edit}
	proj, err := filepath.Abs(filepath.Join(dir, t.id))
	if err != nil {
		return c, err
	}
	c.proj = filepath.Join(proj, t.top)
	st, err := os.Stat(t.tarball)
	if err != nil {
		return c, err
	}
	return c, generateOnce(proj, fmt.Sprintf("%s %s %s %d\n", t.id, scriptsVersion, t.tarball, st.Size()), func() error {
		if err := os.RemoveAll(proj); err != nil {
			return err
		}
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return err
		}
		if out, err := exec.CommandContext(ctx, "tar", "-xzf", t.tarball, "-C", proj).CombinedOutput(); err != nil {
			return fmt.Errorf("extract %s: %v: %s", t.tarball, err, out)
		}
		return adoptCorpus(c.proj, t.id)
	})
}

// editLine is the declaration the i-th edit appends to a file of the corpus's language.
func editLine(file string, i int) string {
	switch filepath.Ext(file) {
	case ".py":
		return fmt.Sprintf("\n\ndef bench_edit_%d():\n    return %d\n", i, i)
	case ".rs":
		return fmt.Sprintf("\nfn bench_edit_%d() -> i32 {\n    %d\n}\n", i, i)
	case ".java":
		return fmt.Sprintf("\nclass BenchEdit%d {\n    int n() { return %d; }\n}\n", i, i)
	}
	return fmt.Sprintf("\nexport function benchEdit%d(): number { return %d; }\n", i, i)
}

// codeLines counts the lines of the files an adapter reads in the tree: the measure the
// corpora are compared by (milliseconds per thousand lines).
func codeLines(root string) (int, error) {
	lines := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != root && (strings.HasPrefix(e.Name(), ".") || source.SkipCodeDir(e.Name())) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if l, _ := source.LanguageOf(filepath.ToSlash(rel)); l == "" || !e.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines += bytes.Count(data, []byte("\n"))
		return nil
	})
	return lines, err
}

// adoptCorpus writes the descriptor 'docforge init' proposes for the tree.
func adoptCorpus(proj, id string) error {
	s, err := adopt.Take(proj)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(proj, project.FileName), []byte(s.Descriptor(id, id)), 0o644)
}

// measureScriptsChild runs 'measure-corpus' in a child process and adds its peak RSS: the
// memory a worker holding the corpus needs.
func measureScriptsChild(ctx context.Context, c scriptCorpus, runs int) (*scriptReport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "measure-corpus", "--project", c.proj, "--edit", c.edit, "--runs", fmt.Sprint(runs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("measure %s: %w", c.name, err)
	}
	var rep scriptReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("measure %s: bad report: %w", c.name, err)
	}
	rep.Name = c.name
	return &rep, nil
}

// measureCorpusCommand times cold syncs, then one-file edits as a worker syncs them (its
// watch names the folder), of one adopted corpus. The edited file is restored at the end.
func measureCorpusCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("measure-corpus", flag.ContinueOnError)
	proj := fs.String("project", "", "the adopted corpus")
	edit := fs.String("edit", "", "the file the edits append a function to")
	runs := fs.Int("runs", 0, "repetitions (0: 3 cold syncs, 9 edits)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	index.ApplyMemorySettings()
	d, probs, err := project.Load(*proj)
	if err != nil || d == nil {
		return fmt.Errorf("measure-corpus: %v %v", err, probs)
	}
	file := filepath.Join(d.Root, filepath.FromSlash(*edit))
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	defer os.WriteFile(file, orig, 0o644)
	coldRuns, editRuns := 3, 9
	if *runs > 0 {
		coldRuns, editRuns = *runs, *runs
	}
	rep := &scriptReport{ColdRuns: coldRuns, EditRuns: editRuns}
	if rep.Lines, err = codeLines(d.Root); err != nil {
		return err
	}
	var cold []time.Duration
	for i := range coldRuns {
		if err := os.RemoveAll(publication.PathsFor(d, "").Dir); err != nil {
			return err
		}
		res, err := index.Sync(ctx, d, index.Options{})
		if err != nil {
			return fmt.Errorf("cold sync: %w", err)
		}
		cold = append(cold, res.Elapsed)
		rep.Nodes, rep.Edges, rep.Files = res.Publication.Graph.NodeCount, res.Publication.Graph.EdgeCount, res.FilesParsed
		fmt.Fprintf(os.Stderr, "[corpus] cold sync %d/%d: %s\n", i+1, coldRuns, res.Elapsed.Round(time.Millisecond))
	}
	rep.ColdMs = median(cold)
	tracker, memory := source.NewTracker(), index.NewMemory()
	opts := index.Options{Tracker: tracker, Memory: memory}
	if _, err := index.Sync(ctx, d, opts); err != nil {
		return fmt.Errorf("worker warm-up sync: %w", err)
	}
	var published []time.Duration
	var phases [][]index.Timing
	for i := range editRuns {
		line := editLine(*edit, i)
		if err := os.WriteFile(file, append(append([]byte{}, orig...), line...), 0o644); err != nil {
			return err
		}
		tracker.Changed(filepath.ToSlash(filepath.Dir(*edit)))
		res, err := index.Sync(ctx, d, opts)
		if err != nil {
			return fmt.Errorf("edit sync: %w", err)
		}
		if res.Build != index.BuildIncremental || res.FilesChanged != 1 {
			return fmt.Errorf("edit sync: built %q over %d files", res.Build, res.FilesChanged)
		}
		published, phases = append(published, res.Published), append(phases, res.Timings)
	}
	rep.WorkerEditMs, rep.EditPhases = median(published), medianPhases(phases)
	fmt.Fprintf(os.Stderr, "[corpus] one-file edit (a worker's sync): median %.1f ms\n", rep.WorkerEditMs)
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		return err
	}
	tracker.Changed(filepath.ToSlash(filepath.Dir(*edit)))
	if _, err := index.Sync(ctx, d, opts); err != nil {
		return err
	}
	rep.PeakRSSMiB = selfPeakRSSMiB() // the child's own peak, not its inherited rusage
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// scriptsMarkdown renders the corpora's figures.
func scriptsMarkdown(reps []*scriptReport) string {
	if len(reps) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Corpora of the tree-sitter adapters\n\n")
	fmt.Fprintf(&b, "Machine: %s. Each adopted with the descriptor 'docforge init' writes; peak RSS is the measuring process's (cold syncs, then a worker's edits).\n\n", machine())
	fmt.Fprintf(&b, "| corpus | files | lines | nodes | edges | cold sync | per 1,000 lines | one-file edit (worker) | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range reps {
		perK := 0.0
		if r.Lines > 0 {
			perK = r.ColdMs * 1000 / float64(r.Lines)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.0f ms (%d runs) | %.1f ms | %.1f ms (%d runs) | %.0f MiB |\n",
			r.Name, r.Files, r.Lines, r.Nodes, r.Edges, r.ColdMs, r.ColdRuns, perK, r.WorkerEditMs, r.EditRuns, r.PeakRSSMiB)
	}
	return b.String()
}

// measureScripts measures the Python standard library and, where their tarballs are in
// corpora, the TypeScript, Rust and Java development corpora.
func measureScripts(ctx context.Context, dir, corpora string, runs int) (string, error) {
	var reps []*scriptReport
	py, err := ensurePythonStdlib(ctx, dir)
	if err != nil {
		return "", err
	}
	list := []scriptCorpus{py}
	for _, t := range []tarCorpus{
		{"MCP TypeScript SDK", "tssdk", "typescript-sdk-3924de9.tar.gz", "typescript-sdk", "packages/core-internal/src/shared/stdio.ts"},
		{"clap (Rust)", "clap", "clap-6982fb1.tar.gz", "clap", "clap_builder/src/builder/arg.rs"},
		{"jackson-core (Java)", "jackson", "jackson-core-b367da1.tar.gz", "jackson-core", "src/main/java/com/fasterxml/jackson/core/JsonPointer.java"},
	} {
		t.tarball = filepath.Join(corpora, t.tarball)
		c, err := ensureTarCorpus(ctx, dir, t)
		if err != nil {
			fmt.Fprintf(os.Stderr, "the %s corpus is left out: %v\n", t.name, err)
			continue
		}
		list = append(list, c)
	}
	for _, c := range list {
		rep, err := measureScriptsChild(ctx, c, runs)
		if err != nil {
			return "", err
		}
		reps = append(reps, rep)
	}
	return scriptsMarkdown(reps), nil
}
