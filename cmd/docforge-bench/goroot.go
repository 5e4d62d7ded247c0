package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// The Go adapter benchmark: the standard library source of the running toolchain, copied
// (without testdata) into a project whose code root it is.

const goDescriptor = `schema_version = 1

[project]
id = "goroot"
name = "The Go standard library"

[sources]
content_roots = ["docs"]
code_roots = ["src"]

# Links are relations, as 'docforge init' writes: a file added or removed is resolved against
# the documents whose links look it up.
[sources.links]
relation = "relates_to"

[relations]
allowed = ["calls", "contains", "defines", "imports", "tested_by", "implemented_by", "relates_to", "documents"]

[families.notes]
kinds = ["note"]
`

const goOverview = `+++
id = "note.overview"
kind = "note"
family = "notes"
title = "The Go standard library"
[relations]
implemented_by = ["go:fmt.Println", "go:net/http.Server.ListenAndServe"]
+++
The standard library of the toolchain that ran the benchmark, as a graph.
`

// goReport holds the Go adapter figures. Durations are in milliseconds.
type goReport struct {
	GoVersion   string         `json:"go_version"`
	StdPackages int            `json:"std_packages"` // go list std | wc -l
	GoFiles     int            `json:"go_files"`
	Packages    int64          `json:"package_nodes"`
	Nodes       int64          `json:"nodes"`
	Edges       int64          `json:"edges"`
	LogicSteps  int64          `json:"logic_steps"`
	LogicEdges  int64          `json:"logic_edges"`
	IndexMiB    float64        `json:"index_mib"`
	ColdMs      float64        `json:"cold_ms"`
	ColdRuns    int            `json:"cold_runs"`
	WarmMs      float64        `json:"warm_ms"`
	WarmRuns    int            `json:"warm_runs"`
	EditMs      float64        `json:"edit_ms"` // until the new generation is published
	EditTotalMs float64        `json:"edit_total_ms"`
	EditRuns    int            `json:"edit_runs"`
	EditPhases  []index.Timing `json:"edit_phases"`
	// The same edits as a worker syncs them: its watch tells a tracker the folder, and it
	// remembers the generation it published.
	WorkerEditMs     float64        `json:"worker_edit_ms"`
	WorkerEditPhases []index.Timing `json:"worker_edit_phases"`
	// A new Go file written and then removed again, each synced as the worker syncs it, and
	// the merges those syncs said were due (on this base, only every MergeDeltas deltas).
	NewFileMs      float64 `json:"new_file_ms"`
	RemoveFileMs   float64 `json:"remove_file_ms"`
	NewFileMergeMs float64 `json:"new_file_merge_ms"`
	NewFileMergeMB float64 `json:"new_file_merge_mb"` // written by a merge (/proc/self/io wchar)
	// A search through the worker service right after a one-file edit, over the delta the
	// edit published, and the same search again.
	WorkerSearchAfterEditMs float64        `json:"worker_search_after_edit_ms"`
	WorkerSearchMs          float64        `json:"worker_search_ms"`
	WorkerSearchDeltas      int            `json:"worker_search_deltas"`
	ColdPhases              []index.Timing `json:"cold_phases"`
	PeakRSSMiB              float64        `json:"peak_rss_mib"`
	// The edit sessions (editSession): functions added to print.go one at a time.
	SessionPaused   *sessionFigures `json:"session_paused,omitempty"`
	SessionNoPauses *sessionFigures `json:"session_no_pauses,omitempty"`
}

// ensureGoroot copies GOROOT/src once per Go version.
func ensureGoroot(dir string) (string, error) {
	proj, err := filepath.Abs(filepath.Join(dir, "goroot"))
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	marker := filepath.Join(proj, ".generated")
	want := "goroot " + src + " " + runtime.Version() + "\n"
	if got, err := os.ReadFile(marker); err != nil || string(got) != want {
		fmt.Fprintf(os.Stderr, "copying %s (without testdata) to %s ...\n", src, proj)
		if err := os.RemoveAll(proj); err != nil {
			return "", err
		}
		err = copyFiles(src, filepath.Join(proj, "src"), func(name string) bool { return name == "testdata" })
		if err != nil {
			return "", fmt.Errorf("copy GOROOT/src: %w", err)
		}
		if err := os.WriteFile(marker, []byte(want), 0o644); err != nil {
			return "", err
		}
	}
	// Written on every run, so that a copy made by an older benchmark measures this one's
	// project.
	for name, text := range map[string]string{"docforge.toml": goDescriptor, "docs/overview.md": goOverview} {
		p := filepath.Join(proj, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == text {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return proj, nil
}

// pristine reads the file rel of the GOROOT/src that the copy at proj was made from (its
// marker names it), or the copy's own where the marker does not.
func pristine(proj, rel string) ([]byte, error) {
	src := filepath.Join(proj, "src")
	if marker, err := os.ReadFile(filepath.Join(proj, ".generated")); err == nil {
		// "goroot <GOROOT/src> <Go version>"
		if f := strings.Fields(string(marker)); len(f) == 3 && f[0] == "goroot" {
			src = f[1]
		}
	}
	return os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
}

// measureGoChild runs 'measure-go' in a child process and adds its peak RSS and the std
// package count.
func measureGoChild(ctx context.Context, proj string, runs int) (*goReport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "measure-go", "--project", proj, "--runs", fmt.Sprint(runs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("measure GOROOT: %w", err)
	}
	var rep goReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("measure GOROOT: bad report: %w", err)
	}
	if std, err := exec.CommandContext(ctx, "go", "list", "std").Output(); err == nil {
		rep.StdPackages = strings.Count(string(std), "\n")
	}
	return &rep, nil
}

func measureGoCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("measure-go", flag.ContinueOnError)
	proj := fs.String("project", "", "the GOROOT copy")
	runs := fs.Int("runs", 0, "repetitions (0: 3 cold, 20 warm, 9 edits)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the last cold sync to `FILE`")
	sessionOnly := fs.Bool("session-only", false, "run only the edit sessions, on the index as it is")
	if err := fs.Parse(args); err != nil {
		return err
	}
	index.ApplyMemorySettings()
	d, probs, err := project.Load(*proj)
	if err != nil || d == nil {
		return fmt.Errorf("measure-go: %v %v", err, probs)
	}
	// The file the edits change comes from the GOROOT/src the copy was made from, and is
	// written back before anything is measured: a run killed before its own restore (its
	// output pipe closed, say) leaves its edit in the copy.
	file := filepath.Join(d.Root, "src", "fmt", "print.go")
	orig, err := pristine(d.Root, "fmt/print.go")
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		return err
	}
	defer os.WriteFile(file, orig, 0o644)
	coldRuns, warmRuns, editRuns := 3, 20, 9
	if *runs > 0 {
		coldRuns, warmRuns, editRuns = *runs, *runs, *runs
	}
	rep := &goReport{GoVersion: runtime.Version(), ColdRuns: coldRuns, WarmRuns: warmRuns, EditRuns: editRuns}
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "[goroot] "+format+"\n", a...) }
	if *sessionOnly {
		if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
			return err
		}
		if err := goSessions(ctx, d, file, orig, rep, logf); err != nil {
			return err
		}
		rep.PeakRSSMiB = selfPeakRSSMiB() // the child's own peak, not its inherited rusage
		return json.NewEncoder(os.Stdout).Encode(rep)
	}

	var times []time.Duration
	var phases [][]index.Timing
	for i := 0; i < coldRuns; i++ {
		if err := os.RemoveAll(publication.PathsFor(d, "").Dir); err != nil {
			return err
		}
		if *profile != "" && i == coldRuns-1 {
			f, err := os.Create(*profile)
			if err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer f.Close()
		}
		res, err := index.Sync(ctx, d, index.Options{})
		pprof.StopCPUProfile()
		if err != nil {
			return fmt.Errorf("cold sync: %w", err)
		}
		times, phases = append(times, res.Elapsed), append(phases, res.Timings)
		rep.Nodes, rep.Edges = res.Publication.Graph.NodeCount, res.Publication.Graph.EdgeCount
		logf("cold sync %d/%d: %s", i+1, coldRuns, res.Elapsed.Round(time.Millisecond))
	}
	rep.ColdMs, rep.ColdPhases = median(times), medianPhases(phases)
	if err := goCounts(publication.PathsFor(d, "").Index, rep); err != nil {
		return err
	}

	times = nil
	for i := 0; i < warmRuns; i++ {
		res, err := index.Sync(ctx, d, index.Options{})
		if err != nil || res.Build != index.BuildNone {
			return fmt.Errorf("warm sync: %v (build %v)", err, res)
		}
		times = append(times, res.Elapsed)
	}
	rep.WarmMs = median(times)
	logf("warm sync: median %.1f ms", rep.WarmMs)

	// edits adds a function to print.go and syncs, editRuns times, as opts syncs; told, if set,
	// is what a worker's watch tells its tracker.
	edits := func(name string, opts index.Options, told func()) (published, total []time.Duration, phases [][]index.Timing, err error) {
		for i := 0; i < editRuns; i++ {
			edited := fmt.Sprintf("%s\n// %s%d is added by the benchmark.\nfunc %s%d() { Sprint(%d) }\n", orig, name, i, name, i, i)
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				return nil, nil, nil, err
			}
			if told != nil {
				told()
			}
			res, err := index.Sync(ctx, d, opts)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("edit sync: %w", err)
			}
			if res.Build != index.BuildIncremental || res.FilesChanged != 1 {
				return nil, nil, nil, fmt.Errorf("edit sync: built %q over %d files", res.Build, res.FilesChanged)
			}
			published, total, phases = append(published, res.Published), append(total, res.Elapsed), append(phases, res.Timings)
		}
		return published, total, phases, nil
	}
	published, totals, phases, err := edits("benchEdit", index.Options{}, nil)
	if err != nil {
		return err
	}
	rep.EditMs, rep.EditTotalMs, rep.EditPhases = median(published), median(totals), medianPhases(phases)
	logf("one-file edit (a process without a watch): median %.1f ms", rep.EditMs)

	tracker, memory := source.NewTracker(), index.NewMemory()
	opts := index.Options{Tracker: tracker, Memory: memory}
	if _, err := index.Sync(ctx, d, opts); err != nil { // the worker's first sync walks and reads
		return fmt.Errorf("worker warm-up sync: %w", err)
	}
	published, _, phases, err = edits("benchWorkerEdit", opts, func() { tracker.Changed("src/fmt") })
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	rep.WorkerEditMs, rep.WorkerEditPhases = median(published), medianPhases(phases)
	logf("one-file edit (a worker's sync): median %.1f ms", rep.WorkerEditMs)

	// A new file, then the same file removed, as the worker syncs and merges them.
	var added, removed, merges []time.Duration
	var mergeMB []float64
	sync := func(what string) (time.Duration, error) {
		tracker.Changed("src/fmt")
		res, err := index.Sync(ctx, d, opts)
		if err != nil || res.Build != index.BuildIncremental {
			return 0, fmt.Errorf("%s: %v (build %v)", what, err, res)
		}
		if res.MergeDue != index.MergeNone {
			start := time.Now()
			mb, counted, err := writtenMB(func() error {
				_, err := index.Merge(ctx, d, index.MergeOptions{})
				return err
			})
			if err != nil {
				return 0, fmt.Errorf("%s: merge: %w", what, err)
			}
			merges = append(merges, time.Since(start))
			if counted {
				mergeMB = append(mergeMB, mb)
			}
		}
		return res.Published, nil
	}
	for i := 0; i < editRuns; i++ {
		newFile := filepath.Join(d.Root, "src", "fmt", fmt.Sprintf("bench_new_%d.go", i))
		src := fmt.Sprintf("package fmt\n\n// benchNew%d is added by the benchmark.\nfunc benchNew%d() { Sprint(%d) }\n", i, i, i)
		if err := os.WriteFile(newFile, []byte(src), 0o644); err != nil {
			return err
		}
		t, err := sync("new file")
		os.Remove(newFile) // whatever happened, the copy of GOROOT keeps its files
		if err != nil {
			return err
		}
		added = append(added, t)
		if t, err = sync("removed file"); err != nil {
			return err
		}
		removed = append(removed, t)
	}
	rep.NewFileMs, rep.RemoveFileMs, rep.NewFileMergeMs = median(added), median(removed), median(merges)
	rep.NewFileMergeMB = medianOf(mergeMB)
	logf("a new file (a worker's sync): median %.1f ms; removed again: %.1f ms; merges after them: median %.1f ms, %.1f MB written",
		rep.NewFileMs, rep.RemoveFileMs, rep.NewFileMergeMs, rep.NewFileMergeMB)

	if err := goWorkerSearch(ctx, d, file, orig, editRuns, rep); err != nil {
		return err
	}
	logf("edit, then a search through the worker: median %.1f ms; the same search again %.1f ms (%d deltas left)",
		rep.WorkerSearchAfterEditMs, rep.WorkerSearchMs, rep.WorkerSearchDeltas)
	if err := goSessions(ctx, d, file, orig, rep, logf); err != nil {
		return err
	}
	rep.PeakRSSMiB = selfPeakRSSMiB() // the child's own peak, not its inherited rusage
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// goSessions runs an edit session with pauses and one without over GOROOT/src, each adding
// a function to file at a time, each over a merged generation; file is written back after.
func goSessions(ctx context.Context, d *project.Descriptor, file string, orig []byte, rep *goReport, logf func(string, ...any)) error {
	defer os.WriteFile(file, orig, 0o644)
	searches := []string{"format value", "parse duration", "buffer", "read line", "http request header", "sort slice", "utf8 rune", "json encoder"}
	var tasks []json.RawMessage
	for i, task := range []string{"pad a formatted float with zeros", "read one line from a buffered reader", "add a header to an HTTP request",
		"decode a JSON object into a map", "sort a slice of strings stably"} {
		tasks = append(tasks, json.RawMessage(fmt.Sprintf(`{"kind":%q,"task":%q,"budget":8000}`, taskKinds[i%len(taskKinds)], task)))
	}
	n := 0
	var err error
	rep.SessionPaused, rep.SessionNoPauses, err = editSessions(ctx, sessionSpec{d: d, edits: sessionEdits, searches: searches, tasks: tasks,
		edit: func(k int) (string, int, error) {
			n++
			name := fmt.Sprintf("benchSession%d", n)
			edited := fmt.Sprintf("%s\n// %s is added by the benchmark.\nfunc %s() { Sprint(%d) }\n", orig, name, name, n)
			return name, len(edited), os.WriteFile(file, []byte(edited), 0o644)
		}}, logf)
	return err
}

// goWorkerSearch times what an agent waits for when it searches right after an edit: the
// real worker service, its own watch on, answering docforge_search after a function is added
// to file (whose original text is orig), and the same search again, runs times.
func goWorkerSearch(ctx context.Context, d *project.Descriptor, file string, orig []byte, runs int, rep *goReport) error {
	impl, err := index.CurrentImplementation()
	if err != nil {
		return err
	}
	svc := worker.NewService(impl, true)
	defer svc.Close()
	defer os.WriteFile(file, orig, 0o644)
	b := protocol.Binding{ProjectRoot: d.Root}
	if _, err := timedSearch(ctx, svc, b, "Sprint"); err != nil { // starts the watch, proves the index current
		return err
	}
	rep.WorkerSearchAfterEditMs, rep.WorkerSearchMs, rep.WorkerSearchDeltas, err = searchesAfterEdits(ctx, svc, b, d, runs, func(i int) (string, error) {
		edited := fmt.Sprintf("%s\n// benchSearchEdit%d formats a benchmark's value.\nfunc benchSearchEdit%d() { Sprint(%d) }\n", orig, i, i, i)
		return "format value", os.WriteFile(file, []byte(edited), 0o644)
	})
	return err
}

// goCounts reads the counts a publication receipt does not carry from the base segment a
// cold sync published.
func goCounts(manifest string, rep *goReport) error {
	m, err := index.ReadManifest(manifest)
	if err != nil {
		return err
	}
	path := filepath.Join(filepath.Dir(manifest), m.Segments[0].Name)
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadOnly)
	if err != nil {
		return err
	}
	defer conn.Close()
	for q, out := range map[string]*int64{
		`SELECT coalesce(sum(steps), 0) FROM logic`:         &rep.LogicSteps,
		`SELECT coalesce(sum(edges), 0) FROM logic`:         &rep.LogicEdges,
		`SELECT count(*) FROM nodes WHERE kind = 'package'`: &rep.Packages,
	} {
		if err := sqlitex.ExecuteTransient(conn, q, &sqlitex.ExecOptions{
			ResultFunc: func(s *sqlite.Stmt) error { *out = s.ColumnInt64(0); return nil },
		}); err != nil {
			return err
		}
	}
	var files int64
	// Text files under the code root are file nodes too: only the Go adapter's count here.
	if err := sqlitex.ExecuteTransient(conn, `SELECT count(*) FROM nodes WHERE kind = 'file' AND id >= 'go:' AND id < 'go;'`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error { files = s.ColumnInt64(0); return nil },
	}); err != nil {
		return err
	}
	rep.GoFiles = int(files)
	st, err := os.Stat(path)
	if err == nil {
		rep.IndexMiB = float64(st.Size()) / (1 << 20)
	}
	return nil
}

// goMarkdown renders the Go adapter figures and their targets.
func goMarkdown(r *goReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nGo adapter on GOROOT/src (%s, without testdata): %d Go files, %d package nodes (`go list std | wc -l`: %d), %d nodes, %d edges, %d Logic steps, %d Logic edges, index %.0f MiB.\n\n",
		r.GoVersion, r.GoFiles, r.Packages, r.StdPackages, r.Nodes, r.Edges, r.LogicSteps, r.LogicEdges, r.IndexMiB)
	b.WriteString("| figure | measured | target | met |\n|---|---|---|---|\n")
	row := func(name string, v, bound float64, unit, runs string) {
		met := "yes"
		if v > bound {
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %.1f %s (%s) | %g %s | %s |\n", name, v, unit, runs, bound, unit, met)
	}
	row("cold extraction and sync", r.ColdMs, 10000, "ms", fmt.Sprintf("median of %d", r.ColdRuns))
	row("warm (unchanged) sync", r.WarmMs, 1000, "ms", fmt.Sprintf("median of %d", r.WarmRuns))
	row("one-file edit republished, by a worker", r.WorkerEditMs, 80, "ms", fmt.Sprintf("median of %d", r.EditRuns))
	row("one-file edit republished, by a process without a watch", r.EditMs, 300, "ms", fmt.Sprintf("median of %d; %.1f ms with the old segments retired", r.EditRuns, r.EditTotalMs))
	fmt.Fprintf(&b, "| a new Go file republished, by a worker | %.1f ms (median of %d; removing it again %.1f ms; the merge the worker then runs %.1f ms, writing %.0f MB) | | |\n",
		r.NewFileMs, r.EditRuns, r.RemoveFileMs, r.NewFileMergeMs, r.NewFileMergeMB)
	row("peak RSS", r.PeakRSSMiB, 1536, "MiB", "whole child process")
	b.WriteString(sessionMarkdown("GOROOT/src", r.SessionPaused, r.SessionNoPauses))
	fmt.Fprintf(&b, "\nPhases (median ms): cold: %s; one-file edit by a worker: %s; without a watch: %s.\n", phaseList(r.ColdPhases), phaseList(r.WorkerEditPhases), phaseList(r.EditPhases))
	return b.String()
}
