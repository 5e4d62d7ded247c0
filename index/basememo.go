package index

import "sync"

// BaseMemo remembers what ranking over deltas learns of a base segment (layerrank.go): its
// rows' texts analyzed again and how many of its rows hold a phrase. Both depend on the base
// alone, which never changes, so a worker keeps one per binding and shares it with every
// snapshot it opens: a capsule asked again after an edit does not analyze the same pool of
// rows again. A snapshot has its own until one is shared; a snapshot over another base (after
// a merge) starts the memo afresh.
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

// lockBase locks the snapshot's memo for a ranking (rankings of two generations over one base
// take turns) and makes it the memo of the snapshot's base; the caller unlocks it.
func (s *Snapshot) lockBase() *BaseMemo {
	m := s.memo
	m.mu.Lock()
	if base := s.segments[0].Name; m.base != base || m.hits == nil {
		m.base, m.texts, m.hits = base, map[int64]storedText{}, map[string]phraseHits{}
	}
	return m
}
