package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// watch tells whether any source of one project may have changed since the last sync that
// proved the index current, so a call can skip the stat walk. It watches every directory of
// the content and code roots and the project root (for docforge.toml) with fsnotify.
//
// fsnotify delivers events asynchronously, so "no event yet" would not prove "no change yet".
// A barrier closes that gap: it creates a uniquely named file in a watched directory and waits
// for its event. One inotify queue delivers events in order, so once the barrier's event has
// arrived, every change completed before the call has been seen.
//
// Folders come and go under it (a rename, git checkout, a root deleted and made again), and
// fsnotify drops the watch of a folder that moves. So any event on a folder, or on a folder
// between the project root and a root, marks the tree for a rescan: before the next sync
// reads the sources, every directory is watched again, after a barrier has let fsnotify
// settle the events that came before. A watch that failed (a queue overflow lost events) is
// rebuilt the same way, and the sync's full walk covers what it missed.
type watch struct {
	w          *fsnotify.Watcher
	barrierDir string
	root       string
	roots      []string // absolute content and code roots, watched with all their directories
	// configs are the absolute paths of the files the descriptor depends on
	// (project.Descriptor.ConfigFiles): an event on one is a change of every source.
	configs map[string]bool
	// ancestors are the directories between the project root and each root: watched (not
	// recursively) so that a root's removal and re-creation are seen.
	ancestors map[string]bool
	health    string // the file 'docforge status' reads the watch's health from

	mu sync.Mutex
	// changes counts source events; proven is the count a finished sync started from, so the
	// index is proven current exactly when proven == changes. A sync in flight has not proven
	// anything yet: a call that arrives meanwhile must wait for it, not answer from the old
	// snapshot. -1: never proven (or the last sync failed).
	changes, proven int64
	next            int // barrier sequence
	waiting         map[string]chan struct{}
	failed          error  // the watch broke (overflow, watch limit): callers fall back to the walk
	changed         func() // told of every source event (outside the lock), to schedule a rebuild
	// dirs are the directories added so far; a rename or removal of one marks rescan.
	dirs   map[string]bool
	rescan bool
	// failures counts the times the watch broke, repairs the rebuilds that followed; lastErr
	// is the last failure.
	failures, repairs int64
	lastErr           string
	// tracker is told which folders' files changed, so a sync lists only those again.
	tracker *source.Tracker
	// checked is when the last stat walk that found the index current began: the watch's
	// proof stands only so long after it (unchanged), for an edit no event reports.
	checked time.Time
}

// WatchHealth is what the watch reports of itself: in the worker's stats, and in a file of
// the state directory that 'docforge status' reads.
type WatchHealth struct {
	// State is "ok", "failed" (events may have been lost; the next sync walks and rebuilds
	// the watch) or "off" (it could not start: every call walks the tree).
	State     string `json:"state"`
	Failures  int64  `json:"failures"`
	Repairs   int64  `json:"repairs"`
	LastError string `json:"last_error,omitempty"`
	// At is when the state last changed (RFC 3339).
	At string `json:"at"`
}

// WatchHealthFile is the watch's health file, relative to the state directory.
const WatchHealthFile = "watch-health.json" // beside the barrier folder, whose files are barriers

// barrierPrefix names barrier files; they live in the state directory.
const barrierPrefix = "barrier-"

func startWatch(d *project.Descriptor, changed func()) (*watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch sources: %w", err)
	}
	wt := &watch{w: fw, barrierDir: d.StatePath("watch"), root: d.Root, proven: -1, waiting: map[string]chan struct{}{}, changed: changed,
		ancestors: map[string]bool{}, dirs: map[string]bool{}, health: d.StatePath(filepath.FromSlash(WatchHealthFile)),
		tracker: source.NewTracker(), configs: map[string]bool{}}
	for _, name := range d.ConfigFiles() {
		wt.configs[filepath.Join(d.Root, name)] = true
	}
	if err := os.MkdirAll(wt.barrierDir, 0o755); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch sources: %w", err)
	}
	for _, r := range append(append([]string{}, d.Sources.ContentRoots...), d.Sources.CodeRoots...) {
		abs := filepath.Join(d.Root, filepath.FromSlash(r))
		wt.roots = append(wt.roots, abs)
		for dir := filepath.Dir(abs); dir != d.Root && project.Within(d.Root, dir); dir = filepath.Dir(dir) {
			wt.ancestors[dir] = true
		}
	}
	// The barrier folder must exist before anything else is watched.
	if err := fw.Add(wt.barrierDir); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch %s: %w", wt.barrierDir, err)
	}
	if err := wt.addAll(); err != nil {
		fw.Close()
		return nil, err
	}
	go wt.loop()
	wt.report()
	return wt, nil
}

// addAll watches the project root (for docforge.toml and its own top folders), the roots'
// ancestors and every directory of the roots. A watch that exists already is kept, so this
// is also how the tree is watched again after folders moved.
func (wt *watch) addAll() error {
	if err := wt.w.Add(wt.root); err != nil {
		return fmt.Errorf("watch %s: %w", wt.root, err)
	}
	for _, dir := range slices.Sorted(maps.Keys(wt.ancestors)) {
		if err := wt.w.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	for _, dir := range wt.roots {
		if err := wt.addTree(dir); err != nil {
			return err
		}
	}
	return nil
}

// addTree watches dir and every directory below it, skipping hidden ones (never sources).
func (wt *watch) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if err := wt.w.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir // gone since the walk read it: its removal is an event
			}
			return fmt.Errorf("watch %s: %w", p, err)
		}
		wt.mu.Lock()
		wt.dirs[p] = true
		wt.mu.Unlock()
		return nil
	})
}

func (wt *watch) loop() {
	for {
		select {
		case ev, ok := <-wt.w.Events:
			if !ok {
				return
			}
			wt.event(ev)
		case err, ok := <-wt.w.Errors:
			if !ok {
				return
			}
			wt.fail(err)
		}
	}
}

// fail records that the watch broke: events may have been lost (an overflow), so nothing is
// proven until a sync has walked the tree and rebuilt the watch.
func (wt *watch) fail(err error) {
	wt.tracker.ChangedAll()
	wt.mu.Lock()
	wt.changes++
	wt.failed, wt.rescan = err, true
	wt.failures++
	wt.lastErr = err.Error()
	wt.mu.Unlock()
	wt.report()
	if wt.changed != nil {
		wt.changed()
	}
}

// healthNow returns the watch's health.
func (wt *watch) healthNow() WatchHealth {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	h := WatchHealth{State: "ok", Failures: wt.failures, Repairs: wt.repairs, LastError: wt.lastErr, At: time.Now().UTC().Format(time.RFC3339)}
	if wt.failed != nil {
		h.State = "failed"
	}
	return h
}

// report writes the health file.
func (wt *watch) report() { writeWatchHealth(wt.health, wt.healthNow()) }

// writeWatchHealth writes a health file; failing to write it changes nothing the watch does.
func writeWatchHealth(path string, h WatchHealth) {
	if data, err := json.Marshal(h); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		safefile.WriteFile(path, append(data, '\n'), 0o644)
	}
}

// ReadWatchHealth reads the health file a worker's watch of the project wrote, if any.
func ReadWatchHealth(d *project.Descriptor) (WatchHealth, bool) {
	return readWatchHealth(d.StatePath(filepath.FromSlash(WatchHealthFile)))
}

func readWatchHealth(path string) (WatchHealth, bool) {
	var h WatchHealth
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &h) != nil {
		return h, false
	}
	return h, true
}

func (wt *watch) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == wt.barrierDir {
		wt.barrierEvent(ev)
		return
	}
	toRoot := wt.leadsToRoot(ev.Name)
	if !wt.inRoots(ev.Name) && !toRoot && !wt.configs[ev.Name] {
		return // another entry of the project root (a build output, an editor's file): not a source
	}
	wt.mu.Lock()
	structural := toRoot || ev.Has(fsnotify.Remove|fsnotify.Rename) && wt.dirs[ev.Name]
	if structural {
		delete(wt.dirs, ev.Name)
	}
	wt.mu.Unlock()
	if ev.Has(fsnotify.Create) && (wt.inRoots(ev.Name) || toRoot) && wt.watchNewFolder(ev.Name, toRoot) {
		structural = true
	}
	// A .gitignore changes what the folders below it hold: walk.
	if rel, err := filepath.Rel(wt.root, filepath.Dir(ev.Name)); err == nil && !structural && wt.inRoots(ev.Name) &&
		!wt.configs[ev.Name] && filepath.Base(ev.Name) != ".gitignore" {
		wt.tracker.Changed(filepath.ToSlash(rel))
	} else {
		wt.tracker.ChangedAll() // the descriptor, or the folders
	}
	wt.mu.Lock()
	wt.changes++
	wt.rescan = wt.rescan || structural
	wt.mu.Unlock()
	if wt.changed != nil {
		wt.changed()
	}
}

// barrierEvent releases the waiter of a barrier file whose creation arrived, and removes it.
func (wt *watch) barrierEvent(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) || !strings.HasPrefix(filepath.Base(ev.Name), barrierPrefix) {
		return
	}
	wt.mu.Lock()
	if ch, ok := wt.waiting[filepath.Base(ev.Name)]; ok {
		close(ch)
		delete(wt.waiting, filepath.Base(ev.Name))
	}
	wt.mu.Unlock()
	os.Remove(ev.Name)
}

// watchNewFolder watches a folder created under a root (or on the way to one) at once, so
// that what is written into it next is seen; the rescan before the next sync makes sure
// (fsnotify may yet drop it, if it moved here). It reports whether p is such a folder.
func (wt *watch) watchNewFolder(p string, toRoot bool) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() || strings.HasPrefix(filepath.Base(p), ".") {
		return false
	}
	if toRoot && !wt.inRoots(p) {
		wt.w.Add(p)
	} else {
		wt.addTree(p)
	}
	return true
}

// leadsToRoot reports whether p is a root or one of the roots' ancestors below the project
// root: an event there can make a root appear or disappear.
func (wt *watch) leadsToRoot(p string) bool {
	if wt.ancestors[p] {
		return true
	}
	return slices.Contains(wt.roots, p)
}

func (wt *watch) inRoots(p string) bool {
	for _, r := range wt.roots {
		if project.Within(r, p) {
			return true
		}
	}
	return false
}

// unchanged reports whether no source can have changed since the index was last proven
// current: it waits for a barrier, then reads the state. The proof also needs a stat walk
// within age (fresh); renew says the last is over half that old, and one is due.
func (wt *watch) unchanged(ctx context.Context, age time.Duration) (fresh, renew bool) {
	wt.mu.Lock()
	since := time.Since(wt.checked)
	proven := wt.failed == nil && !wt.rescan && wt.proven == wt.changes
	wt.mu.Unlock()
	renew = proven && since > age/2
	if !proven || since > age || !wt.barrier(ctx) {
		return false, renew
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.proven == wt.changes && wt.failed == nil && !wt.rescan, renew
}

// seen is the count of source events so far.
func (wt *watch) seen() int64 {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.changes
}

// reproved records a stat walk begun at start, when the events counted were from, that found
// the index current: the proof stands from start, unless an event came since.
func (wt *watch) reproved(from int64, start time.Time) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if wt.changes == from && start.After(wt.checked) {
		wt.checked = start
	}
}

// barrier writes a uniquely named file into the barrier folder and waits for its event: once
// it arrives, fsnotify has handled every event queued before it.
func (wt *watch) barrier(ctx context.Context) bool {
	wt.mu.Lock()
	wt.next++
	name := barrierPrefix + strconv.Itoa(wt.next)
	ch := make(chan struct{})
	wt.waiting[name] = ch
	wt.mu.Unlock()
	defer func() {
		wt.mu.Lock()
		delete(wt.waiting, name) // its event may never come
		wt.mu.Unlock()
	}()
	if err := os.WriteFile(filepath.Join(wt.barrierDir, name), nil, 0o600); err != nil {
		return false
	}
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(2 * time.Second): // a watch that stopped delivering: walk instead
		wt.fail(errors.New("the watch's barrier event did not arrive within 2s"))
		return false
	}
}

// beginSync returns the point a sync starts from: changes after it are not covered by it.
// A barrier first lets every change made before the call reach the tracker, which the sync
// lists the sources from. When folders moved or the watch failed, it also watches the whole
// tree again (after the barrier, so that fsnotify has dropped what it will drop), and returns
// the failure it repaired, if any, for the caller to report. walked says the sync walks
// every source: when the watch's last stat walk is older than age, it must, since an edit no
// event reported would go unseen otherwise.
func (wt *watch) beginSync(ctx context.Context, age time.Duration) (from int64, walked bool, repaired error) {
	wt.mu.Lock()
	need := wt.rescan
	walked = time.Since(wt.checked) > age
	wt.mu.Unlock()
	if walked {
		wt.tracker.ChangedAll()
	}
	if !need {
		if !wt.barrier(ctx) {
			wt.tracker.ChangedAll() // events may be on their way: walk
		}
		wt.mu.Lock()
		defer wt.mu.Unlock()
		return wt.changes, walked, nil
	}
	wt.mu.Lock()
	from = wt.changes
	wt.mu.Unlock()
	if !wt.barrier(ctx) {
		return from, walked, nil // still marked: the next sync tries again
	}
	wt.mu.Lock()
	repaired = wt.failed
	wt.rescan = false // events from here on mark it again
	wt.mu.Unlock()
	if err := wt.addAll(); err != nil {
		wt.fail(err)
		return from, walked, nil
	}
	if repaired != nil {
		wt.mu.Lock()
		wt.failed = nil
		wt.repairs++
		wt.mu.Unlock()
		wt.report()
	}
	return from, walked, repaired
}

// markDirty forgets that the index was proven current.
func (wt *watch) markDirty() {
	wt.mu.Lock()
	wt.proven = -1
	wt.mu.Unlock()
}

// synced records that a sync begun at from proved the index current as of that point.
func (wt *watch) synced(from int64) {
	wt.mu.Lock()
	if from > wt.proven {
		wt.proven = from
	}
	wt.mu.Unlock()
}

func (wt *watch) close() { wt.w.Close() }
