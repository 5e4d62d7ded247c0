package index

import "sync"

// BaseMemo remembers what ranking over deltas learns of a base segment (layerrank.go): its
// rows' texts analyzed again, each row's frequency of the phrases it was ranked for, and how
// many of its rows hold a phrase; and of each delta over it, which of its rows match a query
// and hold a phrase (which of those later segments replaced is each generation's to say, and
// is not remembered). All depend on their segment alone, which never changes, so a worker
// keeps one per binding and shares it with every snapshot it opens: a capsule asked again
// after an edit does not analyze the same pool of rows again. A snapshot has its own until
// one is shared; a snapshot over another base (after a merge) starts the memo afresh.
type BaseMemo struct {
	mu    sync.Mutex
	base  string // the base segment's name, unique to its file
	texts map[int64]storedText
	hits  map[string]phraseHits
	// counts are rows' frequencies by key, then phrase; counted is how many are held.
	counts  map[int64]*countedRow
	counted int
	// deltas are the deltas' rows that match an expression or hold a phrase, by the delta
	// segment's name, then by deltaQuery; deltaHeld is how many rows they hold in all, and
	// deltaReads how many lists were read from FTS5 and kept.
	deltas     map[string]map[string][]deltaRow
	deltaHeld  int
	deltaReads int
}

// deltaRow is a row of a delta's full-text table: its key, its size, and its weighted
// frequency of the phrase it was read for (0 for a query's matches).
type deltaRow struct {
	key, size int64
	freq      float64
}

// deltaQuery names what a list of a delta's rows answers: the matches of an expression, or
// the holders of a phrase.
func deltaQuery(phrase bool, text string) string {
	if phrase {
		return "phrase\x00" + text
	}
	return "match\x00" + text
}

// countedRow is what is known of a base row's phrases: its size and frequency of each phrase
// counted, or that it did not analyze again to its indexed size (unranked), so that its
// base rank stands.
type countedRow struct {
	size     int64
	unranked bool
	freq     map[string]float64
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
		m.counts, m.counted = map[int64]*countedRow{}, 0
		m.deltas, m.deltaHeld = map[string]map[string][]deltaRow{}, 0
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

// freqs returns base's row key's size and frequency of each of phrases, if all are
// remembered; f is nil for a row that keeps its base rank.
func (m *BaseMemo) freqs(base string, key int64, phrases []string) (f *rowFreqs, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.of(base).counts[key]
	if c == nil {
		return nil, false
	}
	if c.unranked {
		return nil, true
	}
	f = &rowFreqs{size: c.size, freq: make([]float64, len(phrases))}
	for j, ph := range phrases {
		if f.freq[j], ok = c.freq[ph]; !ok {
			return nil, false
		}
	}
	return f, true
}

// keepFreqs remembers base's rows' frequencies of phrases (a nil one: the row keeps its base
// rank), forgetting all others first when they would pass maxRememberedFreqs.
func (m *BaseMemo) keepFreqs(base string, phrases []string, rows map[int64]*rowFreqs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.of(base)
	if m.counted+len(rows)*(len(phrases)+1) > maxRememberedFreqs {
		clear(m.counts)
		m.counted = 0
	}
	for key, f := range rows {
		c := m.counts[key]
		if c == nil {
			c = &countedRow{freq: map[string]float64{}}
			m.counts[key] = c
			m.counted++
		}
		if f == nil {
			c.unranked = true
			continue
		}
		c.size = f.size
		for j, ph := range phrases {
			if _, ok := c.freq[ph]; !ok {
				m.counted++
			}
			c.freq[ph] = f.freq[j]
		}
	}
}

// deltaRows returns the rows of the delta segment named delta that answer q, if remembered.
func (m *BaseMemo) deltaRows(base, delta, q string) ([]deltaRow, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows, ok := m.of(base).deltas[delta][q]
	return rows, ok
}

// keepDeltaRows remembers the rows of delta that answer q, forgetting every delta's first
// when they would pass maxRememberedDeltaRows; a list longer than a quarter of that is not
// kept (a delta of a large change, and a common word).
func (m *BaseMemo) keepDeltaRows(base, delta, q string, rows []deltaRow) {
	if len(rows) > maxRememberedDeltaRows/4 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.of(base)
	if m.deltaHeld+len(rows)+1 > maxRememberedDeltaRows {
		clear(m.deltas)
		m.deltaHeld = 0
	}
	lists := m.deltas[delta]
	if lists == nil {
		lists = map[string][]deltaRow{}
		m.deltas[delta] = lists
	}
	if old, ok := lists[q]; ok {
		m.deltaHeld -= len(old) + 1
	}
	lists[q] = rows
	m.deltaHeld += len(rows) + 1
	m.deltaReads++
}
