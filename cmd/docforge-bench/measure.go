package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// report holds one project's figures. Durations are in milliseconds.
type report struct {
	Nodes        int     `json:"nodes"`
	Edges        int64   `json:"edges"`
	IndexMiB     float64 `json:"index_mib"`
	ColdMs       float64 `json:"cold_ms"`
	ColdRuns     int     `json:"cold_runs"`
	NoChangeMs   float64 `json:"no_change_ms"`
	NoChangeRuns int     `json:"no_change_runs"`
	EditMs       float64 `json:"edit_ms"`       // until the new generation is published
	EditTotalMs  float64 `json:"edit_total_ms"` // the whole sync, unlinking the old file included
	EditRuns     int     `json:"edit_runs"`
	// EditWrittenMB is what one edit's sync writes (median, MB of 10^6 bytes): the process's
	// write-side I/O over the sync (/proc/self/io wchar), index, copies and receipts alike.
	EditWrittenMB float64 `json:"edit_written_mb"`
	// The same edits as a worker syncs them (a tracker told the folder, the memory of the
	// generation it published), and WorkerCallMs: edit, then a call to the real worker service
	// with its watch, answered with the edit (median). WorkerRescans counts the service's
	// syncs that listed only the changed folder.
	WorkerEditMs        float64        `json:"worker_edit_ms"`
	WorkerEditTotalMs   float64        `json:"worker_edit_total_ms"`
	WorkerEditWrittenMB float64        `json:"worker_edit_written_mb"`
	WorkerEditPhases    []index.Timing `json:"worker_edit_phases"`
	WorkerCallMs        float64        `json:"worker_call_ms"`
	// WorkerSearchAfterEditMs: edit, then a search through the worker, over the edit's
	// delta; WorkerSearchMs the same search again; WorkerSearchDeltas the deltas
	// the generation had after them.
	WorkerSearchAfterEditMs float64 `json:"worker_search_after_edit_ms"`
	WorkerSearchMs          float64 `json:"worker_search_ms"`
	WorkerSearchDeltas      int     `json:"worker_search_deltas"`
	WorkerRescans           int64   `json:"worker_rescans"`
	SearchP50Ms             float64 `json:"search_p50_ms"`
	SearchP95Ms             float64 `json:"search_p95_ms"`
	// Common-term searches draw words the way bodies do, so a fifth of them are among the 80
	// most frequent words and match most nodes: the worst case for BM25 ranking.
	CommonP50Ms float64 `json:"common_search_p50_ms"`
	CommonP95Ms float64 `json:"common_search_p95_ms"`
	Searches    int     `json:"searches"`
	ImpactP50Ms float64 `json:"impact_p50_ms"`
	ImpactP95Ms float64 `json:"impact_p95_ms"`
	Impacts     int     `json:"impacts"`
	ImpactNodes float64 `json:"impact_nodes_p50"`
	// QueryDeltas is how many delta segments the generation had while the queries ran (the
	// edits before them publish one each).
	QueryDeltas int `json:"query_deltas"`
	// ToolsOverDeltas and ToolsMerged time the read tools through a worker service, over the
	// deltas and after their merge (tools.go).
	ToolsOverDeltas []toolTime `json:"tools_over_deltas,omitempty"`
	ToolsDeltas     int        `json:"tools_deltas"`
	ToolsMerged     []toolTime `json:"tools_merged,omitempty"`
	// CapsuleAfterEditMs and CapsuleAgainMs time a lexical capsule asked again after each of
	// a run of edits, and once more with nothing changed (capsulesAfterEdits).
	CapsuleAfterEditMs float64 `json:"capsule_after_edit_ms"`
	CapsuleAgainMs     float64 `json:"capsule_again_ms"`
	// OpenP50Ms is opening the generation (index.Open, then Close), median of 21: what a
	// worker does after every edit it publishes.
	OpenP50Ms float64 `json:"open_p50_ms"`
	// The merge step folds those deltas into a new base (index.Merge) and runs the queries
	// again. MergePeakRSSMiB is the process's peak RSS (VmHWM) after it: the merge's own when
	// the step runs alone (--steps merge), since the process then only opens and merges.
	MergeMs           float64 `json:"merge_ms"`
	MergeWrittenMB    float64 `json:"merge_written_mb"`
	MergePeakRSSMiB   float64 `json:"merge_peak_rss_mib"`
	MergedSearchP50Ms float64 `json:"merged_search_p50_ms"`
	MergedCommonP50Ms float64 `json:"merged_common_search_p50_ms"`
	MergedImpactP50Ms float64 `json:"merged_impact_p50_ms"`
	MergedOpenP50Ms   float64 `json:"merged_open_p50_ms"`
	PeakRSSMiB        float64 `json:"peak_rss_mib"`
	// The edit sessions: sessionEdits one-file edits through a running worker, each followed
	// by a pause of sessionPause, and the same with no pauses (editSession).
	SessionPaused   *sessionFigures `json:"session_paused,omitempty"`
	SessionNoPauses *sessionFigures `json:"session_no_pauses,omitempty"`
	// GoSysMiB is the memory the Go runtime had obtained after the cold syncs; the rest of the
	// peak RSS is SQLite's own allocations (page cache, FTS5 term buffer), which bypass Go.
	GoSysMiB   float64        `json:"go_sys_mib"`
	ColdPhases []index.Timing `json:"cold_phases"`
	EditPhases []index.Timing `json:"edit_phases"`
	Machine    string         `json:"machine"`
}

func measureCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("measure", flag.ContinueOnError)
	proj := fs.String("project", "", "generated project root")
	nodes := fs.Int("nodes", 0, "node count the project was generated with")
	runs := fs.Int("runs", 0, "repetitions (0: defaults)")
	profile := fs.Bool("profile", false, "write cold.pprof, nochange.pprof, edit.pprof and queries.pprof into the project")
	only := fs.String("steps", "cold,nochange,edit,worker,queries,capsules,merge,session", "steps to run; without cold the existing index is used")
	if err := fs.Parse(args); err != nil {
		return err
	}
	index.ApplyMemorySettings() // as the docforge command does, so the peak RSS is the real one
	if *proj == "" || *nodes <= 0 {
		return fmt.Errorf("measure: --project and --nodes are required")
	}
	d, probs, err := project.Load(*proj)
	if err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	if len(probs) > 0 {
		return fmt.Errorf("measure: descriptor problems: %v", probs)
	}
	m := &measurer{d: d, nodes: *nodes, gen: newGenerator(*nodes, 42), profile: *profile}
	rep := &report{Nodes: *nodes}
	coldRuns, editRuns := 3, 15
	if *nodes <= 10000 {
		coldRuns = 5
	}
	if *runs > 0 {
		coldRuns, editRuns = *runs, *runs
	}
	steps := []struct {
		name string
		run  func(context.Context, *report) error
	}{
		{"cold", func(ctx context.Context, r *report) error { return m.cold(ctx, r, coldRuns) }},
		{"nochange", func(ctx context.Context, r *report) error { return m.noChange(ctx, r, 50) }},
		{"edit", func(ctx context.Context, r *report) error { return m.edit(ctx, r, editRuns) }},
		{"worker", func(ctx context.Context, r *report) error { return m.editWorker(ctx, r, editRuns) }},
		{"queries", func(ctx context.Context, r *report) error {
			restore, err := m.ensureDeltas(ctx, queryDeltas)
			if err != nil {
				return err
			}
			if err := m.withProfile("queries.pprof", func() error { return m.queries(ctx, r, 400) }); err != nil {
				return err
			}
			if r.ToolsOverDeltas, r.ToolsDeltas, err = m.tools(ctx); err != nil {
				return err
			}
			return restore(ctx)
		}},
		{"capsules", func(ctx context.Context, r *report) error { return m.capsulesAfterEdits(ctx, r) }},
		{"merge", func(ctx context.Context, r *report) error { return m.merge(ctx, r, 400) }},
		{"session", func(ctx context.Context, r *report) error { return m.sessions(ctx, r) }},
	}
	want := strings.Split(*only, ",")
	for _, step := range steps {
		if !slices.Contains(want, step.name) {
			continue
		}
		if err := step.run(ctx, rep); err != nil {
			return err
		}
	}
	if slices.Contains(want, "edit") || slices.Contains(want, "worker") {
		// The edit steps restored the files they changed; leave the index current for the
		// next run.
		if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
			return fmt.Errorf("measure: sync the restored files: %w", err)
		}
	}
	rep.PeakRSSMiB = selfPeakRSSMiB() // the child's own peak, not its inherited rusage
	return json.NewEncoder(os.Stdout).Encode(rep)
}

type measurer struct {
	d       *project.Descriptor
	nodes   int
	gen     *generator
	profile bool
}

func (m *measurer) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%d] "+format+"\n", append([]any{m.nodes}, args...)...)
}

// withProfile runs fn under the CPU profiler when profiling is on.
func (m *measurer) withProfile(name string, fn func() error) error {
	if !m.profile {
		return fn()
	}
	f, err := os.Create(filepath.Join(m.d.Root, name))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return fn()
}

// cold removes the index and syncs from nothing, runs times.
func (m *measurer) cold(ctx context.Context, r *report, runs int) error {
	var times []time.Duration
	var phases [][]index.Timing
	for i := 0; i < runs; i++ {
		if err := os.RemoveAll(publication.PathsFor(m.d, "").Dir); err != nil {
			return err
		}
		var res *index.Result
		err := m.withProfileIf(i == runs-1, "cold.pprof", func() (err error) {
			res, err = index.Sync(ctx, m.d, index.Options{})
			return err
		})
		if err != nil {
			return fmt.Errorf("cold sync: %w", err)
		}
		if res.Build != index.BuildCold {
			return fmt.Errorf("cold sync: built %q", res.Build)
		}
		times = append(times, res.Elapsed)
		phases = append(phases, res.Timings)
		if res.Publication.Graph.NodeCount != int64(m.nodes) {
			return fmt.Errorf("cold sync: indexed %d nodes, generated %d", res.Publication.Graph.NodeCount, m.nodes)
		}
		r.Edges = res.Publication.Graph.EdgeCount
		m.logf("cold sync %d/%d: %s", i+1, runs, res.Elapsed.Round(time.Millisecond))
	}
	man, err := index.ReadManifest(publication.PathsFor(m.d, "").Index)
	if err != nil {
		return err
	}
	for _, s := range man.Segments {
		r.IndexMiB += float64(s.Size) / (1 << 20)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.GoSysMiB = float64(ms.Sys) / (1 << 20)
	r.ColdMs, r.ColdRuns = median(times), runs
	r.ColdPhases = medianPhases(phases)
	return nil
}

func (m *measurer) withProfileIf(on bool, name string, fn func() error) error {
	if !on {
		return fn()
	}
	return m.withProfile(name, fn)
}

// noChange syncs a current index: the stat walk and the receipt comparison only.
func (m *measurer) noChange(ctx context.Context, r *report, runs int) error {
	var times []time.Duration
	err := m.withProfile("nochange.pprof", func() error {
		for i := 0; i < runs; i++ {
			res, err := index.Sync(ctx, m.d, index.Options{})
			if err != nil {
				return fmt.Errorf("no-change sync: %w", err)
			}
			if res.Build != index.BuildNone {
				return fmt.Errorf("no-change sync: built %q", res.Build)
			}
			times = append(times, res.Elapsed)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.NoChangeMs, r.NoChangeRuns = median(times), runs
	m.logf("no-change sync: median %.2f ms", r.NoChangeMs)
	return nil
}

// edited is what a series of one-file edits measured.
type edited struct {
	publishedMs, totalMs, writtenMB float64
	phases                          []index.Timing
}

// edit rewrites one node's file (new body and one different relation) and syncs, runs times,
// each time a different node, then restores the files: as a process without a watch does
// (the CLI), walking the tree and reading the published file table back.
func (m *measurer) edit(ctx context.Context, r *report, runs int) error {
	e, err := m.edits(ctx, runs, "edit.pprof", index.Options{}, nil)
	if err != nil {
		return err
	}
	r.EditMs, r.EditTotalMs, r.EditRuns, r.EditPhases, r.EditWrittenMB = e.publishedMs, e.totalMs, runs, e.phases, e.writtenMB
	m.logf("one-file edit (a process without a watch): median %.1f ms, %.2f MB written", r.EditMs, r.EditWrittenMB)
	return nil
}

// editWorker makes the same edits as a worker syncs them: its watch tells a tracker the
// edited file's folder, and it remembers the generation it published. It then times what an
// agent waits for: the real worker service, its own fsnotify watch on, answering a call about
// the node right after each edit.
func (m *measurer) editWorker(ctx context.Context, r *report, runs int) error {
	tracker, memory := source.NewTracker(), index.NewMemory()
	opts := index.Options{Tracker: tracker, Memory: memory}
	// The first sync walks and reads the index, as a worker's first does.
	if _, err := index.Sync(ctx, m.d, opts); err != nil {
		return fmt.Errorf("worker warm-up sync: %w", err)
	}
	e, err := m.edits(ctx, runs, "edit-worker.pprof", opts, func(rel string) { tracker.Changed(path.Dir(rel)) })
	if err != nil {
		return err
	}
	r.WorkerEditMs, r.WorkerEditTotalMs, r.WorkerEditPhases, r.WorkerEditWrittenMB = e.publishedMs, e.totalMs, e.phases, e.writtenMB
	m.logf("one-file edit (a worker's sync): median %.1f ms, %.2f MB written", r.WorkerEditMs, r.WorkerEditWrittenMB)

	impl, err := index.CurrentImplementation()
	if err != nil {
		return err
	}
	svc := worker.NewService(impl, true)
	defer svc.Close()
	b := protocol.Binding{ProjectRoot: m.d.Root}
	call := func(i int) ([]byte, error) {
		out, err := svc.Call(ctx, b, "docforge_get_node", json.RawMessage(fmt.Sprintf(`{"node_id":%q}`, m.gen.nodeID(i))))
		if err != nil {
			return nil, fmt.Errorf("worker call: %w", err)
		}
		return out, nil
	}
	if _, err := call(0); err != nil { // starts the watch, proves the index current
		return err
	}
	rng := rand.New(rand.NewPCG(8, 8))
	var touched []int
	defer m.restore(&touched)
	var waits []time.Duration
	for k := 0; k < runs; k++ {
		i := rng.IntN(m.nodes)
		if err := m.rewrite(&touched, i, 1+k); err != nil {
			return err
		}
		start := time.Now()
		out, err := call(i)
		if err != nil {
			return err
		}
		waits = append(waits, time.Since(start))
		var a struct {
			Staleness string `json:"staleness"`
			Result    struct {
				Title string `json:"title"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &a); err != nil || a.Staleness != "current" || !strings.Contains(string(m.gen.node(i, 1+k)), fmt.Sprintf("title = %q", a.Result.Title)) {
			return fmt.Errorf("worker call after edit %d: not the edit's answer: %.300s", k, out)
		}
		time.Sleep(150 * time.Millisecond) // past the watch's debounce, so its background sync finds nothing to do
	}
	st := svc.Stats()
	r.WorkerCallMs, r.WorkerRescans = median(waits), st.Rescans
	m.logf("edit, then a call through the worker: median %.1f ms (%d of %d syncs listed only the changed folder)", r.WorkerCallMs, st.Rescans, st.Syncs)

	// A search right after an edit, over the delta it published, against the same search
	// again with nothing changed.
	r.WorkerSearchAfterEditMs, r.WorkerSearchMs, r.WorkerSearchDeltas, err = searchesAfterEdits(ctx, svc, b, m.d, runs, func(k int) (string, error) {
		return m.gen.vocab[rng.IntN(len(m.gen.vocab))], m.rewrite(&touched, rng.IntN(m.nodes), 1+runs+k)
	})
	if err != nil {
		return err
	}
	m.logf("edit, then a search through the worker: median %.1f ms; the same search again %.1f ms (%d deltas left)", r.WorkerSearchAfterEditMs, r.WorkerSearchMs, r.WorkerSearchDeltas)
	return nil
}

// searchesAfterEdits times what an agent waits for when it searches right after an edit: runs
// times, edit(k) changes a file and says what to search for, then the worker answers that
// search, and the same search again. It returns their medians and the deltas the generation
// of d has after them.
func searchesAfterEdits(ctx context.Context, svc *worker.Service, b protocol.Binding, d *project.Descriptor, runs int, edit func(k int) (query string, err error)) (afterEdit, again float64, deltas int, err error) {
	var first, second []time.Duration
	for k := 0; k < runs; k++ {
		q, err := edit(k)
		if err != nil {
			return 0, 0, 0, err
		}
		t, err := timedSearch(ctx, svc, b, q)
		if err != nil {
			return 0, 0, 0, err
		}
		first = append(first, t)
		if t, err = timedSearch(ctx, svc, b, q); err != nil {
			return 0, 0, 0, err
		}
		second = append(second, t)
		time.Sleep(150 * time.Millisecond) // past the watch's debounce, so its background sync finds nothing to do
	}
	man, err := index.ReadManifest(publication.PathsFor(d, "").Index)
	if err != nil {
		return 0, 0, 0, err
	}
	return median(first), median(second), man.Deltas(), nil
}

// timedSearch times docforge_search for q through the worker service, whose answer must be
// current.
func timedSearch(ctx context.Context, svc *worker.Service, b protocol.Binding, q string) (time.Duration, error) {
	start := time.Now()
	out, err := svc.Call(ctx, b, "docforge_search", json.RawMessage(fmt.Sprintf(`{"query":%q,"limit":20}`, q)))
	if err != nil {
		return 0, fmt.Errorf("worker search: %w", err)
	}
	if !strings.Contains(string(out), `"staleness":"current"`) {
		return 0, fmt.Errorf("worker search %q: not current: %.300s", q, out)
	}
	return time.Since(start), nil
}

// rewrite writes variant of node i's file (0 is the generated one) and adds i to touched, for
// restore.
func (m *measurer) rewrite(touched *[]int, i, variant int) error {
	*touched = append(*touched, i)
	return os.WriteFile(filepath.Join(m.d.Root, m.gen.relPath(i)), m.gen.node(i, variant), 0o644)
}

// restore writes the touched nodes' original files back.
func (m *measurer) restore(touched *[]int) {
	for _, i := range *touched {
		os.WriteFile(filepath.Join(m.d.Root, m.gen.relPath(i)), m.gen.node(i, 0), 0o644)
	}
}

// edits rewrites a random node's file and syncs with opts, runs times, telling told (if set)
// the file's project-relative path first; it restores the files when done.
func (m *measurer) edits(ctx context.Context, runs int, prof string, opts index.Options, told func(rel string)) (edited, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var times, totals []time.Duration
	var written []float64
	var phases [][]index.Timing
	var touched []int
	defer m.restore(&touched)
	err := m.withProfile(prof, func() error {
		for k := 0; k < runs; k++ {
			i := rng.IntN(m.nodes)
			if err := m.rewrite(&touched, i, 1+k); err != nil {
				return err
			}
			if told != nil {
				told(m.gen.relPath(i))
			}
			var res *index.Result
			mb, counted, err := writtenMB(func() (err error) {
				res, err = index.Sync(ctx, m.d, opts)
				return err
			})
			if err != nil {
				return fmt.Errorf("edit sync: %w", err)
			}
			if counted {
				written = append(written, mb)
			}
			if res.Build != index.BuildIncremental || res.FilesChanged != 1 {
				return fmt.Errorf("edit sync: built %q over %d files", res.Build, res.FilesChanged)
			}
			times = append(times, res.Published)
			totals = append(totals, res.Elapsed)
			phases = append(phases, res.Timings)
		}
		return nil
	})
	if err != nil {
		return edited{}, err
	}
	return edited{publishedMs: median(times), totalMs: median(totals), phases: medianPhases(phases), writtenMB: medianOf(written)}, nil
}

// queryDeltas is how many deltas the queries step measures over at least: how many the steps
// before it leave depends on when the worker step last merged.
const queryDeltas = 3

// ensureDeltas publishes one-file edits, one delta each, until the generation has at least
// n deltas, so that the queries and tools measure a layered generation. restore writes the
// edited files back and publishes them.
func (m *measurer) ensureDeltas(ctx context.Context, n int) (restore func(context.Context) error, err error) {
	var touched []int
	restore = func(ctx context.Context) error {
		if len(touched) == 0 {
			return nil
		}
		m.restore(&touched)
		_, err := index.Sync(ctx, m.d, index.Options{})
		return err
	}
	rng := rand.New(rand.NewPCG(13, 13))
	for k := 0; ; k++ {
		man, err := index.ReadManifest(publication.PathsFor(m.d, "").Index)
		if err != nil {
			return restore, err
		}
		if man.Deltas() >= n {
			return restore, nil
		}
		if err := m.rewrite(&touched, rng.IntN(m.nodes), 100+k); err != nil {
			return restore, err
		}
		if _, err := index.Sync(ctx, m.d, index.Options{}); err != nil {
			return restore, fmt.Errorf("publish a delta for the queries: %w", err)
		}
	}
}

// queries times searches for vocabulary words (one or two terms, weighted like the bodies) and
// depth-3 impact from random nodes, on one open snapshot.
func (m *measurer) queries(ctx context.Context, r *report, n int) error {
	man, err := index.ReadManifest(publication.PathsFor(m.d, "").Index)
	if err != nil {
		return err
	}
	r.QueryDeltas = man.Deltas()
	var opens []time.Duration
	for range 21 {
		start := time.Now()
		snap, err := index.Open(ctx, m.d)
		if err != nil {
			return err
		}
		opens = append(opens, time.Since(start))
		snap.Close()
	}
	r.OpenP50Ms = median(opens)
	snap, err := index.Open(ctx, m.d)
	if err != nil {
		return err
	}
	defer snap.Close()
	rng := rand.New(rand.NewPCG(9, 9))
	var search, common, impact []time.Duration
	var reached []float64
	timeSearch := func(q string) (time.Duration, error) {
		start := time.Now()
		if _, err := snap.Search(ctx, q, 20); err != nil {
			return 0, fmt.Errorf("search %q: %w", q, err)
		}
		return time.Since(start), nil
	}
	for k := 0; k < n; k++ {
		// A word someone looks for: any word of the vocabulary, equally likely.
		q := m.gen.vocab[rng.IntN(len(m.gen.vocab))]
		c := m.gen.word(rng)
		if k%2 == 1 {
			q += " " + m.gen.vocab[rng.IntN(len(m.gen.vocab))]
			c += " " + m.gen.word(rng)
		}
		d, err := timeSearch(q)
		if err != nil {
			return err
		}
		search = append(search, d)
		if d, err = timeSearch(c); err != nil {
			return err
		}
		common = append(common, d)

		id := m.gen.nodeID(rng.IntN(m.nodes))
		start := time.Now()
		res, err := snap.Impact(ctx, id, index.ImpactOptions{Depth: 3})
		if err != nil {
			return fmt.Errorf("impact %s: %w", id, err)
		}
		impact = append(impact, time.Since(start))
		reached = append(reached, float64(len(res.Nodes)))
	}
	r.SearchP50Ms, r.SearchP95Ms = percentile(search, 50), percentile(search, 95)
	r.CommonP50Ms, r.CommonP95Ms = percentile(common, 50), percentile(common, 95)
	r.ImpactP50Ms, r.ImpactP95Ms = percentile(impact, 50), percentile(impact, 95)
	r.Searches, r.Impacts = n, n
	slices.Sort(reached)
	r.ImpactNodes = reached[len(reached)/2]
	m.logf("open p50 %.2f ms; search p50 %.2f ms p95 %.2f ms (common terms %.2f / %.2f); impact p50 %.2f ms; %d deltas", r.OpenP50Ms,
		r.SearchP50Ms, r.SearchP95Ms, r.CommonP50Ms, r.CommonP95Ms, r.ImpactP50Ms, r.QueryDeltas)
	return nil
}

// merge folds the published deltas into a new base and runs the queries again on it.
func (m *measurer) merge(ctx context.Context, r *report, n int) error {
	// The files the steps before restored are published first, so that the merge folds them
	// too and what runs after it reads one segment.
	if _, err := index.Sync(ctx, m.d, index.Options{}); err != nil {
		return fmt.Errorf("sync the restored files: %w", err)
	}
	var res *index.MergeResult
	start := time.Now()
	mb, _, err := writtenMB(func() (err error) {
		res, err = index.Merge(ctx, m.d, index.MergeOptions{Full: true})
		return err
	})
	if err != nil {
		return err
	}
	r.MergeMs, r.MergeWrittenMB = float64(time.Since(start).Microseconds())/1000, mb
	r.MergePeakRSSMiB = selfPeakRSSMiB()
	m.logf("merge of %d deltas: %.0f ms, %.1f MB written, peak RSS %.0f MiB", res.Merged, r.MergeMs, r.MergeWrittenMB, r.MergePeakRSSMiB)
	merged := &report{}
	if err := m.queries(ctx, merged, n); err != nil {
		return err
	}
	r.MergedSearchP50Ms, r.MergedCommonP50Ms, r.MergedImpactP50Ms = merged.SearchP50Ms, merged.CommonP50Ms, merged.ImpactP50Ms
	r.MergedOpenP50Ms = merged.OpenP50Ms
	r.ToolsMerged, _, err = m.tools(ctx)
	return err
}

// procStatusMiB reads one memory figure of this process from /proc/self/status (Linux), in
// MiB, or 0 where unknown.
func procStatusMiB(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

func median(ds []time.Duration) float64 { return percentile(ds, 50) }

// percentile returns the nearest-rank percentile of ds in milliseconds.
func percentile(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	i = min(max(i-1, 0), len(s)-1)
	return float64(s[i]) / float64(time.Millisecond)
}

// medianOf returns the nearest-rank median of xs, 0 when there is none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)+1)/2-1]
}

// medianCount returns the nearest-rank median of counts.
func medianCount(counts []int) float64 {
	if len(counts) == 0 {
		return 0
	}
	s := slices.Clone(counts)
	slices.Sort(s)
	return float64(s[(len(s)+1)/2-1])
}

// medianPhases returns, for each phase of the last run (the steady state: a first run may
// take another path, such as reading what a later one remembers), its median duration over
// the runs that had it.
func medianPhases(runs [][]index.Timing) []index.Timing {
	if len(runs) == 0 {
		return nil
	}
	var out []index.Timing
	for _, t := range runs[len(runs)-1] {
		var ds []time.Duration
		for _, run := range runs {
			for _, p := range run {
				if p.Phase == t.Phase {
					ds = append(ds, time.Duration(p.Ms*float64(time.Millisecond)))
					break
				}
			}
		}
		out = append(out, index.Timing{Phase: t.Phase, Ms: median(ds)})
	}
	return out
}

// writtenMB runs fn and returns how many MB this process wrote through system calls meanwhile
// (Linux's /proc/self/io wchar), and whether that count is available.
func writtenMB(fn func() error) (mb float64, counted bool, err error) {
	before, ok := writeChars()
	if err := fn(); err != nil {
		return 0, false, err
	}
	after, ok2 := writeChars()
	if !ok || !ok2 {
		return 0, false, nil
	}
	return float64(after-before) / 1e6, true, nil
}

// writeChars is how many bytes this process has written through system calls so far, and
// whether the count is available.
func writeChars() (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Edit sessions: how many one-file edits, and the pause after each that an editor's
// autosave leaves.
const (
	sessionEdits = 50
	sessionPause = 2 * time.Second
)

// sessions runs an edit session with pauses and one without, each over a merged generation,
// and restores the edited files.
func (m *measurer) sessions(ctx context.Context, r *report) error {
	rng := rand.New(rand.NewPCG(31, 31))
	var touched []int
	defer m.restore(&touched)
	var tasks []json.RawMessage
	for k := range 10 {
		args, err := json.Marshal(taskArgs(m.gen, rng, k, m.nodes, false))
		if err != nil {
			return err
		}
		tasks = append(tasks, args)
	}
	var searches []string
	for range 20 {
		searches = append(searches, m.gen.vocab[rng.IntN(len(m.gen.vocab))])
	}
	variant := 600
	var err error
	r.SessionPaused, r.SessionNoPauses, err = editSessions(ctx, sessionSpec{d: m.d, edits: sessionEdits, searches: searches, tasks: tasks,
		edit: func(k int) (string, int, error) {
			i := rng.IntN(m.nodes)
			variant++
			return m.gen.nodeID(i), len(m.gen.node(i, variant)), m.rewrite(&touched, i, variant)
		}}, m.logf)
	return err
}
