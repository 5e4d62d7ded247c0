package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// sessionFigures are what an edit session through a running worker cost and left: the bytes
// the process wrote (the edited sources' own bytes left out), how often the base was
// rewritten, and search and task-context medians over the generation it left, beside the
// same over a freshly merged one.
type sessionFigures struct {
	Edits             int     `json:"edits"`
	PauseMs           float64 `json:"pause_ms"`
	WrittenMB         float64 `json:"written_mb"`
	PerEditMB         float64 `json:"per_edit_mb"`
	BaseRewrites      int     `json:"base_rewrites"`
	Deltas            int     `json:"deltas"`
	SearchP50Ms       float64 `json:"search_p50_ms"`
	TaskP50Ms         float64 `json:"task_p50_ms"`
	MergedSearchP50Ms float64 `json:"merged_search_p50_ms"`
	MergedTaskP50Ms   float64 `json:"merged_task_p50_ms"`
}

// sessionSpec is one edit session: edit(k) changes one file and says what a search finds
// only once the change is indexed, and how many bytes of source it wrote; searches and tasks
// (task-context arguments) are what is timed after the session.
type sessionSpec struct {
	d        *project.Descriptor
	edits    int
	pause    time.Duration
	edit     func(k int) (query string, written int, err error)
	searches []string
	tasks    []json.RawMessage
}

// sessionRounds is how many times the queries after a session are timed: a p50 of a few
// milliseconds moves by a tenth between runs of 24 samples.
const sessionRounds = 10

// sessionSettle is how long the session waits after its last edit before it counts the
// bytes: merges due once the edits pause run and are counted.
const sessionSettle = 2 * time.Second

// editSession runs s through the real worker service, its fsnotify watch on: each edit is
// followed by a search that must see it (the worker syncs before it answers), then the pause.
func editSession(ctx context.Context, s sessionSpec) (sessionFigures, error) {
	f := sessionFigures{Edits: s.edits, PauseMs: float64(s.pause.Milliseconds())}
	impl, err := index.CurrentImplementation()
	if err != nil {
		return f, err
	}
	svc := worker.NewService(impl, true)
	defer svc.Close()
	b := protocol.Binding{ProjectRoot: s.d.Root}
	manifest := publication.PathsFor(s.d, "").Index
	base := func() (string, int, error) {
		m, err := index.ReadManifest(manifest)
		if err != nil {
			return "", 0, err
		}
		return m.Segments[0].Name, m.Deltas(), nil
	}
	if _, err := timedSearch(ctx, svc, b, "benchmark"); err != nil { // starts the watch
		return f, err
	}
	lastBase, _, err := base()
	if err != nil {
		return f, err
	}
	before, counted := writeChars()
	sources := 0
	for k := range s.edits {
		q, n, err := s.edit(k)
		if err != nil {
			return f, err
		}
		sources += n
		out, err := svc.Call(ctx, b, "docforge_search", json.RawMessage(fmt.Sprintf(`{"query":%q,"limit":5}`, q)))
		if err != nil {
			return f, fmt.Errorf("search after edit %d: %w", k, err)
		}
		if !strings.Contains(string(out), `"staleness":"current"`) || !strings.Contains(string(out), q) {
			return f, fmt.Errorf("search after edit %d does not see it: %.300s", k, out)
		}
		time.Sleep(s.pause)
		name, _, err := base()
		if err != nil {
			return f, err
		}
		if name != lastBase {
			f.BaseRewrites++
			lastBase = name
		}
	}
	time.Sleep(sessionSettle)
	after, counted2 := writeChars()
	if counted && counted2 {
		f.WrittenMB = float64(after-before-int64(sources)) / 1e6
		f.PerEditMB = f.WrittenMB / float64(s.edits)
	}
	name, deltas, err := base()
	if err != nil {
		return f, err
	}
	if name != lastBase {
		f.BaseRewrites++
	}
	f.Deltas = deltas
	if f.SearchP50Ms, f.TaskP50Ms, err = sessionQueries(ctx, svc, b, s); err != nil {
		return f, err
	}
	if _, err := index.Merge(ctx, s.d, index.MergeOptions{Full: true}); err != nil {
		return f, fmt.Errorf("merge after the session: %w", err)
	}
	f.MergedSearchP50Ms, f.MergedTaskP50Ms, err = sessionQueries(ctx, svc, b, s)
	return f, err
}

// sessionQueries times each search and task sessionRounds times through the worker, after a
// first round that is not timed (it fills the snapshot's caches, as the first queries after
// an edit do), and returns the medians.
func sessionQueries(ctx context.Context, svc *worker.Service, b protocol.Binding, s sessionSpec) (search, task float64, err error) {
	var searches, tasks []time.Duration
	for round := range 1 + sessionRounds {
		if round == 1 {
			searches, tasks = nil, nil
		}
		for _, q := range s.searches {
			t, err := timedSearch(ctx, svc, b, q)
			if err != nil {
				return 0, 0, err
			}
			searches = append(searches, t)
		}
		for _, args := range s.tasks {
			start := time.Now()
			if _, err := svc.Call(ctx, b, "docforge_get_task_context", args); err != nil {
				return 0, 0, fmt.Errorf("task context: %w", err)
			}
			tasks = append(tasks, time.Since(start))
		}
	}
	return median(searches), median(tasks), nil
}

// sessionMarkdown renders the edit sessions of one project as rows of the figure table:
// bytes an edit against the 2 MB bound, search over what the session left against 1.3 times
// a freshly merged generation's.
func sessionMarkdown(project string, sessions ...*sessionFigures) string {
	var b strings.Builder
	for _, f := range sessions {
		if f == nil {
			continue
		}
		how := fmt.Sprintf("%d edits, a %.0f s pause after each", f.Edits, f.PauseMs/1000)
		if f.PauseMs == 0 {
			how = fmt.Sprintf("%d edits, no pauses", f.Edits)
		}
		met := func(ok bool) string {
			if ok {
				return "yes"
			}
			return "**no**"
		}
		fmt.Fprintf(&b, "| edit session on %s (%s): written an edit | %.2f MB (%.1f MB in all; %d base rewrites; %d deltas left) | 2 MB | %s |\n",
			project, how, f.PerEditMB, f.WrittenMB, f.BaseRewrites, f.Deltas, met(f.PerEditMB <= 2))
		fmt.Fprintf(&b, "| edit session on %s (%s): search p50 after it | %.2f ms (freshly merged %.2f ms; task context %.1f ms, merged %.1f ms) | 1.3x merged | %s |\n",
			project, how, f.SearchP50Ms, f.MergedSearchP50Ms, f.TaskP50Ms, f.MergedTaskP50Ms, met(f.SearchP50Ms <= 1.3*f.MergedSearchP50Ms))
	}
	return b.String()
}

// editSessions runs the session s describes twice, each over a freshly merged generation:
// with a pause of sessionPause after each edit, then with none, and logs each.
func editSessions(ctx context.Context, s sessionSpec, logf func(string, ...any)) (paused, none *sessionFigures, err error) {
	for _, pause := range []time.Duration{sessionPause, 0} {
		if _, err := index.Merge(ctx, s.d, index.MergeOptions{Full: true}); err != nil {
			return nil, nil, fmt.Errorf("session: merge before it: %w", err)
		}
		s.pause = pause
		f, err := editSession(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		logf("edit session, %d edits, pause %s: %.1f MB written (%.2f MB an edit), %d base rewrites, %d deltas left; search p50 %.2f ms (merged %.2f), task context p50 %.1f ms (merged %.1f)",
			f.Edits, pause, f.WrittenMB, f.PerEditMB, f.BaseRewrites, f.Deltas, f.SearchP50Ms, f.MergedSearchP50Ms, f.TaskP50Ms, f.MergedTaskP50Ms)
		if pause > 0 {
			paused = &f
		} else {
			none = &f
		}
	}
	return paused, none, nil
}
