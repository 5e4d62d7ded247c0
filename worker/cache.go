package worker

import (
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/project"
)

// live is what a service keeps per binding between calls: the source watch and the last
// snapshot, shared by concurrent calls and closed once replaced and released by all.
type live struct {
	watch *watch // nil when the watch could not start: every call walks
	cur   *held
}

type held struct {
	snap  *index.Snapshot
	refs  int
	stale bool
}

// liveFor returns the state of a binding, starting its watch on first use.
func (s *Service) liveFor(b Binding, d *project.Descriptor) *live {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := b.ProjectRoot + "\x00" + b.Policy()
	if l, ok := s.lives[key]; ok {
		return l
	}
	l := &live{}
	if s.watch {
		if w, err := startWatch(d); err == nil {
			l.watch = w
		}
	}
	s.lives[key] = l
	return l
}

// acquire returns the current snapshot, counted, if its file is still the published one.
func (s *Service) acquire(l *live, d *project.Descriptor) *held {
	sig, err := index.PublishedSignature(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.cur == nil || err != nil || !l.cur.snap.Info().Index.SameFile(sig) {
		return nil
	}
	l.cur.refs++
	return l.cur
}

// install makes snap the current snapshot, counted once for the caller.
func (s *Service) install(l *live, snap *index.Snapshot) *held {
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

// Close stops every watch and closes every snapshot.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, l := range s.lives {
		if l.watch != nil {
			l.watch.close()
		}
		if l.cur != nil {
			l.cur.snap.Close()
		}
		delete(s.lives, k)
	}
	return nil
}
