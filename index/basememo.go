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
	// deltas are the deltas' rows that match an expression or hold a phrase; deltaHeld is
	// how many rows they hold in all, and deltaReads how many lists were read from FTS5 and
	// kept.
	deltas     map[deltaQuery][]deltaRow
	deltaHeld  int
	deltaReads int
}

// deltaRow is a row of a delta's full-text table: its key, its size, and its weighted
// frequency of the phrase it was read for (0 for a query's matches).
type deltaRow struct {
	key, size int64
	freq      float64
}

// deltaQuery names what a list of a delta's rows answers: in the delta segment named delta,
// the matches of an expression text, or the holders of a phrase text.
type deltaQuery struct {
	delta  string
	phrase bool
	text   string
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
		m.deltas, m.deltaHeld = map[deltaQuery][]deltaRow{}, 0
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

// freqs sets into out the size and frequency of each of phrases of those of base's rows keys
// for which all are remembered (nil for a row that keeps its base rank), and returns the
// others.
func (m *BaseMemo) freqs(base string, keys []int64, phrases []string, out map[int64]*rowFreqs) (missing []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := m.of(base).counts
next:
	for _, key := range keys {
		c := counts[key]
		switch {
		case c == nil:
			missing = append(missing, key)
		case c.unranked:
			out[key] = nil
		default:
			f := &rowFreqs{size: c.size, freq: make([]float64, len(phrases))}
			for j, ph := range phrases {
				v, ok := c.freq[ph]
				if !ok {
					missing = append(missing, key)
					continue next
				}
				f.freq[j] = v
			}
			out[key] = f
		}
	}
	return missing
}

// keepFreqs remembers base's rows keys' frequencies of phrases, read from freqs (a row not
// in it keeps its base rank), forgetting all others first when they would pass
// maxRememberedFreqs.
func (m *BaseMemo) keepFreqs(base string, phrases []string, keys []int64, freqs map[int64]*rowFreqs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.of(base)
	if m.counted+len(keys)*(len(phrases)+1) > maxRememberedFreqs {
		clear(m.counts)
		m.counted = 0
	}
	for _, key := range keys {
		c := m.counts[key]
		if c == nil {
			c = &countedRow{freq: map[string]float64{}}
			m.counts[key] = c
			m.counted++
		}
		f := freqs[key]
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

// deltaRows returns the rows of a delta that answer q, if remembered.
func (m *BaseMemo) deltaRows(base string, q deltaQuery) ([]deltaRow, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows, ok := m.of(base).deltas[q]
	return rows, ok
}

// keepDeltaRows remembers the rows of a delta that answer q, forgetting every delta's first
// when they would pass maxRememberedDeltaRows; a list longer than a quarter of that is not
// kept (a delta of a large change, and a common word).
func (m *BaseMemo) keepDeltaRows(base string, q deltaQuery, rows []deltaRow) {
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
	if old, ok := m.deltas[q]; ok {
		m.deltaHeld -= len(old) + 1
	}
	m.deltas[q] = rows
	m.deltaHeld += len(rows) + 1
	m.deltaReads++
}
