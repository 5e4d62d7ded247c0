package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// live is what a service keeps per binding between calls: the source watch, the last
// snapshot (shared by concurrent calls and closed once replaced and released by all), and the
// lock that keeps syncs of the binding from overlapping.
type live struct {
	root, policy string
	watch        *watch // nil when the watch could not start: every call walks
	cur          *held
	// memory is what this service remembers of the generation it last published, so that an
	// edit's sync need not read the file table back from the index; baseMemo what its
	// snapshots' rankings learned of the base segment the generations share.
	memory   *index.Memory
	baseMemo *index.BaseMemo
	// hist keeps the project's history index current with its repository.
	hist historyState

	syncMu  sync.Mutex
	pending atomic.Bool // a background rebuild is scheduled
	// mergeMu guards merging (a background merge runs) and mergeAgain (a merge was asked for
	// while one ran: the runner merges again, since the deltas published meanwhile stay).
	mergeMu    sync.Mutex
	merging    bool
	mergeAgain bool
	// quietMerge is set while a merge waits for the syncs to pause (scheduleQuietMerge);
	// lastSync is when the binding's last sync ended (UnixNano).
	quietMerge atomic.Bool
	lastSync   atomic.Int64
	// remembering: the memory is being filled from the published generation in the background.
	remembering atomic.Bool
	// reproving: a stat walk renews the watch's proof in the background (Service.reprove).
	reproving atomic.Bool
	// repaired is the failure of the watch that the last rebuild of it repaired, until a call
	// has said so in its warnings.
	repaired atomic.Pointer[string]
	// publisher releases the binding's publisher lock, which this service holds while it
	// serves the binding: one worker publishes a project's index under a policy, even when
	// two managers each start one. nil while another process holds it; this service then
	// answers read-only from what that one publishes (follower), and claims the lock again
	// at every call, so it takes over once the other is gone.
	publisher func()
}

// publisherLockFile is the publisher lock, in the policy's index folder; it holds the pid of
// its holder.
const publisherLockFile = "publisher.lock"

// claim takes the binding's publisher lock if this service does not hold it yet and it is
// free, and reports whether this service publishes. The watch starts with the claim: a
// follower has nothing to prove current.
func (s *Service) claim(l *live, d *project.Descriptor) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.publisher != nil {
		return true
	}
	if s.bg.Err() != nil {
		return false // closing
	}
	dir := publication.PathsFor(d, l.policy).Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	path := filepath.Join(dir, publisherLockFile)
	unlock, ok, err := safefile.TryLock(path)
	if err != nil || !ok {
		return false
	}
	// Say who holds it, for a follower's warning; the lock itself is the flock.
	os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	l.publisher = unlock
	if s.watch && l.watch == nil {
		if w, err := startWatch(d, func() { s.schedule(l) }); err == nil {
			l.watch = w
		} else {
			// Every call walks the tree; say why where 'docforge status' looks.
			writeWatchHealth(d.StatePath(filepath.FromSlash(WatchHealthFile)),
				WatchHealth{State: "off", LastError: err.Error(), At: time.Now().UTC().Format(time.RFC3339)})
		}
	}
	return true
}

// publisherPid reads the pid the holder of a binding's publisher lock wrote, or "".
func publisherPid(d *project.Descriptor, policy string) string {
	data, _ := os.ReadFile(filepath.Join(publication.PathsFor(d, policy).Dir, publisherLockFile))
	return strings.TrimSpace(string(data))
}

type held struct {
	snap  *index.Snapshot
	refs  int
	stale bool
}

// Stats counts a service's work since it started: what 'docforge manager status' shows and
// what the fault tests check (syncs never overlap).
type Stats struct {
	Calls           int64 `json:"calls"`
	Syncs           int64 `json:"syncs"`
	BackgroundSyncs int64 `json:"background_syncs"`
	WalksSkipped    int64 `json:"walks_skipped"`
	// Rescans counts the syncs that listed only the folders the watch saw change, not the tree;
	// Recalls those that started from the memory of the published generation.
	Rescans       int64 `json:"rescans"`
	Recalls       int64 `json:"recalls"`
	MaxConcurrent int64 `json:"max_concurrent_syncs"`
	// Watch sums the source watches of the service's bindings: failures and repairs, the
	// worst state ("off" over "failed" over "ok"; "" before any call) and the last error.
	Watch WatchHealth `json:"watch"`
}

// repairNotice returns, once, the warning that the watch was repaired.
func (l *live) repairNotice() (string, bool) {
	if m := l.repaired.Swap(nil); m != nil {
		return *m, true
	}
	return "", false
}

type counters struct {
	calls, syncs, background, walksSkipped, rescans, recalls, inflight, maxInflight atomic.Int64
}

// Stats returns the counters.
func (s *Service) Stats() Stats {
	st := Stats{Calls: s.stats.calls.Load(), Syncs: s.stats.syncs.Load(), BackgroundSyncs: s.stats.background.Load(),
		WalksSkipped: s.stats.walksSkipped.Load(), Rescans: s.stats.rescans.Load(), Recalls: s.stats.recalls.Load(), MaxConcurrent: s.stats.maxInflight.Load()}
	s.mu.Lock()
	defer s.mu.Unlock()
	rank := map[string]int{"": 0, "ok": 1, "failed": 2, "off": 3}
	for _, l := range s.lives {
		h := WatchHealth{State: "off"}
		if l.watch != nil {
			h = l.watch.healthNow()
		}
		st.Watch.Failures += h.Failures
		st.Watch.Repairs += h.Repairs
		if h.LastError != "" {
			st.Watch.LastError = h.LastError
		}
		if rank[h.State] > rank[st.Watch.State] {
			st.Watch.State = h.State
		}
	}
	return st
}

// debounce is how long a background rebuild waits after the first change it was told of, so
// that an editor's burst of writes (temp file, rename, chmod) costs one sync.
const debounce = 100 * time.Millisecond

// liveFor returns the state of a binding, starting its watch on first use.
func (s *Service) liveFor(b protocol.Binding, d *project.Descriptor) *live {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := bindingKey(b)
	if l, ok := s.lives[key]; ok {
		return l
	}
	l := &live{root: b.ProjectRoot, policy: b.Policy(), memory: index.NewMemory(), baseMemo: index.NewBaseMemo()}
	s.lives[key] = l
	return l
}

// current returns the current snapshot, counted, when the watch proves that no source changed
// since the index was proven current and the snapshot's file is still the published one.
func (s *Service) current(ctx context.Context, l *live, d *project.Descriptor) *held {
	if l.watch == nil {
		return nil
	}
	fresh, renew := l.watch.unchanged(ctx, s.proofAge)
	if renew {
		s.reprove(l, d)
	}
	if !fresh {
		return nil
	}
	return s.acquire(l, d)
}

// reprove renews the watch's proof in the background with a stat walk of the sources, one at
// a time per binding: the proof stands as of the walk's start when the published index is
// current and no event came meanwhile; an index found stale is marked so, and rebuilt.
func (s *Service) reprove(l *live, d *project.Descriptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil || !l.reproving.CompareAndSwap(false, true) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer l.reproving.Store(false)
		start := time.Now()
		from := l.watch.seen()
		st, err := index.CheckStatus(s.bg, d, l.policy, "")
		switch {
		case err != nil:
			return // the next call walks, and says why
		case st.State == publication.Current:
			l.watch.reproved(from, start)
		default:
			l.watch.markDirty()
			s.schedule(l)
		}
	}()
}

// bindingKey keys what the service keeps per binding: its state and its viewer.
func bindingKey(b protocol.Binding) string { return b.ProjectRoot + "\x00" + b.Policy() }

// watched is the published generation's identity when the watch proves that no source
// changed since it was proven current: its SourceIdentity is then the sources' cheap identity,
// with no stat walk. ok is false otherwise, and the caller walks (at 100k files a walk costs
// about 200 ms). A binding no call has used yet has no watch: it is not created here.
func (s *Service) watched(ctx context.Context, b protocol.Binding, d *project.Descriptor) (info index.Info, ok bool) {
	s.mu.Lock()
	l := s.lives[bindingKey(b)]
	s.mu.Unlock()
	if l == nil {
		return info, false
	}
	h := s.current(ctx, l, d)
	if h == nil {
		return info, false
	}
	defer s.release(h)
	return h.snap.Info(), true
}

// syncLocked runs index.Sync for a binding; the caller holds l.syncMu.
func (s *Service) syncLocked(ctx context.Context, l *live, d *project.Descriptor, rebuild bool) (*index.Result, error) {
	var from int64
	var begun time.Time
	walked := false
	if l.watch != nil {
		var repaired error
		begun = time.Now()
		if from, walked, repaired = l.watch.beginSync(ctx, s.proofAge); repaired != nil {
			msg := fmt.Sprintf("the source watch failed (%v) and was rebuilt; this answer comes from a full walk of the sources, so no change was missed", repaired)
			l.repaired.Store(&msg)
		}
	}
	n := s.stats.inflight.Add(1)
	for m := s.stats.maxInflight.Load(); n > m && !s.stats.maxInflight.CompareAndSwap(m, n); m = s.stats.maxInflight.Load() {
	}
	opts := index.Options{Rebuild: rebuild, Policy: l.policy, Implementation: s.impl, Memory: l.memory}
	if l.watch != nil {
		opts.Tracker = l.watch.tracker
	}
	res, err := index.Sync(ctx, d, opts)
	if err == nil && res.Recovered != nil {
		r := res.Recovered
		fmt.Fprintf(os.Stderr, "docforge worker: %s: interrupted application of %s %s (%d files)\n", d.Root, r.ChangesetID, r.Action, r.Files)
	}
	s.stats.inflight.Add(-1)
	s.stats.syncs.Add(1)
	if err == nil && res.Ran(index.PhaseRescan) {
		s.stats.rescans.Add(1)
	}
	if err == nil && res.Ran(index.PhaseRecall) {
		s.stats.recalls.Add(1)
	}
	l.lastSync.Store(time.Now().UnixNano())
	if err == nil {
		switch res.MergeDue {
		case index.MergeCount:
			s.scheduleMerge(l, d)
		case index.MergeQuiet:
			s.scheduleQuietMerge(l, d)
		}
	}
	if err == nil && l.watch != nil {
		s.scheduleRemember(l, d)
	}
	if l.watch != nil {
		if err == nil {
			l.watch.synced(from)
			if walked {
				l.watch.reproved(from, begun)
			}
		} else {
			// Not proven current (an invalid project, say): the next call must sync again
			// and say so, not trust the watch.
			l.watch.markDirty()
		}
	}
	return res, err
}

// schedule arranges one background rebuild shortly after a source changed, so that the next
// call usually finds the index current. Calls still check before answering.
func (s *Service) schedule(l *live) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil || !l.pending.CompareAndSwap(false, true) {
		return // closing, or a rebuild is already scheduled
	}
	s.wg.Add(1)
	time.AfterFunc(debounce, func() {
		defer s.wg.Done()
		l.pending.Store(false)
		s.rebuild(l)
	})
}

// scheduleMerge merges a generation's segments (index.Merge) in the background, one merge per
// binding at a time; asked while one runs, it merges again when that one ends. The merge
// builds without the publisher lock (syncs go on publishing deltas, which stay on top of the
// new base) and runs at low priority (index.Merge).
func (s *Service) scheduleMerge(l *live, d *project.Descriptor) {
	if l.claimMerge() {
		s.runMerges(l, d)
	}
}

// runMerges merges the binding's deltas on a goroutine of the service, again for as long as
// merges are asked for meanwhile. The caller has claimed the merge (claimMerge).
func (s *Service) runMerges(l *live, d *project.Descriptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil {
		l.endMerge(false) // closing
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			if _, err := index.Merge(s.bg, d, index.MergeOptions{Policy: l.policy, Memory: l.memory}); err != nil && s.bg.Err() == nil {
				fmt.Fprintf(os.Stderr, "docforge worker: %s: merge: %v (the deltas stay; the next sync merges them)\n", d.Root, err)
			}
			if !l.endMerge(s.bg.Err() == nil) {
				return
			}
		}
	}()
}

// claimMerge marks a merge of the binding running and reports true, or, when one runs
// already, asks it to merge once more and reports false.
func (l *live) claimMerge() bool {
	l.mergeMu.Lock()
	defer l.mergeMu.Unlock()
	if l.merging {
		l.mergeAgain = true
		return false
	}
	l.merging = true
	return true
}

// endMerge ends the running merge and reports whether its runner merges again: when a merge
// was asked for meanwhile and goOn allows it.
func (l *live) endMerge(goOn bool) bool {
	l.mergeMu.Lock()
	defer l.mergeMu.Unlock()
	again := l.mergeAgain && goOn
	l.mergeAgain, l.merging = false, again
	return again
}

// mergeQuiet is how long the syncs of a binding must pause before a merge due once they do
// (index.MergeQuiet) starts: a merge that
// overlaps a sync makes the sync's memory of the generation stale, and an edit burst needs
// one merge, not one per edit.
const mergeQuiet = 300 * time.Millisecond

// scheduleQuietMerge merges the binding's deltas once its syncs have paused for s.mergeQuiet.
// Its wait ends early when the service closes.
func (s *Service) scheduleQuietMerge(l *live, d *project.Descriptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil || !l.quietMerge.CompareAndSwap(false, true) {
		return // closing, or a merge already waits
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for wait := s.mergeQuiet; ; {
			t := time.NewTimer(wait)
			select {
			case <-s.bg.Done():
				t.Stop()
				l.quietMerge.Store(false)
				return
			case <-t.C:
			}
			quiet := time.Since(time.Unix(0, l.lastSync.Load()))
			if quiet >= s.mergeQuiet {
				break
			}
			wait = s.mergeQuiet - quiet
		}
		l.quietMerge.Store(false)
		s.scheduleMerge(l, d)
	}()
}

// scheduleRemember fills the binding's empty memory from the published generation in the
// background, so that the first edit after the worker starts (or after a cold build) does not
// read the file table back while a caller waits.
func (s *Service) scheduleRemember(l *live, d *project.Descriptor) {
	if !l.memory.Empty() {
		return
	}
	s.inBackground(&l.remembering, func() {
		_ = index.Remember(s.bg, d, l.policy, l.memory) // best effort: a sync reads what it lacks
	})
}

// inBackground runs fn on a goroutine the service waits for when it closes, unless it is
// closing or a run under the same flag has not finished.
func (s *Service) inBackground(running *atomic.Bool, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil || !running.CompareAndSwap(false, true) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer running.Store(false)
		fn()
	}()
}

// rebuild is the background sync of one binding: skipped when a call got there first.
func (s *Service) rebuild(l *live) {
	ctx := s.bg
	if ctx.Err() != nil {
		return
	}
	d, _, err := s.descriptor(l.root)
	if err != nil || d == nil {
		return // the next call reports the descriptor's problems
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if h := s.current(ctx, l, d); h != nil {
		s.release(h)
		return
	}
	s.stats.background.Add(1)
	if _, err := s.syncLocked(ctx, l, d, false); err != nil {
		return // calls sync again and report the problem
	}
	snap, err := index.OpenWith(ctx, d, l.policy)
	if err != nil {
		return
	}
	s.release(s.install(l, snap))
}

// acquire returns the current snapshot, counted, if its file is still the published one.
func (s *Service) acquire(l *live, d *project.Descriptor) *held {
	sig, err := index.PublishedSignature(d, l.policy)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.cur == nil || err != nil || !l.cur.snap.Info().Index.SameFile(sig) {
		return nil
	}
	l.cur.refs++
	return l.cur
}

// install makes snap the current snapshot, counted once for the caller, sharing the binding's
// memo of its base segment.
func (s *Service) install(l *live, snap *index.Snapshot) *held {
	snap.ShareBaseMemo(l.baseMemo)
	if s.readers > 0 {
		snap.SetReaders(s.readers)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := l.cur; old != nil {
		old.stale = true
		if old.refs == 0 {
			old.snap.Close()
		}
	}
	l.cur = &held{snap: snap, refs: 1}
	return l.cur
}

func (s *Service) release(h *held) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.refs--
	if h.stale && h.refs == 0 {
		h.snap.Close()
	}
}

// Close stops background rebuilds and every watch, and closes every snapshot.
func (s *Service) Close() error {
	s.mu.Lock()
	s.stop() // under s.mu, so no rebuild is scheduled once Wait begins
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, h := range s.viewers {
		h.halt() // its server stopped with s.bg; this waits for its last requests
		if h.held.refs--; h.held.stale && h.held.refs == 0 {
			h.held.snap.Close()
		}
		delete(s.viewers, k)
	}
	for k, l := range s.lives {
		if l.watch != nil {
			l.watch.close()
		}
		if l.publisher != nil {
			l.publisher()
		}
		if l.cur != nil {
			l.cur.snap.Close()
		}
		delete(s.lives, k)
	}
	return nil
}

// SetReaders bounds the read connections of every snapshot the service opens
// (index.Snapshot.SetReaders), before its first call: 1 answers one call at a time per
// binding, which the benchmark compares the pool with.
func (s *Service) SetReaders(n int) { s.readers = n }
