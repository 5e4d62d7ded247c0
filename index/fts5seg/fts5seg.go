package fts5seg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"zombiezen.com/go/sqlite"
)

// PageSize is the target size of a leaf page: FTS5's default pgsz, which the tables this
// package writes keep.
const PageSize = 4050

// MaxToken is the longest token Analyze accepts; FTS5 truncates tokens far longer, and a row
// holding one is left to it.
const MaxToken = 256

// minDlidxPages is how many pages a doclist must run over, without a term of their own, for
// FTS5 to give it a doclist index (FTS5_MIN_DLIDX_SIZE).
const minDlidxPages = 4

// mainIndex is the byte FTS5 puts before every term of its main index.
const mainIndex = '0'

// structureV2 marks a structure record that carries origins (contentless_delete tables).
const structureV2 = "\xff\x00\x00\x01"

// Row is one row's postings: each term of the row with its position list, as FTS5 encodes it,
// and the number of tokens in each column.
type Row struct {
	// data holds each term as its hash (termHash, 8 bytes), its length and the term, then its
	// position list's length and the position list, lengths as varints: one allocation a row.
	data  []byte
	sizes []int64
}

// An Analyzer tokenizes rows, with a table of the row's terms it reuses from row to row. It is
// not safe for concurrent use.
type Analyzer struct {
	slots []slot  // open addressing by term hash; a slot is in use when its gen is the row's
	gen   uint32  // the row being analyzed
	terms []*slot // the row's terms, in order of first use
	arena []byte  // the row's terms' bytes

	sizes   []int64 // tokens in each column so far
	col     int     // the column being added to
	pos     int64   // the next position in it
	refused bool
}

type slot struct {
	gen        uint32
	hash       uint64
	start, end int // the term in arena
	poslist    []byte
	col        int   // the column of the last position added
	pos        int64 // the last position added, in that column
}

// NewAnalyzer returns an Analyzer.
func NewAnalyzer() *Analyzer { return &Analyzer{slots: make([]slot, 1024)} }

// termHash is FNV-1a of a term's bytes.
func termHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Analyze tokenizes a row's columns, in the table's column order, as FTS5's unicode61
// tokenizer would and returns its postings. ok is false when a column is not ASCII or holds a
// token longer than MaxToken: the row must then be inserted through FTS5.
func (a *Analyzer) Analyze(cols []string) (r Row, ok bool) {
	a.Begin(len(cols))
	for c, text := range cols {
		if !a.Add(c, text) {
			return Row{}, false
		}
	}
	return a.End()
}

// Begin starts a row of the given number of columns, which Add then fills in order: what the
// calls for one column add is tokenized as the texts joined with spaces would be.
func (a *Analyzer) Begin(columns int) {
	a.gen++
	if a.gen == 0 { // wrapped: no slot may look in use
		for i := range a.slots {
			a.slots[i].gen = 0
		}
		a.gen = 1
	}
	a.terms, a.arena = a.terms[:0], a.arena[:0]
	a.sizes = make([]int64, columns)
	a.col, a.pos, a.refused = 0, 0, false
}

// Add tokenizes text into column c, after what the calls before added to it. It returns
// false, and the row is refused, when text is not ASCII or holds a token longer than MaxToken,
// or when c comes before a column already added to.
func (a *Analyzer) Add(c int, text string) bool {
	if a.refused || c < a.col || c >= len(a.sizes) {
		a.refused = true
		return false
	}
	if c != a.col {
		a.sizes[a.col] = a.pos
		a.col, a.pos = c, 0
	}
	if !Tokens(text, a.token) {
		a.refused = true
		return false
	}
	return true
}

// token adds one token of the column being added to.
func (a *Analyzer) token(tok string, lower bool) bool {
	if len(tok) > MaxToken {
		return false
	}
	start := len(a.arena)
	a.arena = append(a.arena, tok...)
	if !lower {
		for k, b := range a.arena[start:] {
			if 'A' <= b && b <= 'Z' {
				a.arena[start+k] = b + 'a' - 'A'
			}
		}
	}
	t := a.lookup(start)
	// As FTS5's hash writes a row's positions: column 0 needs no marker, another column
	// starts with 0x01 and its number, and each position is the distance from the one before
	// in its column, plus 2.
	if a.col != t.col {
		t.poslist = append(t.poslist, 0x01)
		t.poslist = AppendVarint(t.poslist, uint64(a.col))
		t.col, t.pos = a.col, 0
	}
	t.poslist = AppendVarint(t.poslist, uint64(a.pos-t.pos+2))
	t.pos = a.pos
	a.pos++
	return true
}

// Tokens calls fn with each token of text as FTS5's unicode61 tokenizer makes them of ASCII
// text: each run of ASCII letters and digits, as it stands (unicode61 then lowercases it), and
// whether it is lowercase already. It stops and returns false at a byte that is not ASCII,
// whose classes unicode61 decides by its own tables, or when fn returns false.
func Tokens(text string, fn func(tok string, lower bool) bool) bool {
	for i := 0; i < len(text); {
		if text[i] >= 0x80 {
			return false
		}
		if !isAlnum(text[i]) {
			i++
			continue
		}
		j, lower := i, true
		for ; j < len(text) && isAlnum(text[j]); j++ {
			if text[j] <= 'Z' && text[j] >= 'A' {
				lower = false
			}
		}
		if !fn(text[i:j], lower) {
			return false
		}
		i = j
	}
	return true
}

// End returns the row's postings; ok is false when an Add refused it.
func (a *Analyzer) End() (r Row, ok bool) {
	if a.refused {
		return Row{}, false
	}
	a.sizes[a.col] = a.pos
	size := 0
	for _, t := range a.terms {
		size += 8 + 2 + t.end - t.start + 3 + len(t.poslist)
	}
	r.sizes = a.sizes
	r.data = make([]byte, 0, size)
	for _, t := range a.terms {
		r.data = binary.LittleEndian.AppendUint64(r.data, t.hash)
		r.data = AppendVarint(r.data, uint64(t.end-t.start))
		r.data = append(r.data, a.arena[t.start:t.end]...)
		r.data = AppendVarint(r.data, uint64(len(t.poslist)))
		r.data = append(r.data, t.poslist...)
	}
	return r, true
}

// lookup returns the slot of the term at arena[start:], taking a new one (and keeping the
// term's bytes) the first time the row has it, or dropping the bytes when it is known.
func (a *Analyzer) lookup(start int) *slot {
	term := a.arena[start:]
	h := termHash(term)
	if 2*(len(a.terms)+1) > len(a.slots) {
		a.grow()
	}
	mask := uint64(len(a.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		t := &a.slots[i]
		if t.gen != a.gen {
			*t = slot{gen: a.gen, hash: h, start: start, end: len(a.arena), poslist: t.poslist[:0]}
			a.terms = append(a.terms, t)
			return t
		}
		if t.hash == h && string(a.arena[t.start:t.end]) == string(term) {
			a.arena = a.arena[:start]
			return t
		}
	}
}

// grow doubles the slot table, moving the row's terms into it.
func (a *Analyzer) grow() {
	old := a.terms
	a.slots = make([]slot, 2*len(a.slots))
	mask := uint64(len(a.slots) - 1)
	a.terms = make([]*slot, 0, cap(old))
	for _, t := range old {
		for i := t.hash & mask; ; i = (i + 1) & mask {
			if a.slots[i].gen != a.gen {
				a.slots[i] = *t
				a.terms = append(a.terms, &a.slots[i])
				break
			}
		}
	}
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// Table names the FTS5 table a Builder writes: its schema and name, and its column count.
type Table struct {
	Schema, Name string
	Columns      int
}

func (t Table) shadow(suffix string) string { return t.Schema + "." + t.Name + "_" + suffix }

// Builder gathers rows' postings and writes them as FTS5 segments. Rows must come in
// ascending rowid order, into a new table, where FTS5 may insert other rows meanwhile
// (Numbering). It is not safe for concurrent use.
type Builder struct {
	table     Table
	numbering Numbering
	slots     []int32 // open addressing by term hash: 1 + the term's index in lists, or 0
	lists     []doclist
	pending   int   // bytes of doclists gathered since the last flush
	rows      []row // rows gathered since the last flush
	segs      []segment
	nRows     int64
	totals    []int64 // tokens in each column over all rows
	last      int64
	started   bool
}

// doclist is a term's doclist being gathered. A term of up to shortTerm bytes is kept in the
// entry itself, so that finding it reads no other memory.
type doclist struct {
	hash  uint64
	n     int
	short [shortTerm]byte
	long  []byte
	data  []byte
	last  int64
}

const shortTerm = 24

func (d *doclist) is(h uint64, term []byte) bool {
	if d.hash != h || d.n != len(term) {
		return false
	}
	if d.n <= shortTerm {
		return string(d.short[:d.n]) == string(term)
	}
	return bytes.Equal(d.long, term)
}

func (d *doclist) term() []byte {
	if d.n <= shortTerm {
		return d.short[:d.n]
	}
	return d.long
}

type row struct {
	key   int64
	sizes []int64
}

type segment struct {
	id, lastPage int
	origin       uint64
	entries      uint64
}

// Numbering is how a Builder numbers its segments and their origins. The zero Numbering
// numbers both from 1, as FTS5 does in a new table: the segments are then the very ones FTS5
// would write, but FTS5 must not write to the table before Finish. A Builder that shares its
// table with FTS5's own insert (rows Analyze refuses) numbers its segments up from
// SharedFirstSegment and their origins up from SharedOrigins, which FTS5 does not reach.
type Numbering struct {
	Shared bool
}

const (
	// SharedFirstSegment is the first shared segment number: FTS5 gives the lowest free one,
	// and merges long before it holds a thousand. Numbers ascend, so that each segment's pages
	// are appended to the data table (SQLite's quick balance) rather than put before the last
	// segment's, which split pages through a general rebalance with its scratch allocations
	// (docs/benchmarks.md).
	SharedFirstSegment = 1001
	// MaxSegment is the highest segment number FTS5 reads (FTS5_MAX_SEGMENT).
	MaxSegment = 2000
	// SharedOrigins is far above any origin FTS5 counts to in a build.
	SharedOrigins = 1 << 40
)

// NewBuilder returns a Builder for table.
func NewBuilder(table Table, n Numbering) *Builder {
	return &Builder{table: table, numbering: n, slots: make([]int32, 1<<16), totals: make([]int64, table.Columns)}
}

func (b *Builder) nextSegment() (segment, error) {
	k := len(b.segs)
	s := segment{id: k + 1, origin: uint64(k + 1)}
	if b.numbering.Shared {
		s = segment{id: SharedFirstSegment + k, origin: SharedOrigins + uint64(k)}
	}
	if s.id > MaxSegment {
		return segment{}, fmt.Errorf("write full-text segment %d: FTS5 reads at most %d; flush fewer, larger segments", s.id, MaxSegment)
	}
	return s, nil
}

// Pending is the size in bytes of the postings gathered since the last Flush.
func (b *Builder) Pending() int { return b.pending }

// Add gathers the row with rowid key. Keys must ascend.
func (b *Builder) Add(key int64, r Row) error {
	if b.started && key <= b.last {
		return fmt.Errorf("full-text row %d after %d: rows must come in ascending rowid order", key, b.last)
	}
	if len(r.sizes) != b.table.Columns {
		return fmt.Errorf("full-text row %d has %d columns; the table has %d", key, len(r.sizes), b.table.Columns)
	}
	b.started, b.last = true, key
	for rest := r.data; len(rest) > 0; {
		h := binary.LittleEndian.Uint64(rest)
		n, k := ReadVarint(rest[8:])
		term := rest[8+k : 8+k+int(n)]
		rest = rest[8+k+int(n):]
		n, k = ReadVarint(rest)
		poslist := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		d := b.list(h, term)
		before := len(d.data)
		// As in FTS5's hash: the rowid as a delta from the term's last (the first one whole),
		// the position list's size times two, the position list.
		d.data = AppendVarint(d.data, uint64(key-d.last))
		d.data = AppendVarint(d.data, uint64(len(poslist))*2)
		d.data = append(d.data, poslist...)
		d.last = key
		b.pending += len(d.data) - before
	}
	b.rows = append(b.rows, row{key, r.sizes})
	b.nRows++
	for c, n := range r.sizes {
		b.totals[c] += n
	}
	return nil
}

// list returns the doclist of term, whose hash is h, starting one the first time.
func (b *Builder) list(h uint64, term []byte) *doclist {
	if 2*(len(b.lists)+1) > len(b.slots) {
		b.grow()
	}
	mask := uint64(len(b.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		k := b.slots[i]
		if k == 0 {
			d := doclist{hash: h, n: len(term)}
			if len(term) <= shortTerm {
				copy(d.short[:], term)
			} else {
				d.long = bytes.Clone(term)
			}
			b.lists = append(b.lists, d)
			b.slots[i] = int32(len(b.lists))
			return &b.lists[len(b.lists)-1]
		}
		if d := &b.lists[k-1]; d.is(h, term) {
			return d
		}
	}
}

// grow doubles the slot table.
func (b *Builder) grow() {
	b.slots = make([]int32, 2*len(b.slots))
	mask := uint64(len(b.slots) - 1)
	for k := range b.lists {
		for i := b.lists[k].hash & mask; ; i = (i + 1) & mask {
			if b.slots[i] == 0 {
				b.slots[i] = int32(k + 1)
				break
			}
		}
	}
}

// Flush writes the rows gathered since the last Flush as one segment: its leaf pages and
// doclist indexes into the table's data, its separators into its idx, and each row's column
// sizes into its docsize. It writes nothing when no row was gathered.
func (b *Builder) Flush(conn *sqlite.Conn) error {
	if len(b.rows) == 0 {
		return nil
	}
	seg, err := b.nextSegment()
	if err != nil {
		return err
	}
	seg.entries = uint64(len(b.rows))
	w := newSegWriter(conn, b.table, seg.id)
	order := make([]int32, len(b.lists))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return bytes.Compare(b.lists[x].term(), b.lists[y].term()) })
	key := make([]byte, 0, MaxToken+1)
	for _, i := range order {
		key = append(append(key[:0], mainIndex), b.lists[i].term()...)
		w.appendDoclist(key, b.lists[i].data)
		if w.err != nil {
			return w.err
		}
	}
	last, err := w.finish()
	if err != nil {
		return err
	}
	seg.lastPage = last
	ins := conn.Prep("INSERT INTO " + b.table.shadow("docsize") + "(id, sz, origin) VALUES (?, ?, ?)")
	var sz []byte
	for _, r := range b.rows {
		sz = sz[:0]
		for _, n := range r.sizes {
			sz = AppendVarint(sz, uint64(n))
		}
		ins.BindInt64(1, r.key)
		ins.BindBytes(2, sz)
		ins.BindInt64(3, int64(seg.origin))
		if err := stepOnce(ins); err != nil {
			return fmt.Errorf("write full-text row sizes: %w", err)
		}
	}
	b.segs = append(b.segs, seg)
	clear(b.slots)
	clear(b.lists) // let the written doclists go
	b.lists = b.lists[:0]
	b.rows, b.pending = b.rows[:0], 0
	return nil
}

// Finish flushes what is pending and records the segments and the row statistics: it adds
// the segments to the first level of the table's structure record and the rows to its
// averages record. conn must be a connection that has not read the table's structure before
// (FTS5 keeps what it read), after any that wrote to the table committed; with the zero
// Numbering, FTS5 must not have written segments of its own.
func (b *Builder) Finish(conn *sqlite.Conn) error {
	if err := b.Flush(conn); err != nil {
		return err
	}
	if len(b.segs) == 0 {
		return nil
	}
	data := b.table.shadow("data")
	old, err := readBlock(conn, data, structureRowid)
	if err != nil {
		return err
	}
	st, err := decodeStructure(old)
	if err != nil {
		return err
	}
	if !b.numbering.Shared && st.segments() > 0 {
		return errors.New("write full-text segments: FTS5 wrote segments of its own to a table numbered as new")
	}
	if len(st.levels) == 0 {
		st.levels = append(st.levels, level{})
	}
	for _, s := range b.segs {
		st.levels[0].segs = append(st.levels[0].segs, structSegment{id: uint64(s.id), first: 1, last: uint64(s.lastPage),
			origin1: s.origin, origin2: s.origin, entries: s.entries})
	}
	oldAvg, err := readBlock(conn, data, averagesRowid)
	if err != nil {
		return err
	}
	// FTS5's averages: its rows, then the tokens of each column; empty before its first row.
	rows, totals := b.nRows, slices.Clone(b.totals)
	if len(oldAvg) > 0 {
		v, n := ReadVarint(oldAvg)
		rows += int64(v)
		for c, off := 0, n; c < len(totals) && off < len(oldAvg); c++ {
			v, n := ReadVarint(oldAvg[off:])
			totals[c] += int64(v)
			off += n
		}
	}
	avg := AppendVarint(nil, uint64(rows))
	for _, n := range totals {
		avg = AppendVarint(avg, uint64(n))
	}
	for _, blk := range []struct {
		id   int64
		data []byte
	}{{structureRowid, st.encode()}, {averagesRowid, avg}} {
		err := execWrite(conn, "REPLACE INTO "+data+"(id, block) VALUES (?, ?)", blk.id, blk.data)
		if err != nil {
			return fmt.Errorf("write full-text structure: %w", err)
		}
	}
	return nil
}

// structure is FTS5's structure record of a contentless_delete table (its V2 form): the
// configuration cookie, the write counter and the segments of each level.
type structure struct {
	cookie  [4]byte
	counter uint64
	levels  []level
}

type level struct {
	merge uint64 // segments in an incremental merge
	segs  []structSegment
}

type structSegment struct {
	id, first, last                       uint64
	origin1, origin2, tombPages, tombRows uint64
	entries                               uint64
}

func (st *structure) segments() int {
	n := 0
	for _, l := range st.levels {
		n += len(l.segs)
	}
	return n
}

func decodeStructure(b []byte) (*structure, error) {
	if len(b) < 8 || string(b[4:8]) != structureV2 {
		return nil, errors.New("read full-text structure: not the record of a contentless_delete table")
	}
	st := &structure{}
	copy(st.cookie[:], b)
	off := 8
	next := func() uint64 {
		v, n := ReadVarint(b[min(off, len(b)):])
		off += n
		return v
	}
	levels, _ := next(), next()
	st.counter = next()
	for range levels {
		l := level{merge: next()}
		for range next() {
			s := structSegment{id: next(), first: next(), last: next(), origin1: next(), origin2: next(),
				tombPages: next(), tombRows: next(), entries: next()}
			l.segs = append(l.segs, s)
		}
		st.levels = append(st.levels, l)
	}
	if off > len(b) {
		return nil, errors.New("read full-text structure: the record is cut short")
	}
	return st, nil
}

func (st *structure) encode() []byte {
	out := append(append([]byte(nil), st.cookie[:]...), structureV2...)
	out = AppendVarint(out, uint64(len(st.levels)))
	out = AppendVarint(out, uint64(st.segments()))
	out = AppendVarint(out, st.counter)
	for _, l := range st.levels {
		out = AppendVarint(out, l.merge)
		out = AppendVarint(out, uint64(len(l.segs)))
		for _, s := range l.segs {
			for _, v := range []uint64{s.id, s.first, s.last, s.origin1, s.origin2, s.tombPages, s.tombRows, s.entries} {
				out = AppendVarint(out, v)
			}
		}
	}
	return out
}

const (
	averagesRowid  = 1
	structureRowid = 10
)

func readBlock(conn *sqlite.Conn, table string, id int64) ([]byte, error) {
	s := conn.Prep("SELECT block FROM " + table + " WHERE id = ?")
	defer s.Reset()
	s.BindInt64(1, id)
	ok, err := s.Step()
	if err != nil {
		return nil, fmt.Errorf("read full-text record %d: %w", id, err)
	}
	if !ok {
		return nil, fmt.Errorf("read full-text record %d: none", id)
	}
	out := make([]byte, s.ColumnLen(0))
	s.ColumnBytes(0, out)
	return out, nil
}

func execWrite(conn *sqlite.Conn, q string, id int64, block []byte) error {
	s := conn.Prep(q)
	s.BindInt64(1, id)
	s.BindBytes(2, block)
	return stepOnce(s)
}

// stepOnce runs a prepared statement that returns no rows and resets it for the next use.
func stepOnce(s *sqlite.Stmt) error {
	_, err := s.Step()
	if rerr := s.Reset(); err == nil {
		err = rerr
	}
	return err
}

// AppendVarint appends v in SQLite's variable-length integer format, which FTS5's records
// use: big-endian groups of seven bits, the high bit set on all but the last, a ninth byte
// whole.
func AppendVarint(dst []byte, v uint64) []byte {
	if v <= 0x7f { // most values: small enough for the compiler to inline this test
		return append(dst, byte(v))
	}
	return appendLongVarint(dst, v)
}

func appendLongVarint(dst []byte, v uint64) []byte {
	if v <= 0x3fff {
		return append(dst, byte(v>>7)|0x80, byte(v&0x7f))
	}
	if v&(0xff000000<<32) != 0 {
		var buf [9]byte
		buf[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(dst, buf[:]...)
	}
	var buf [9]byte
	n := 0
	for ; v != 0; n++ {
		buf[n] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	buf[0] &= 0x7f
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, buf[i])
	}
	return dst
}

// ReadVarint reads a value AppendVarint wrote at the start of b and returns it with its
// length; a value cut short is read as far as b goes.
func ReadVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8 && i < len(b); i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return v, len(b)
	}
	return v<<8 | uint64(b[8]), 9
}

func putU16(b []byte, v int) { binary.BigEndian.PutUint16(b, uint16(v)) }

// Shape is how a full-text index is laid out: its segments, the rows its segments hold, and
// the deletion marks (tombstones) they carry for rows removed since they were written. Every
// query checks each posting of a segment with marks against them, and looks in every
// segment.
type Shape struct {
	Segments   int
	Entries    uint64
	Tombstones uint64
}

// ReadShape reads the shape of table t from its structure record.
func ReadShape(conn *sqlite.Conn, t Table) (Shape, error) {
	b, err := readBlock(conn, t.shadow("data"), structureRowid)
	if err != nil {
		return Shape{}, err
	}
	st, err := decodeStructure(b)
	if err != nil {
		return Shape{}, err
	}
	var sh Shape
	for _, l := range st.levels {
		for _, s := range l.segs {
			sh.Segments++
			sh.Entries += s.entries
			sh.Tombstones += s.tombRows
		}
	}
	return sh, nil
}
