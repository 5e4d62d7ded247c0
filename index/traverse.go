package index

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
)

// NodeRef names a node of one snapshot: its stable ID and its key in that index file. Keys
// are only meaningful to the snapshot that returned them.
type NodeRef struct {
	Key int64
	ID  string
}

// Hop is one stored edge met while expanding a node: From is the expanded node, To the node
// at the other end. Outgoing says whether From is the edge's stored source.
type Hop struct {
	From     NodeRef
	To       NodeRef
	Relation string
	Outgoing bool
	// Review is the relation's review state: graph.Confirmed, graph.Suspect, or "" when it
	// carries no stamp.
	Review string
}

// Expansion is one breadth-first level: the qualifying edges of the expanded nodes, in the
// order the nodes were given and, per node, by relation then the other end's ID.
type Expansion struct {
	Hops     []Hop
	Examined int
	// Exhausted is set when the work budget stopped the expansion before every edge of every
	// given node was examined.
	Exhausted bool
}

// RelationNames returns the relation vocabulary the index was built with, sorted.
func (s *Snapshot) RelationNames(ctx context.Context) ([]string, error) {
	var names []string
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		return sqlitex.Execute(conn, `SELECT name FROM relations ORDER BY name`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error { names = append(names, st.ColumnText(0)); return nil }})
	})
	if err != nil {
		return nil, fmt.Errorf("read relation vocabulary: %w", err)
	}
	return names, nil
}

// Resolve finds the nodes with exactly these IDs; a missing one is node_not_found.
func (s *Snapshot) Resolve(ctx context.Context, ids []string) ([]NodeRef, error) {
	out := make([]NodeRef, 0, len(ids))
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		for _, id := range ids {
			key, ok := lookupKey(conn, id)
			if !ok {
				return problem.Errorf(problem.NodeNotFound, "no node %q in generation %d", id, s.info.Generation)
			}
			out = append(out, NodeRef{Key: key, ID: id})
		}
		return nil
	})
	return out, err
}

// Expand reads, for each node of from, its edges in one direction whose relation is one of
// relations, examining at most budget edges in all. Each node's edges are read through the
// edge index ordered by relation name and the other end's ID, so which edges a spent budget
// leaves unexamined does not depend on the index's internal keys. Every edge read counts as
// examined, whether its relation qualifies or not: that is the work done. Filtering in SQL
// instead, with "rel IN (...)", made impact on the 100k-node benchmark project about three
// times slower (p50 10.9 against 3.2 ms in-process): SQLite builds an ephemeral table for the
// list, which costs the pure-Go SQLite an mmap and munmap each time.
func (s *Snapshot) Expand(ctx context.Context, from []NodeRef, outgoing bool, relations []string, budget int) (*Expansion, error) {
	out := &Expansion{}
	if len(from) == 0 || len(relations) == 0 {
		return out, nil
	}
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		want, err := relationKeys(conn, relations)
		if err != nil || len(want) == 0 {
			return err
		}
		st := conn.Prep(s.expandSQL(outgoing))
		var hashOf *sqlite.Stmt
		if !outgoing && s.stamped {
			hashOf = conn.Prep(`SELECT content_hash FROM nodes WHERE key = ?`)
		}
		for _, f := range from {
			remaining := budget - out.Examined
			if remaining <= 0 {
				out.Exhausted = true
				return nil
			}
			st.BindInt64(1, f.Key)
			if hashOf != nil {
				hash, err := nodeHash(hashOf, f.Key)
				if err != nil {
					return fmt.Errorf("expand %s: %w", f.ID, err)
				}
				st.BindText(3, f.ID)
				st.BindText(4, hash)
			}
			rows, err := readHops(st, f, outgoing)
			if err != nil {
				return fmt.Errorf("expand %s: %w", f.ID, err)
			}
			for _, r := range rows {
				if out.Examined == budget {
					out.Exhausted = true
					break
				}
				out.Examined++
				if want[r.rel] {
					out.Hops = append(out.Hops, r.hop)
				}
			}
			if out.Exhausted {
				return nil
			}
		}
		return nil
	})
	return out, err
}

// expandSQL is the statement that reads one node's edges one way, with the far node's key
// and ID, the relation's name and key, and the edge's review state.
func (s *Snapshot) expandSQL(outgoing bool) string {
	// The review state needs the target's ID and hash: the far node's going forwards, the
	// expanded node's (bound as ?3 and ?4) going backwards. The stamp probe is one primary
	// key lookup, and the CASE reads the hash only for a stamped edge. A generation without
	// stamps skips the probe, which made impact on the unstamped 10k-node benchmark
	// project 1.3 times slower.
	near, far := "src", "dst"
	if !outgoing {
		near, far = "dst", "src"
	}
	// The far node is read by a correlated subquery, not a join: over deltas both tables
	// are views of two parts each, and SQLite runs a join of them as four parts, reading
	// the base's edges and their dead keys twice (docs/benchmarks.md).
	farNode := func(col string) string { return `(SELECT n.` + col + ` FROM nodes n WHERE n.key = e.` + far + `)` }
	targetID, targetHash := farNode("id"), farNode("content_hash")
	if !outgoing {
		targetID, targetHash = "?3", "?4"
	}
	// A correlated subquery, not a LEFT JOIN: across segments stamps is a view, which
	// SQLite would materialize whole on the right of a LEFT JOIN.
	review := `''`
	if s.stamped {
		hash := `(SELECT s.hash FROM stamps s WHERE s.src = e.src AND s.target = ` + targetID + `)`
		review = `CASE WHEN ` + hash + ` IS NULL THEN '' WHEN ` + hash + ` = ` + targetHash + ` THEN '` + graph.Confirmed + `' ELSE '` + graph.Suspect + `' END`
	}
	// No LIMIT and no ORDER BY: a node's edges are read whole and sorted here. Over deltas
	// the tables are views of two parts each, and sorting their join in SQL took a
	// temporary table for each of its four parts (impact at 100k over 4 deltas, 2.1
	// against 1.2 ms merged, docs/benchmarks.md); a bound LIMIT made SQLite prepare the
	// statement again at every rebinding.
	return `SELECT e.` + far + `, ` + farNode("id") + `, r.name, e.rel, ` + review + `
		FROM edges e JOIN relations r ON r.rel = e.rel WHERE e.` + near + ` = ?1`
}

// edgeRow is one edge Expand read: its hop, and its relation's key.
type edgeRow struct {
	hop Hop
	rel int64
}

// readHops steps st, bound to from, through its edges, sorted in the answers' order.
func readHops(st *sqlite.Stmt, from NodeRef, outgoing bool) ([]edgeRow, error) {
	var rows []edgeRow
	for {
		ok, err := st.Step()
		if err != nil {
			st.Reset()
			return nil, err
		}
		if !ok {
			break
		}
		if st.ColumnType(1) == sqlite.TypeNull {
			continue // no live node holds the far key: the join would have dropped the edge
		}
		rows = append(rows, edgeRow{rel: st.ColumnInt64(3),
			hop: Hop{From: from, To: NodeRef{Key: st.ColumnInt64(0), ID: st.ColumnText(1)}, Relation: st.ColumnText(2), Outgoing: outgoing, Review: st.ColumnText(4)}})
	}
	if err := st.Reset(); err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b edgeRow) int {
		return relationOrder(a.hop.Relation, a.hop.To.ID, b.hop.Relation, b.hop.To.ID)
	})
	return rows, nil
}

func nodeHash(st *sqlite.Stmt, key int64) (string, error) {
	defer st.Reset()
	st.BindInt64(1, key)
	ok, err := st.Step()
	switch {
	case err != nil:
		return "", fmt.Errorf("read content hash of key %d: %w", key, err)
	case !ok:
		return "", fmt.Errorf("read content hash: no node has key %d", key)
	}
	return st.ColumnText(0), nil
}

// relationKeys returns the index keys of relation names; names the index does not know are
// skipped.
func relationKeys(conn *sqlite.Conn, names []string) (map[int64]bool, error) {
	keys := map[int64]bool{}
	st := conn.Prep(`SELECT rel FROM relations WHERE name = ?`)
	for _, n := range names {
		st.BindText(1, n)
		ok, err := st.Step()
		if err != nil {
			st.Reset()
			return nil, fmt.Errorf("relation %s: %w", n, err)
		}
		if ok {
			keys[st.ColumnInt64(0)] = true
		}
		st.Reset()
	}
	return keys, nil
}

// Hydrated is a node's record with the start of its body.
type Hydrated struct {
	graph.Record
	Line, EndLine int
	// Excerpt is the body's first characters (whole runes, never more than asked); BodyChars
	// is the length of the whole body in characters; CodeTerms a declaration's source terms.
	// All three are read only with an excerpt.
	Excerpt   string
	BodyChars int
	CodeTerms string
}

// Hydrate reads the records of refs and, for refs[i], the first excerpt(i) characters of its
// body and the body's length; with excerpt(i) 0 the body is not read. The result is in the
// order of refs.
func (s *Snapshot) Hydrate(ctx context.Context, refs []NodeRef, excerpt func(i int) int) ([]Hydrated, error) {
	out := make([]Hydrated, len(refs))
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		withBody := conn.Prep(`SELECT ` + recordColumns + `, line, substr(b.body, 1, ?), length(b.body), end_line, b.code FROM nodes JOIN bodies b ON b.key = nodes.key WHERE nodes.key = ?`)
		// Without an excerpt the body is not read at all (BodyChars is then 0): metadata of a
		// thousand nodes should not cost a thousand bodies.
		bare := conn.Prep(`SELECT ` + recordColumns + `, line, '', 0, end_line, '' FROM nodes WHERE nodes.key = ?2`)
		for i, ref := range refs {
			st := withBody
			if n := excerpt(i); n > 0 {
				st.BindInt64(1, int64(n))
			} else {
				st = bare
			}
			st.BindInt64(2, ref.Key)
			ok, err := st.Step()
			if err != nil {
				st.Reset()
				return fmt.Errorf("hydrate %s: %w", ref.ID, err)
			}
			if !ok {
				st.Reset()
				return fmt.Errorf("hydrate %s: node missing from its own snapshot", ref.ID)
			}
			r, _ := scanRecord(st)
			out[i] = Hydrated{Record: r, Line: int(st.ColumnInt64(13)), Excerpt: st.ColumnText(14), BodyChars: int(st.ColumnInt64(15)), EndLine: int(st.ColumnInt64(16)), CodeTerms: st.ColumnText(17)}
			if err := st.Reset(); err != nil {
				return fmt.Errorf("hydrate %s: %w", ref.ID, err)
			}
		}
		return nil
	})
	return out, err
}

// RankedHit is one node chosen by a lexical match.
type RankedHit struct {
	NodeRef
	// Match is "id" when a query word is the node's exact ID, else "text" (BM25).
	Match string
	Score float64
}

// TermUse says how common one query term is and whether the ranking used it. Nodes is the
// number of nodes holding the term, counted up to the scoring budget; AtLeast marks a count
// that stopped there.
type TermUse struct {
	Term    string `json:"term"`
	Nodes   int    `json:"nodes"`
	AtLeast bool   `json:"at_least,omitempty"`
	Used    bool   `json:"used"`
}

// Ranking is the outcome of RankAny.
type Ranking struct {
	Hits []RankedHit
	// More is set when more nodes matched than were returned.
	More  bool
	Terms []TermUse
	// Mode is how the text match was made: "any" (BM25 over the terms used, any of them
	// matching), "all" (every term must match: each alone was too common), "too_common" (even
	// that matched more nodes than the budget), or "" (no text match was needed or possible).
	Mode string
}

// RankAny chooses up to limit nodes for a bag of words: first nodes whose ID is exactly one
// of ids (in the order given), then full-text matches ranked by BM25 (ties by ID).
//
// BM25 scores every matching node before it can sort, so the cost follows how many nodes
// hold the terms. The terms are counted first (each count stops past budget), and the
// rarest are used while the nodes they match together stay within budget, those late
// reports true for after all others; a term in more nodes carries little weight anyway. When no term fits alone, the nodes holding every term
// are ranked instead, if they fit. Terms are quoted, so no input reaches FTS5 as syntax.
func (s *Snapshot) RankAny(ctx context.Context, ids, terms []string, limit, budget int, late func(term string) bool) (*Ranking, error) {
	out := &Ranking{Terms: []TermUse{}}
	seen := map[int64]bool{}
	err := s.withReader(ctx, func(r *reader) error {
		conn := r.conn
		for _, id := range ids {
			if key, ok := lookupKey(conn, id); ok && !seen[key] {
				if len(out.Hits) == limit {
					out.More = true
					return nil
				}
				seen[key] = true
				out.Hits = append(out.Hits, RankedHit{NodeRef: NodeRef{Key: key, ID: id}, Match: "id"})
			}
		}
		matches := func(q string) (int, bool, error) {
			n := 0
			if err := s.liveMatches(conn, q, budget+1, func(int64) { n++ }); err != nil {
				return 0, false, fmt.Errorf("count matches: %w", err)
			}
			return min(n, budget), n > budget, nil
		}
		for _, t := range terms {
			n, atLeast, err := matches(quoteTerm(t))
			if err != nil {
				return err
			}
			out.Terms = append(out.Terms, TermUse{Term: t, Nodes: n, AtLeast: atLeast})
		}
		chosen, present := chooseTerms(out.Terms, budget, late)
		query := strings.Join(chosen, " OR ")
		out.Mode = "any"
		if len(chosen) == 0 {
			if len(present) == 0 {
				out.Mode = ""
				return nil
			}
			query = strings.Join(present, " ")
			if _, atLeast, err := matches(query); err != nil || atLeast {
				out.Mode = "too_common"
				return err
			}
			out.Mode = "all"
			for i := range out.Terms {
				out.Terms[i].Used = out.Terms[i].Nodes > 0
			}
		}
		from, err := s.rankedMatches(r, query, limit+len(out.Hits)+1)
		if err != nil {
			return err
		}
		// Sorted here, best first, equal ranks by ID: over deltas an ORDER BY sorted each part
		// of the join in a temporary table.
		var hits []RankedHit
		err = sqlitex.Execute(conn, `SELECT n.key, n.id, s.rank FROM `+from+` s
			JOIN nodes n ON n.key = s.rowid`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error {
				hits = append(hits, RankedHit{NodeRef: NodeRef{Key: st.ColumnInt64(0), ID: st.ColumnText(1)}, Match: "text", Score: -st.ColumnFloat(2)})
				return nil
			}})
		slices.SortFunc(hits, func(a, b RankedHit) int { return rankOrder(a.Score, a.ID, b.Score, b.ID) })
		for _, h := range hits {
			if seen[h.Key] {
				continue
			}
			if len(out.Hits) == limit {
				out.More = true
				break
			}
			seen[h.Key] = true
			out.Hits = append(out.Hits, h)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rank focus: %w", err)
	}
	return out, nil
}

// chooseTerms marks the terms a ranking uses: rarest first (those late reports true for
// after all others), while the nodes they match together stay within budget. It returns
// them quoted, and every term some node holds.
func chooseTerms(terms []TermUse, budget int, late func(term string) bool) (chosen, present []string) {
	isLate := func(i int) bool { return late != nil && late(terms[i].Term) }
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if la, lb := isLate(a), isLate(b); la != lb {
			if la {
				return 1
			}
			return -1
		}
		return terms[a].Nodes - terms[b].Nodes
	})
	total := 0
	for _, i := range order {
		t := &terms[i]
		if t.Nodes == 0 {
			continue
		}
		present = append(present, quoteTerm(t.Term))
		if !t.AtLeast && total+t.Nodes <= budget {
			total += t.Nodes
			t.Used = true
			chosen = append(chosen, quoteTerm(t.Term))
		}
	}
	return chosen, present
}

// relationOrder orders a node's relations by relation name, then the other node's ID, as the
// answers list them: bytewise, as SQLite's BINARY collation. Queries over segment views sort
// in Go (docs/architecture.md, "Segments").
func relationOrder(relA, idA, relB, idB string) int {
	return cmp.Or(strings.Compare(relA, relB), strings.Compare(idA, idB))
}

// rankOrder orders ranked hits best first (the highest score), equal scores by ID.
func rankOrder(scoreA float64, idA string, scoreB float64, idB string) int {
	return cmp.Or(cmp.Compare(scoreB, scoreA), strings.Compare(idA, idB))
}

// quoteTerm makes one word an FTS5 string, so it is matched as a term, never as syntax.
func quoteTerm(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// FileTerms says, for each of terms, which source files hold it in any node's indexed text
// (name, title, tags, body or code), and each such file's size in bytes; total is the number
// of files. Only a term's first budget+1 matching nodes are read, so the caller passes terms
// it has counted within budget. Package nodes, whose source is a directory, count for no
// file.
func (s *Snapshot) FileTerms(ctx context.Context, terms []string, budget int) ([][]string, map[string]int64, int, error) {
	out := make([][]string, len(terms))
	sizes := map[string]int64{}
	total := 0
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		total = int(s.files)
		// The files are found by the matches' keys, a condition SQLite puts into each part of
		// the node and file views over deltas; joined to them, it materialized both views.
		st := conn.Prep(`SELECT f.path, f.size FROM files f WHERE f.path IN
			(SELECT n.source_path FROM nodes n WHERE n.key IN (SELECT value FROM json_each(?1)))`)
		for i, t := range terms {
			var keys []int64
			if err := s.liveMatches(conn, quoteTerm(t), budget+1, func(k int64) { keys = append(keys, k) }); err != nil {
				return fmt.Errorf("files holding %q: %w", t, err)
			}
			list, err := json.Marshal(keys)
			if err != nil {
				return err
			}
			st.BindText(1, string(list))
			var files []string
			for {
				ok, err := st.Step()
				if err != nil {
					st.Reset()
					return fmt.Errorf("files holding %q: %w", t, err)
				}
				if !ok {
					break
				}
				files = append(files, st.ColumnText(0))
				sizes[st.ColumnText(0)] = st.ColumnInt64(1)
			}
			if err := st.Reset(); err != nil {
				return err
			}
			out[i] = files
		}
		return nil
	})
	return out, sizes, total, err
}

// Span is one node of a file with the lines it spans: EndLine is 0 for a node that is no
// declaration (a file, a document).
type Span struct {
	NodeRef
	Kind          string
	Line, EndLine int
}

// NodesAt lists the nodes whose source is the file at the project-relative path, in line
// order.
func (s *Snapshot) NodesAt(ctx context.Context, path string) ([]Span, error) {
	var out []Span
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		return sqlitex.Execute(conn, `SELECT key, id, kind, line, end_line FROM nodes WHERE source_path = ? ORDER BY line, id`, &sqlitex.ExecOptions{
			Args: []any{path},
			ResultFunc: func(st *sqlite.Stmt) error {
				out = append(out, Span{NodeRef: NodeRef{Key: st.ColumnInt64(0), ID: st.ColumnText(1)}, Kind: st.ColumnText(2),
					Line: st.ColumnInt(3), EndLine: st.ColumnInt(4)})
				return nil
			}})
	})
	if err != nil {
		return nil, fmt.Errorf("nodes of %s: %w", path, err)
	}
	return out, nil
}
