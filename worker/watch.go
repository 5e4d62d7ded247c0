package worker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docforge/docforge/index/project"
)

// watch tells whether any source of one project may have changed since the last sync that
// proved the index current, so a call can skip the stat walk. It watches every directory of
// the content and code roots and the project root (for docforge.toml) with fsnotify.
//
// fsnotify delivers events asynchronously, so "no event yet" would not prove "no change yet".
// A barrier closes that gap: it creates a uniquely named file in a watched directory and waits
// for its event. One inotify queue delivers events in order, so once the barrier's event has
// arrived, every change completed before the call has been seen.
type watch struct {
	w          *fsnotify.Watcher
	barrierDir string
	roots      []string // absolute content and code roots, watched with all their directories

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
}

// barrierPrefix names barrier files; they live in the state directory.
const barrierPrefix = "barrier-"

func startWatch(d *project.Descriptor, changed func()) (*watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch sources: %w", err)
	}
	wt := &watch{w: fw, barrierDir: d.StatePath("watch"), proven: -1, waiting: map[string]chan struct{}{}, changed: changed}
	if err := os.MkdirAll(wt.barrierDir, 0o755); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch sources: %w", err)
	}
	// The project root itself only for docforge.toml; the roots with every directory below.
	for _, dir := range []string{d.Root, wt.barrierDir} {
		if err := fw.Add(dir); err != nil {
			fw.Close()
			return nil, fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	for _, r := range append(append([]string{}, d.Sources.ContentRoots...), d.Sources.CodeRoots...) {
		wt.roots = append(wt.roots, filepath.Join(d.Root, filepath.FromSlash(r)))
	}
	for _, dir := range wt.roots {
		if err := wt.addTree(dir); err != nil {
			fw.Close()
			return nil, err
		}
	}
	go wt.loop()
	return wt, nil
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
			return fmt.Errorf("watch %s: %w", p, err)
		}
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
			wt.mu.Lock()
			wt.changes, wt.failed = wt.changes+1, err // an overflow may have lost events
			wt.mu.Unlock()
		}
	}
}

func (wt *watch) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == wt.barrierDir {
		if ev.Has(fsnotify.Create) {
			wt.mu.Lock()
			if ch, ok := wt.waiting[filepath.Base(ev.Name)]; ok {
				close(ch)
				delete(wt.waiting, filepath.Base(ev.Name))
			}
			wt.mu.Unlock()
			os.Remove(ev.Name)
		}
		return
	}
	if !wt.inRoots(ev.Name) && filepath.Base(ev.Name) != project.FileName {
		return // another entry of the project root (a build output, an editor's file): not a source
	}
	if ev.Has(fsnotify.Create) && wt.inRoots(ev.Name) {
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() && !strings.HasPrefix(filepath.Base(ev.Name), ".") {
			if err := wt.addTree(ev.Name); err != nil {
				wt.mu.Lock()
				wt.failed = err
				wt.mu.Unlock()
			}
		}
	}
	wt.mu.Lock()
	wt.changes++
	wt.mu.Unlock()
	if wt.changed != nil {
		wt.changed()
	}
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
// current: it waits for a barrier, then reads the state.
func (wt *watch) unchanged(ctx context.Context) bool {
	wt.mu.Lock()
	if wt.failed != nil || wt.proven != wt.changes {
		wt.mu.Unlock()
		return false
	}
	wt.next++
	name := barrierPrefix + strconv.Itoa(wt.next)
	ch := make(chan struct{})
	wt.waiting[name] = ch
	wt.mu.Unlock()
	if err := os.WriteFile(filepath.Join(wt.barrierDir, name), nil, 0o600); err != nil {
		return false
	}
	select {
	case <-ch:
	case <-ctx.Done():
		return false
	case <-time.After(2 * time.Second): // a watch that stopped delivering: walk instead
		wt.mu.Lock()
		wt.failed = errors.New("watch barrier timed out")
		wt.mu.Unlock()
		return false
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.proven == wt.changes && wt.failed == nil
}

// beginSync returns the point a sync starts from: changes after it are not covered by it.
func (wt *watch) beginSync() int64 {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return wt.changes
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
