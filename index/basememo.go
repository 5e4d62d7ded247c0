package index

import "sync"

// BaseMemo remembers, across the generations that edits publish over one base segment, what
// ranking over deltas learns of that base (layerrank.go): its rows' texts analyzed again and
// how many of its rows hold a phrase. Both depend on the base alone, which never changes, so
// a capsule asked again after an edit does not analyze the same pool of rows again. A worker
// keeps one per binding and shares it with every snapshot it opens; a snapshot over another
// base (after a merge) starts it afresh.
type BaseMemo struct {
	mu    sync.Mutex
	base  string // the base segment's name, unique to its file
	texts map[int64]storedText
	hits  map[string]phraseHits
}

// NewBaseMemo returns an empty memo.
func NewBaseMemo() *BaseMemo { return &BaseMemo{} }

// ShareBaseMemo makes the snapshot's rankings over deltas read and add to m. Set before the
// snapshot answers, by the one goroutine that opened it.
func (s *Snapshot) ShareBaseMemo(m *BaseMemo) { s.memo = m }

// baseMemory is where a ranking keeps what it learns of the base: the shared memo, locked
// until unlock (rankings of two generations over one base take turns), or the snapshot's own.
func (s *Snapshot) baseMemory() (texts *map[int64]storedText, hits map[string]phraseHits, unlock func()) {
	if m := s.memo; m != nil {
		m.mu.Lock()
		if base := s.segments[0].Name; m.base != base || m.hits == nil {
			m.base, m.texts, m.hits = base, nil, map[string]phraseHits{}
		}
		return &m.texts, m.hits, m.mu.Unlock
	}
	if s.phraseHits == nil {
		s.phraseHits = map[string]phraseHits{}
	}
	return &s.texts, s.phraseHits, func() {}
}
