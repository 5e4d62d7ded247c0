package fts5seg

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"zombiezen.com/go/sqlite"
)

// segWriter writes one segment's leaf pages, doclist indexes and idx rows, in the order and
// form FTS5's flush of its pending terms does (fts5FlushOneHash and the fts5Write functions
// of fts5_index.c), so that a segment written here is the segment FTS5 would write; only the
// doclist index pages are written later than FTS5 writes them (segWriter.later).
type segWriter struct {
	conn  *sqlite.Conn
	data  *sqlite.Stmt // INSERT INTO %_data
	idx   *sqlite.Stmt // INSERT INTO %_idx
	segid int
	err   error

	// The leaf page being written: its number, its bytes (a 4-byte header first), its page
	// index (each term's offset from the one before), and the last term written to the
	// segment.
	pgno       int
	buf        []byte
	pgidx      []byte
	prevPgidx  int
	term       []byte
	firstTerm  bool // no term on the page yet
	firstRowid bool // no rowid on the page yet

	// The separator of the page whose last term's doclist is being written: it goes into
	// %_idx, with a flag saying whether that doclist got a doclist index.
	btterm []byte
	btPage int
	empty  int // pages in a row without a term
	dlidx  []dlidxWriter
	// Doclist index pages, written after the segment's leaves: their rowids sort after
	// every leaf's, so writing them as FTS5 does, when each is full, would make every later
	// leaf an insert into the middle of the table rather than an append.
	later []block
}

// block is one record of the data table.
type block struct {
	id   int64
	data []byte
}

// dlidxWriter is one level of a doclist index being written.
type dlidxWriter struct {
	pgno      int
	prevValid bool
	prev      int64
	buf       []byte
}

func newSegWriter(conn *sqlite.Conn, t Table, segid int) *segWriter {
	w := &segWriter{
		conn:       conn,
		data:       conn.Prep("INSERT INTO " + t.shadow("data") + "(id, block) VALUES (?, ?)"),
		idx:        conn.Prep("INSERT INTO " + t.shadow("idx") + "(segid, term, pgno) VALUES (?, ?, ?)"),
		segid:      segid,
		pgno:       1,
		buf:        make([]byte, 4, PageSize+64),
		firstTerm:  true,
		firstRowid: false,
		btPage:     1,
		dlidx:      make([]dlidxWriter, 1),
	}
	return w
}

// Rowids of the segment's records in %_data.
const (
	pageBits   = 31
	heightBits = 5
	dlidxBits  = 1
)

func (w *segWriter) leafRowid(pgno int) int64 {
	return int64(w.segid)<<(pageBits+heightBits+dlidxBits) + int64(pgno)
}

func (w *segWriter) dlidxRowid(height, pgno int) int64 {
	return int64(w.segid)<<(pageBits+heightBits+dlidxBits) + 1<<(pageBits+heightBits) + int64(height)<<pageBits + int64(pgno)
}

func (w *segWriter) write(id int64, block []byte) {
	if w.err != nil {
		return
	}
	w.data.BindInt64(1, id)
	w.data.BindBytes(2, block)
	if err := stepOnce(w.data); err != nil {
		w.err = fmt.Errorf("write full-text page: %w", err)
	}
}

// writeLater keeps a copy of a block for finish to write.
func (w *segWriter) writeLater(id int64, data []byte) {
	w.later = append(w.later, block{id, bytes.Clone(data)})
}

// appendDoclist writes a term and its doclist (rowid deltas, position list sizes, position
// lists), splitting it over pages as FTS5 does.
func (w *segWriter) appendDoclist(term, doclist []byte) {
	w.appendTerm(term)
	if PageSize >= len(w.buf)+len(w.pgidx)+len(doclist)+1 {
		w.buf = append(w.buf, doclist...)
		return
	}
	var rowid, prev int64
	for off := 0; off < len(doclist) && w.err == nil; {
		delta, n := ReadVarint(doclist[off:])
		off += n
		rowid += int64(delta)
		if w.firstRowid {
			// The first rowid on a page is whole, and the header points at it.
			putU16(w.buf[0:2], len(w.buf))
			w.buf = AppendVarint(w.buf, uint64(rowid))
			w.firstRowid = false
			w.dlidxAppend(rowid)
		} else {
			w.buf = AppendVarint(w.buf, uint64(rowid-prev))
		}
		prev = rowid
		size, n := ReadVarint(doclist[off:])
		count := n + int(size/2)
		if len(w.buf)+len(w.pgidx)+count <= PageSize {
			w.buf = append(w.buf, doclist[off:off+count]...)
		} else {
			// A position list split over pages is split between varints.
			poslist := doclist[off : off+count]
			for pos := 0; w.err == nil; {
				space := PageSize - len(w.buf) - len(w.pgidx)
				n := count - pos
				if n > space {
					n = poslistPrefix(poslist[pos:], space)
				}
				w.buf = append(w.buf, poslist[pos:pos+n]...)
				pos += n
				if len(w.buf)+len(w.pgidx) >= PageSize {
					w.flushLeaf()
				}
				if pos >= count {
					break
				}
			}
		}
		off += count
	}
}

// poslistPrefix is how many bytes of whole varints at the start of b fit in max bytes (at
// least the first varint).
func poslistPrefix(b []byte, max int) int {
	_, n := ReadVarint(b)
	if n < max {
		for {
			_, i := ReadVarint(b[n:])
			if n+i > max {
				break
			}
			n += i
		}
	}
	return n
}

func (w *segWriter) appendTerm(term []byte) {
	if len(w.buf)+len(w.pgidx)+len(term)+2 >= PageSize && len(w.buf) > 4 {
		w.flushLeaf()
	}
	w.pgidx = AppendVarint(w.pgidx, uint64(len(w.buf)-w.prevPgidx))
	w.prevPgidx = len(w.buf)
	prefix := 0
	if w.firstTerm {
		if w.pgno != 1 {
			// The separator: the shortest prefix of this term longer than what it shares with
			// the last term of the page before.
			n := len(term)
			if len(w.term) != 0 {
				n = 1 + sharedPrefix(w.term, term)
			}
			w.flushBtree()
			w.btterm = append(w.btterm[:0], term[:n]...)
			w.btPage = w.pgno
		}
	} else {
		prefix = sharedPrefix(w.term, term)
		w.buf = AppendVarint(w.buf, uint64(prefix))
	}
	w.buf = AppendVarint(w.buf, uint64(len(term)-prefix))
	w.buf = append(w.buf, term[prefix:]...)
	w.term = append(w.term[:0], term...)
	w.firstTerm, w.firstRowid = false, false
	w.dlidx[0].pgno = w.pgno
}

func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func (w *segWriter) flushLeaf() {
	putU16(w.buf[2:4], len(w.buf))
	if w.firstTerm {
		// A page of rowids and positions only: its doclist index entry, if the index has
		// begun, says it holds no rowid.
		if w.firstRowid && len(w.dlidx[0].buf) > 0 {
			w.dlidx[0].buf = AppendVarint(w.dlidx[0].buf, 0)
		}
		w.empty++
	} else {
		w.buf = append(w.buf, w.pgidx...)
	}
	w.write(w.leafRowid(w.pgno), w.buf)
	w.buf = append(w.buf[:0], 0, 0, 0, 0)
	w.pgidx = w.pgidx[:0]
	w.prevPgidx = 0
	w.pgno++
	w.firstTerm, w.firstRowid = true, true
}

// flushBtree writes the %_idx row of the page btPage, and the doclist index of its last
// term if that doclist ran over enough pages without terms, else drops it.
func (w *segWriter) flushBtree() {
	if w.btPage == 0 || w.err != nil {
		return
	}
	flag := int64(0)
	if len(w.dlidx[0].buf) > 0 && w.empty >= minDlidxPages {
		flag = 1
	}
	for i := range w.dlidx {
		d := &w.dlidx[i]
		if len(d.buf) == 0 {
			break
		}
		if flag == 1 {
			w.writeLater(w.dlidxRowid(i, d.pgno), d.buf)
		}
		d.buf, d.prevValid = d.buf[:0], false
	}
	w.empty = 0
	w.idx.BindInt64(1, int64(w.segid))
	w.idx.BindBytes(2, w.btterm)
	w.idx.BindInt64(3, flag+int64(w.btPage)<<1)
	if err := stepOnce(w.idx); err != nil {
		w.err = fmt.Errorf("write full-text separator: %w", err)
		return
	}
	w.btPage = 0
}

// dlidxAppend records that rowid is the first on the current page, in the doclist index,
// writing out a full index page and starting the level above it as FTS5 does.
func (w *segWriter) dlidxAppend(rowid int64) {
	done := false
	for i := 0; !done && w.err == nil; i++ {
		d := &w.dlidx[i]
		if len(d.buf) >= PageSize {
			d.buf[0] = 0x01 // not the root
			w.writeLater(w.dlidxRowid(i, d.pgno), d.buf)
			if len(w.dlidx) < i+2 {
				w.dlidx = append(w.dlidx, dlidxWriter{})
			}
			d = &w.dlidx[i]
			if up := &w.dlidx[i+1]; len(up.buf) == 0 {
				// This was the root: its first rowid goes up to the new root.
				_, n := ReadVarint(d.buf[1:])
				first, _ := ReadVarint(d.buf[1+n:])
				up.pgno = d.pgno
				up.buf = AppendVarint(up.buf, 0)
				up.buf = AppendVarint(up.buf, uint64(d.pgno))
				up.buf = AppendVarint(up.buf, first)
				up.prevValid, up.prev = true, int64(first)
			}
			d.buf, d.prevValid = d.buf[:0], false
			d.pgno++
		} else {
			done = true
		}
		var v uint64
		if d.prevValid {
			v = uint64(rowid - d.prev)
		} else {
			pgno := w.pgno
			if i > 0 {
				pgno = w.dlidx[i-1].pgno
			}
			flag := uint64(1)
			if done {
				flag = 0
			}
			d.buf = AppendVarint(d.buf, flag)
			d.buf = AppendVarint(d.buf, uint64(pgno))
			v = uint64(rowid)
		}
		d.buf = AppendVarint(d.buf, v)
		d.prevValid, d.prev = true, rowid
	}
}

// finish writes the last page and %_idx row and returns the segment's last page number.
func (w *segWriter) finish() (int, error) {
	if len(w.buf) > 4 {
		w.flushLeaf()
	}
	last := w.pgno - 1
	if w.pgno > 1 {
		w.flushBtree()
	}
	slices.SortFunc(w.later, func(x, y block) int { return cmp.Compare(x.id, y.id) })
	for _, b := range w.later {
		w.write(b.id, b.data)
	}
	return last, w.err
}
