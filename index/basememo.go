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

// Rankings read and add to the memo with its lock held only for that, so that rankings on
// several read connections run in parallel; two that both miss a row or a phrase compute the
// same value, and the second write stands.

// of returns the memo of base, emptied first when it held another base's; the caller holds mu.
func (m *BaseMemo) of(base string) *BaseMemo {
	if m.base != base || m.hits == nil {
		m.base, m.texts, m.hits = base, map[int64]storedText{}, map[string]phraseHits{}
	}
	return m
}

// hit returns how many of base's rows hold phrase, if remembered.
func (m *BaseMemo) hit(base, phrase string) (phraseHits, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.of(base).hits[phrase]
	return h, ok
}

// keepHit remembers how many of base's rows hold phrase.
func (m *BaseMemo) keepHit(base, phrase string, h phraseHits) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.of(base).hits[phrase] = h
}

// text returns base's row key analyzed again, if remembered.
func (m *BaseMemo) text(base string, key int64) (storedText, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	x, ok := m.of(base).texts[key]
	return x, ok
}

// keepTexts remembers base's rows xs analyzed again, forgetting all others first when they
// would pass maxRememberedTexts.
func (m *BaseMemo) keepTexts(base string, xs []storedText) {
	m.mu.Lock()
	defer m.mu.Unlock()
	texts := m.of(base).texts
	if len(texts)+len(xs) > maxRememberedTexts {
		clear(texts)
	}
	for _, x := range xs {
		texts[x.key] = x
	}
}
