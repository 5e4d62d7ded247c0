package index

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/golang"
)

// Default result limits when a caller gives none; both are capped by max_results.
const (
	DefaultSearchLimit = 20
	DefaultListLimit   = 50
	// DefaultImpactBudget bounds the candidate edges one impact query may examine.
	DefaultImpactBudget = 20000
	MaxImpactDepth      = 10
)

// NodeView is one node with its body and its direct relations.
type NodeView struct {
	graph.Record
	Line     int             `json:"line"`
	Headings []graph.Heading `json:"headings"`
	Body     string          `json:"body"`
	Outgoing []Link          `json:"outgoing"`
	Incoming []Link          `json:"incoming"`
	// OutgoingTruncated and IncomingTruncated are set when the node has more relations that
	// way than were listed (max_results each way).
	OutgoingTruncated bool `json:"outgoing_truncated"`
	IncomingTruncated bool `json:"incoming_truncated"`
}

// Link is a relation seen from one node: the relation name and the node at its other end.
type Link struct {
	Relation string `json:"relation"`
	NodeID   string `json:"node_id"`
	Title    string `json:"title"`
	Kind     string `json:"kind"`
	Family   string `json:"family"`
	// Anchor is the heading a Markdown link named in the target (outgoing) or, seen from the
	// target, in this node (incoming); empty for declared relations.
	Anchor string `json:"anchor,omitempty"`
	// Review is "confirmed" or "suspect" when the relation carries a review stamp, and empty
	// when it was never reviewed; Changes says, for a suspect one, what changed in the target
	// since the stamp.
	Review  string   `json:"review,omitempty"`
	Changes []string `json:"review_changes,omitempty"`
}

// LinkList is a bounded list of links.
type LinkList struct {
	NodeID    string `json:"node_id"`
	Links     []Link `json:"links"`
	Limit     int    `json:"limit"`
	Truncated bool   `json:"truncated"`
}

// NodeSummary is a node as listed in collections.
type NodeSummary struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Kind       string   `json:"kind"`
	Family     string   `json:"family"`
	Status     string   `json:"status"`
	Authority  string   `json:"authority"`
	Tags       []string `json:"tags"`
	SourcePath string   `json:"source_path"`
	Anchor     string   `json:"anchor"`
}

const summaryColumns = `n.id, n.title, n.kind, n.family, n.status, n.authority, n.tags, n.source_path, n.anchor`

func scanSummary(s *sqlite.Stmt, at int) NodeSummary {
	ns := NodeSummary{ID: s.ColumnText(at), Title: s.ColumnText(at + 1), Kind: s.ColumnText(at + 2),
		Family: s.ColumnText(at + 3), Status: s.ColumnText(at + 4), Authority: s.ColumnText(at + 5),
		SourcePath: s.ColumnText(at + 7), Anchor: s.ColumnText(at + 8)}
	_ = json.Unmarshal([]byte(s.ColumnText(at+6)), &ns.Tags) // written by this package
	if ns.Tags == nil {
		ns.Tags = []string{}
	}
	return ns
}

// Get returns one node by exact ID.
func (s *Snapshot) Get(ctx context.Context, id string) (*NodeView, error) {
	var v *NodeView
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		key, ok := lookupKey(conn, id)
		if !ok {
			return problem.Errorf(problem.NodeNotFound, "no node %q in generation %d", id, s.info.Generation)
		}
		err := sqlitex.Execute(conn, `SELECT `+recordColumns+`, line, headings, (SELECT body FROM bodies b WHERE b.key = nodes.key) FROM nodes WHERE key = ?`, &sqlitex.ExecOptions{
			Args: []any{key},
			ResultFunc: func(st *sqlite.Stmt) error {
				r, _ := scanRecord(st)
				v = &NodeView{Record: r, Line: int(st.ColumnInt64(13)), Body: st.ColumnText(15)}
				return json.Unmarshal([]byte(st.ColumnText(14)), &v.Headings)
			},
		})
		if err != nil {
			return fmt.Errorf("get node %s: %w", id, err)
		}
		if v.Outgoing, v.OutgoingTruncated, err = s.links(conn, key, true, s.maxResults); err != nil {
			return err
		}
		v.Incoming, v.IncomingTruncated, err = s.links(conn, key, false, s.maxResults)
		return err
	})
	return v, err
}

// links lists up to limit relations out of (outgoing) or into a node, ordered by relation and
// the other node's ID, with the review state of each.
func (s *Snapshot) links(conn *sqlite.Conn, key int64, outgoing bool, limit int) ([]Link, bool, error) {
	// n is the node at the other end, t the relation's target (n itself when outgoing). A
	// generation without stamps selects a NULL stamp, so no review column is read.
	//
	// The optional rows are read by correlated subqueries, not LEFT JOINs: across segments the
	// tables are views, and SQLite materializes a view on the right of a LEFT JOIN whole.
	review, stamps := `NULL`, ``
	if s.stamped {
		stamp := func(col string) string {
			return `(SELECT st.` + col + ` FROM stamps st WHERE st.src = e.src AND st.target = t.id)`
		}
		review = stamp("hash") + `, ` + stamp("head") + `, ` + stamp("body") + `, ` + stamp("path") + `, t.id, t.content_hash, t.head_digest, t.body_digest, t.source_path`
		stamps = `JOIN nodes t ON t.key = e.dst `
	}
	q := `SELECT r.name, n.id, n.title, n.kind, n.family,
		coalesce((SELECT a.anchor FROM edge_anchors a WHERE a.src = e.src AND a.rel = e.rel AND a.dst = e.dst), ''), ` + review + `
		FROM edges e JOIN relations r ON r.rel = e.rel
		` + stamps
	if outgoing {
		q += `JOIN nodes n ON n.key = e.dst WHERE e.src = ?`
	} else {
		q += `JOIN nodes n ON n.key = e.src WHERE e.dst = ?`
	}
	// In one segment SQLite sorts and keeps the first limit+1 (a hub's thousands of
	// relations never reach Go). Over deltas the tables are views of two parts each, and
	// sorting their join in SQL took a temporary table for each of its four parts (get_context
	// of a query at 100k over 4 deltas 42 against 15 ms merged), so the relations are read
	// whole and sorted below (docs/benchmarks.md). Limits are written into the statement,
	// never bound.
	if len(s.segments) <= 1 {
		q += ` ORDER BY r.name, n.id LIMIT ` + strconv.Itoa(limit+1)
	}
	out := []Link{}
	err := sqlitex.Execute(conn, q, &sqlitex.ExecOptions{
		Args: []any{key},
		ResultFunc: func(row *sqlite.Stmt) error {
			l := Link{Relation: row.ColumnText(0), NodeID: row.ColumnText(1), Title: row.ColumnText(2), Kind: row.ColumnText(3), Family: row.ColumnText(4), Anchor: row.ColumnText(5)}
			if row.ColumnType(6) != sqlite.TypeNull {
				stamp := graph.Stamp{Hash: row.ColumnText(6), Parts: graph.Parts{Head: row.ColumnText(7), Body: row.ColumnText(8)}, Path: row.ColumnText(9)}
				target := graph.Node{Record: graph.Record{ID: row.ColumnText(10), ContentHash: row.ColumnText(11), SourcePath: row.ColumnText(14)},
					Parts: graph.Parts{Head: row.ColumnText(12), Body: row.ColumnText(13)}}
				l.Review = graph.ReviewState(stamp.Hash, target.ContentHash)
				if l.Review == graph.Suspect {
					l.Changes = stamp.Changes(&target, graph.IsCode(target.ID))
				}
			}
			out = append(out, l)
			return nil
		},
	})
	if err != nil {
		return nil, false, fmt.Errorf("list relations: %w", err)
	}
	// Already so in one segment.
	slices.SortFunc(out, func(a, b Link) int { return relationOrder(a.Relation, a.NodeID, b.Relation, b.NodeID) })
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// Backlinks lists the relations pointing at a node.
func (s *Snapshot) Backlinks(ctx context.Context, id string, limit int) (*LinkList, error) {
	return s.linkList(ctx, id, limit, false)
}

// Dependencies lists the relations a node declares.
func (s *Snapshot) Dependencies(ctx context.Context, id string, limit int) (*LinkList, error) {
	return s.linkList(ctx, id, limit, true)
}

// Neighbours lists up to limit relations of a node one way, past the project's max_results:
// for a caller that pages and accounts for everything it leaves out (the context tool).
func (s *Snapshot) Neighbours(ctx context.Context, id string, outgoing bool, limit int) (*LinkList, error) {
	return s.linkListUpTo(ctx, id, limit, outgoing)
}

func (s *Snapshot) linkList(ctx context.Context, id string, limit int, outgoing bool) (*LinkList, error) {
	return s.linkListUpTo(ctx, id, s.capLimit(limit, DefaultListLimit), outgoing)
}

func (s *Snapshot) linkListUpTo(ctx context.Context, id string, limit int, outgoing bool) (*LinkList, error) {
	out := &LinkList{NodeID: id, Limit: limit}
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		key, ok := lookupKey(conn, id)
		if !ok {
			return problem.Errorf(problem.NodeNotFound, "no node %q in generation %d", id, s.info.Generation)
		}
		var err error
		out.Links, out.Truncated, err = s.links(conn, key, outgoing, limit)
		return err
	})
	return out, err
}

// Filter selects nodes by exact metadata; every set field must match.
type Filter struct {
	Family     string `json:"family,omitempty"`
	Authority  string `json:"authority,omitempty"`
	Status     string `json:"status,omitempty"`
	Tag        string `json:"tag,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Language   string `json:"language,omitempty"`
	Capability string `json:"capability,omitempty"`
}

// NodeList is a bounded list of nodes.
type NodeList struct {
	Nodes     []NodeSummary `json:"nodes"`
	Limit     int           `json:"limit"`
	Truncated bool          `json:"truncated"`
}

// FilterNodes lists nodes matching every set field of f, ordered by ID.
func (s *Snapshot) FilterNodes(ctx context.Context, f Filter, limit int) (*NodeList, error) {
	limit = s.capLimit(limit, DefaultListLimit)
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{{"family", f.Family}, {"kind", f.Kind}, {"authority", f.Authority}, {"status", f.Status}, {"language", f.Language}} {
		if c.val != "" {
			where = append(where, "n."+c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if f.Tag != "" {
		where = append(where, "EXISTS (SELECT 1 FROM node_tags t WHERE t.tag = ? AND t.key = n.key)")
		args = append(args, f.Tag)
	}
	if f.Capability != "" {
		where = append(where, "EXISTS (SELECT 1 FROM node_caps c WHERE c.cap = ? AND c.key = n.key)")
		args = append(args, f.Capability)
	}
	q := `SELECT ` + summaryColumns + ` FROM nodes n`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY n.id LIMIT ` + strconv.Itoa(limit+1) // not bound: see links
	out := &NodeList{Nodes: []NodeSummary{}, Limit: limit}
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		return sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
			out.Nodes = append(out.Nodes, scanSummary(st, 0))
			return nil
		}})
	})
	if err != nil {
		return nil, fmt.Errorf("filter nodes: %w", err)
	}
	if len(out.Nodes) > limit {
		out.Nodes, out.Truncated = out.Nodes[:limit], true
	}
	return out, nil
}

// SearchHit is one search result. Match says why it was found: "id" (the query is the exact
// ID), "id_prefix" (the ID starts with the query) or "text" (full-text match, ranked by BM25).
type SearchHit struct {
	NodeSummary
	Match   string  `json:"match"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
}

// SearchResult is a bounded, ranked list of hits.
type SearchResult struct {
	Query     string      `json:"query"`
	Hits      []SearchHit `json:"hits"`
	Limit     int         `json:"limit"`
	Truncated bool        `json:"truncated"`
}

// Search finds nodes by exact ID, then ID prefix, then exact name (a one-word query naming a
// declaration, a file or a document: the declaration before its tests), then full text. Full
// text ranks with BM25 over the analyzed ID, name, title, tags and body (base/lexicon: names
// weigh most, prose is stemmed, identifiers also match by their parts), first among the nodes
// holding every query word, then among those holding any. A word ending in * matches as a
// prefix; the query language of FTS5 is not exposed.
func (s *Snapshot) Search(ctx context.Context, query string, limit int) (res *SearchResult, retErr error) {
	limit = s.capLimit(limit, DefaultSearchLimit)
	query = strings.TrimSpace(query)
	terms, err := searchTerms(query)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, searchDeadline)
	defer cancel()
	defer func() {
		if retErr != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res, retErr = nil, problem.Errorf(problem.InvalidArgument, "the search did not finish within %s; use fewer or rarer words", searchDeadline)
		}
	}()
	q := &searcher{s: s, query: query, terms: terms, limit: limit, more: true, seen: map[string]bool{},
		out: &SearchResult{Query: query, Hits: []SearchHit{}, Limit: limit}}
	if err := s.withReader(ctx, func(r *reader) error { q.r = r; return q.run() }); err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	return q.out, nil
}

// isTestCode reports whether a node is a test's code: in a test file by its language's
// conventions (Go's _test.go too), or a test.
func isTestCode(n NodeSummary) bool {
	if n.Family != "code" || n.SourcePath == "" {
		return false
	}
	_, test := source.LanguageOf(n.SourcePath)
	return test || golang.IsTestFile(n.SourcePath)
}

// copiesLast moves after the others each hit that repeats an earlier one's qualified name and
// title in another file (an example copied beside another, a vendored copy): one copy is
// enough among the first.
func copiesLast(hits []SearchHit) []SearchHit {
	seen := map[string]bool{}
	var first, copies []SearchHit
	for _, h := range hits {
		name := h.ID
		if h.SourcePath != "" {
			if i := strings.LastIndex(h.ID, h.SourcePath+"/"); i >= 0 {
				name = h.ID[i+len(h.SourcePath)+1:]
			}
		}
		key := name + "\x00" + h.Title
		if h.Title != "" && seen[key] {
			copies = append(copies, h)
			continue
		}
		seen[key] = true
		first = append(first, h)
	}
	return append(first, copies...)
}

// isChangeLog reports whether a file is a record of changes by its name: CHANGELOG.md,
// CHANGES.rst, HISTORY, NEWS, RELEASE-NOTES, or any file of a release-notes or changelog
// folder.
func isChangeLog(rel string) bool {
	if rel == "" {
		return false
	}
	norm := func(s string) string {
		s = strings.ToLower(s)
		if i := strings.IndexByte(s, '.'); i > 0 {
			s = s[:i]
		}
		return strings.Map(func(r rune) rune {
			if r == '-' || r == '_' || r == ' ' {
				return -1
			}
			return r
		}, s)
	}
	switch norm(path.Base(rel)) {
	case "changelog", "changes", "history", "news", "releasenotes", "releases":
		return true
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		switch norm(dir) {
		case "releasenotes", "changelog", "changes", "changelogs":
			return true
		}
	}
	return false
}

// searchTerms checks a query against the search's bounds and returns its terms.
func searchTerms(query string) ([]term, error) {
	if query == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "search needs a non-empty query")
	}
	if n := utf8.RuneCountInString(query); n > MaxSearchChars {
		return nil, problem.Errorf(problem.InvalidArgument, "a search query holds at most %d characters; this one has %d", MaxSearchChars, n)
	}
	terms := queryTerms(query)
	if len(terms) > MaxSearchTerms {
		return nil, problem.Errorf(problem.InvalidArgument, "a search query holds at most %d words; this one has %d", MaxSearchTerms, len(terms))
	}
	for _, t := range terms {
		if t.prefix && utf8.RuneCountInString(t.text) < MinPrefixChars {
			return nil, problem.Errorf(problem.InvalidArgument, "a prefix search needs at least %d characters before the *; %q matches too much to rank", MinPrefixChars, t.text+"*")
		}
	}
	return terms, nil
}

// searcher is one search on one read connection: its stages add hits in order, each node
// once, until the limit.
type searcher struct {
	s     *Snapshot
	r     *reader
	query string
	terms []term
	limit int
	out   *SearchResult
	seen  map[string]bool
	more  bool // false once the limit is reached
}

// searchBody reads a node's body by a correlated subquery, not a join: over deltas both
// tables are views of two parts each, and SQLite runs a join of them as four parts.
const searchBody = `(SELECT b.body FROM bodies b WHERE b.key = n.key)`

// run runs the stages: exact ID, ID prefix, exact name, the words of a name, then full text
// holding every word and, for fewer hits than the limit, any word.
func (q *searcher) run() error {
	if err := sqlitex.Execute(q.r.conn, `SELECT `+summaryColumns+`, 0, `+searchBody+` FROM nodes n WHERE n.id = ?`,
		&sqlitex.ExecOptions{Args: []any{q.query}, ResultFunc: q.collect("id")}); err != nil {
		return err
	}
	if q.more && isIDLike(q.query) {
		if err := sqlitex.Execute(q.r.conn, `SELECT `+summaryColumns+`, 0, `+searchBody+` FROM nodes n WHERE n.id > ? AND n.id < ? ORDER BY n.id LIMIT `+strconv.Itoa(q.limit+1),
			&sqlitex.ExecOptions{Args: []any{q.query, q.query + "\U0010FFFF"}, ResultFunc: q.collect("id_prefix")}); err != nil {
			return err
		}
	}
	if !q.more || len(q.terms) == 0 {
		return nil
	}
	// The nodes named exactly so (a one-word query).
	if fts := nameQuery(q.query); fts != "" {
		if goOn, err := q.byName(fts, func(n NodeSummary) int { return nameExactness(n, q.query) }); !goOn {
			return err
		}
	}
	// Words that together spell a declaration's name ("subscription bus" for
	// SubscriptionBus, "mcp express app" for createMcpExpressApp): the titles holding them
	// all, kept where the name holds them all, fewest other words first.
	if fts, words := wordsNameQuery(q.terms); fts != "" {
		if goOn, err := q.byName(fts, func(n NodeSummary) int { return nameExtra(n, words) }); !goOn {
			return err
		}
	}
	pairs := map[[2]string]bool{}
	for _, p := range lexicon.Pairs(q.query) {
		pairs[[2]string{p.A, p.B}] = true
	}
	if err := q.text(ftsQuery(q.terms, pairs, true), true); err != nil || !q.more || len(q.terms) < 2 {
		return err
	}
	// Fewer than limit nodes hold every word: fill with those holding any, best first.
	return q.text(ftsQuery(q.terms, pairs, false), false)
}

// add appends a hit unless its node is already in; it reports false once the limit is
// reached, and the search stops.
func (q *searcher) add(h SearchHit) bool {
	if q.seen[h.ID] {
		return true
	}
	if len(q.out.Hits) == q.limit {
		q.out.Truncated = true
		return false
	}
	q.seen[h.ID] = true
	q.out.Hits = append(q.out.Hits, h)
	return true
}

// scan reads one hit of a stage.
func (q *searcher) scan(match string, st *sqlite.Stmt) SearchHit {
	h := SearchHit{NodeSummary: scanSummary(st, 0), Match: match}
	if match == "text" || match == "name" {
		h.Score = -st.ColumnFloat(9)
	}
	h.Snippet = snippet(st.ColumnText(10), q.terms)
	return h
}

// collect adds each row of a stage as a hit while the search goes on.
func (q *searcher) collect(match string) func(st *sqlite.Stmt) error {
	return func(st *sqlite.Stmt) error {
		if q.more {
			q.more = q.add(q.scan(match, st))
		}
		return nil
	}
}

// ranked returns the n best full-text matches of fts. The matches are ranked first (rowid and
// rank only); just the best few are joined to their nodes and bodies, and sorted here, best
// first, equal ranks by ID (over deltas an ORDER BY sorted each part of the views' join in a
// temporary table).
func (q *searcher) ranked(match, fts string, n int) ([]SearchHit, error) {
	from, err := q.s.rankedMatches(q.r, fts, n)
	if err != nil {
		return nil, err
	}
	var hits []SearchHit
	err = sqlitex.Execute(q.r.conn, `SELECT `+summaryColumns+`, s.rank, `+searchBody+`
		FROM `+from+` s JOIN nodes n ON n.key = s.rowid`,
		&sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
			hits = append(hits, q.scan(match, st))
			return nil
		}})
	slices.SortFunc(hits, func(a, b SearchHit) int { return rankOrder(a.Score, a.ID, b.Score, b.ID) })
	return hits, err
}

// testWeight is the factor on the full-text score of a test's code (a test file's nodes, a
// test function) and of a change log: a search describes what the code does, and a test's
// names and strings repeat the words of what it tests, a change log those of every change,
// so they crowd out the code itself.
const testWeight = 0.5

// text adds the full-text matches of fts, best first, tests' code at testWeight of its score:
// the best few more than needed are read, so that code a test outscored comes in. A change
// log holds every word of most sentences, so it never counts as holding all of them (all):
// it is ranked among the nodes holding some.
func (q *searcher) text(fts string, all bool) error {
	n := q.limit + len(q.out.Hits) + 1
	hits, err := q.ranked("text", fts, 2*n+16)
	for i := range hits {
		if isTestCode(hits[i].NodeSummary) || isChangeLog(hits[i].SourcePath) {
			hits[i].Score *= testWeight
		}
	}
	slices.SortStableFunc(hits, func(a, b SearchHit) int { return rankOrder(a.Score, a.ID, b.Score, b.ID) })
	hits = copiesLast(hits)
	for _, h := range hits {
		if all && len(q.terms) > 1 && isChangeLog(h.SourcePath) {
			continue
		}
		if q.more = q.add(h); !q.more {
			break
		}
	}
	return err
}

// byName adds the name matches of fts, nearest first (distance; a negative one is no match),
// then declarations before tests, files and documents (nameGroup), then rank. bm25 weighs a
// name match down in a node with a long body (a class with many members), so nameCandidates
// are ranked before distance picks the first. It reports false when the search is done.
func (q *searcher) byName(fts string, distance func(NodeSummary) int) (bool, error) {
	hits, err := q.ranked("name", fts, max(4*q.limit+1, nameCandidates))
	if err != nil {
		return false, err
	}
	hits = slices.DeleteFunc(hits, func(h SearchHit) bool { return distance(h.NodeSummary) < 0 })
	slices.SortStableFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(distance(a.NodeSummary)-distance(b.NodeSummary), nameGroup(a.NodeSummary)-nameGroup(b.NodeSummary))
	})
	for _, h := range hits {
		if !q.add(h) {
			return false, nil
		}
	}
	return true, nil
}

// nameCandidates bounds the name matches a search orders by exactness.
const nameCandidates = 256

// nameExactness orders exact-name hits by how exactly the node's own name is the query: 0
// spelled the same (MaxBytesReader), 1 the same but for case (maxBytesReader), 2 when the
// query is only part of the name (a method of a type of that name).
func nameExactness(n NodeSummary, query string) int {
	name := NameOf(n.ID, n.Kind)
	switch {
	case name == query || strings.HasSuffix(name, "."+query):
		return 0
	case strings.EqualFold(name, query) || strings.HasSuffix(strings.ToLower(name), "."+strings.ToLower(query)):
		return 1
	}
	return 2
}

// nameGroup orders exact-name hits: a declaration, then one in a test file, then a file or
// package, then anything else.
func nameGroup(n NodeSummary) int {
	switch {
	case n.Kind == golang.KindFile || n.Kind == golang.KindPackage:
		return 2
	case n.Family != golang.Family:
		return 3
	case code.IsTestPath(n.SourcePath):
		return 1
	}
	return 0
}

type term struct {
	text   string
	prefix bool
}

// queryTerms splits a query into its words (letters, digits and underscores, the tokens
// lexicon analyzes), marking those that end in * as prefixes.
// Search bounds: a query's characters and words, the letters a prefix needs, and the time
// SQLite may spend on one search.
const (
	MaxSearchChars = 1000
	MaxSearchTerms = 32
	MinPrefixChars = 2
	searchDeadline = 5 * time.Second
)

func queryTerms(q string) []term {
	var out []term
	var cur strings.Builder
	flush := func(prefix bool) {
		if cur.Len() > 0 {
			out = append(out, term{cur.String(), prefix})
			cur.Reset()
		}
	}
	for _, r := range q {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			cur.WriteRune(r)
		case r == '*':
			flush(true)
		default:
			flush(false)
		}
	}
	flush(false)
	return out
}

// ftsQuery is the FTS5 query of the words (pairs: the query's lexicon.Pairs): with all, every word must match (an identifier by
// its whole form or by all its parts); otherwise any term of any word may, English stopwords
// left out. Every term is quoted, so no input can inject FTS5 syntax.
func ftsQuery(terms []term, pairs map[[2]string]bool, all bool) string {
	quote := quoteTerm
	var groups, any []string
	seen := map[string]bool{}
	// Two plain words of one phrase next to each other (lexicon.Pairs) may be one word or
	// identifier written apart ("back up" is backup, "list labels" ListLabels): their joined
	// form also matches, as both words together (all) or as one more term (any).
	joined := func(i int) string {
		if i+1 >= len(terms) || !plainWord(terms[i]) || !plainWord(terms[i+1]) || !pairs[[2]string{terms[i].text, terms[i+1].text}] {
			return ""
		}
		return strings.ToLower(terms[i].text + terms[i+1].text)
	}
	for i := 0; i+1 < len(terms); i++ {
		if j := joined(i); j != "" && !seen[j] {
			seen[j] = true
			any = append(any, quote(j))
		}
	}
	pairWith := -1 // the index of the word whose group pairs with the next one's
	for i, t := range terms {
		if t.prefix {
			p := quote(strings.ToLower(t.text)) + "*"
			groups, any = append(groups, p), append(any, p)
			continue
		}
		ts := lexicon.Analyze(t.text)
		if len(ts) == 0 {
			continue
		}
		g := wordGroup(ts)
		switch {
		case pairWith == i-1 && i > 0:
			// The second word of a pair: both words, or their joined form.
			groups[len(groups)-1] = "((" + groups[len(groups)-1] + " AND " + g + ") OR " + quote(joined(i-1)) + ")"
			pairWith = -1
		default:
			groups = append(groups, g)
			if joined(i) != "" {
				pairWith = i
			}
		}
		for _, x := range ts {
			if !seen[x.Text] && !lexicon.IsStopword(x.Text) {
				seen[x.Text] = true
				any = append(any, quote(x.Text))
			}
		}
	}
	if all {
		return strings.Join(groups, " AND ")
	}
	return strings.Join(any, " OR ")
}

// wordGroup is the FTS5 group one analyzed word matches by: an identifier by its whole form or
// by all its parts, any other word by its term.
func wordGroup(ts []lexicon.Term) string {
	g := quoteTerm(ts[0].Text)
	if !ts[0].Whole || len(ts) == 1 {
		return g
	}
	parts := make([]string, 0, len(ts)-1)
	for _, p := range ts[1:] {
		parts = append(parts, quoteTerm(p.Text))
	}
	return "(" + g + " OR (" + strings.Join(parts, " AND ") + "))"
}

// plainWord reports whether a query word is one plain word of two letters or more: no
// prefix, no identifier of several parts, ASCII.
func plainWord(t term) bool {
	return !t.prefix && len(t.text) >= 2 && lexicon.IsASCII(t.text) && len(lexicon.Split(t.text)) == 1 && !strings.Contains(t.text, "_")
}

// nameQuery matches nodes whose own name is the query: a single identifier, or Type.Method.
// It is empty for any other query.
func nameQuery(q string) string {
	if !isIDLike(q) || strings.ContainsAny(q, "*/:") {
		return ""
	}
	names := strings.Fields(lexicon.Names(q))
	if len(names) == 0 || len(names) > 2 {
		return ""
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = `name : ` + quoteTerm(n)
	}
	return strings.Join(parts, " AND ")
}

// maxNameWords bounds the words a query may spell a name with: a longer query is a
// sentence, not a name.
const maxNameWords = 5

// wordsNameQuery is the FTS5 query of titles holding every word of a query of two to
// maxNameWords plain words, with the words' terms (stems) for nameExtra; "" when the query
// is not such.
func wordsNameQuery(terms []term) (string, []string) {
	if len(terms) < 2 || len(terms) > maxNameWords {
		return "", nil
	}
	var words, parts []string
	for _, t := range terms {
		if t.prefix || strings.Contains(t.text, "_") || !lexicon.IsASCII(t.text) {
			return "", nil
		}
		ts := lexicon.Analyze(strings.ToLower(t.text))
		if len(ts) != 1 {
			return "", nil // an identifier itself, not a word of one
		}
		words = append(words, ts[0].Text)
		parts = append(parts, "title : "+quoteTerm(ts[0].Text))
	}
	return strings.Join(parts, " AND "), words
}

// nameExtra is how many words a node's own name has besides the query's words, or -1 when
// it lacks one of them.
func nameExtra(n NodeSummary, words []string) int {
	var have []string
	for _, w := range lexicon.Words(NameOf(n.ID, n.Kind)) {
		ts := lexicon.Analyze(w)
		for _, t := range ts {
			if !t.Whole { // the parts (a word of one part is its stem alone)
				have = append(have, t.Text)
			}
		}
	}
	extra := len(have)
	for _, w := range words {
		if !slices.Contains(have, w) {
			return -1
		}
		extra--
	}
	return max(extra, 0)
}

func isIDLike(q string) bool {
	return !strings.ContainsAny(q, " \t\n")
}

// snippetRadius is how many bytes of context a snippet shows on each side of its first match.
const snippetRadius = 80

// snippet cuts a short excerpt of body around the first query term, marking matched terms
// with ** (Markdown bold). With no match it returns the body's opening words.
func snippet(body string, terms []term) string {
	lower := strings.ToLower(body)
	first := -1
	for _, t := range terms {
		if i := indexWord(lower, t); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	start, end := 0, min(len(body), 2*snippetRadius)
	if first >= 0 {
		start = max(0, first-snippetRadius)
		end = min(len(body), first+snippetRadius)
	}
	start, end = runeStart(body, start), runeStart(body, end)
	excerpt := strings.Join(strings.Fields(body[start:end]), " ")
	lowerEx := strings.ToLower(excerpt)
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	for i := 0; i < len(excerpt); {
		matched := 0
		for _, t := range terms {
			if at := indexWord(lowerEx[i:], t); at == 0 {
				n := len(t.text)
				if t.prefix {
					for n < len(lowerEx)-i && isWordByte(lowerEx[i+n]) {
						n++
					}
				}
				matched = max(matched, n)
			}
		}
		if matched > 0 {
			b.WriteString("**" + excerpt[i:i+matched] + "**")
			i += matched
			continue
		}
		b.WriteByte(excerpt[i])
		i++
	}
	if end < len(body) {
		b.WriteString("…")
	}
	return b.String()
}

// indexWord finds t in s at a word start (and, unless t is a prefix, a word end).
func indexWord(s string, t term) int {
	for off := 0; off <= len(s); {
		i := strings.Index(s[off:], t.text)
		if i < 0 {
			return -1
		}
		i += off
		startOK := i == 0 || !isWordByte(s[i-1])
		endOK := t.prefix || i+len(t.text) == len(s) || !isWordByte(s[i+len(t.text)])
		if startOK && endOK {
			return i
		}
		off = i + 1
	}
	return -1
}

func isWordByte(c byte) bool {
	return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// ImpactOptions bound an impact query.
type ImpactOptions struct {
	Depth  int // levels to follow; 0 means 3, at most MaxImpactDepth
	Limit  int // nodes to return; capped by max_results
	Budget int // candidate edges to examine; 0 means DefaultImpactBudget
}

// ImpactHit is a node affected by a change, with the relation that reached it.
type ImpactHit struct {
	NodeSummary
	Depth int `json:"depth"`
	// Via is the relation through which this node was reached, from the node one level closer
	// to the focus (From).
	Via       string `json:"via"`
	From      string `json:"from"`
	Direction string `json:"direction"` // "incoming": this node points at From; "outgoing": From points at it
	// Review is the review state of the Via relation: "suspect", "confirmed", or empty.
	Review string `json:"review,omitempty"`
}

// ImpactResult is the bounded answer of an impact query.
type ImpactResult struct {
	NodeID        string      `json:"node_id"`
	Nodes         []ImpactHit `json:"nodes"`
	Depth         int         `json:"depth"`
	Limit         int         `json:"limit"`
	Budget        int         `json:"budget"`
	EdgesExamined int         `json:"edges_examined"`
	Truncated     bool        `json:"truncated"`
	// TruncatedBy names the bound that stopped the traversal: "result_limit" or "work_budget";
	// TruncatedByAll lists every bound that cut, when both did.
	TruncatedBy    string   `json:"truncated_by,omitempty"`
	TruncatedByAll []string `json:"truncated_by_all,omitempty"`
}

// impactFollowsForward reports whether a relation is phrased from the depended-upon side
// (A implemented_by B: changing A affects B). For those impact follows the edge forwards; for
// every other relation it follows edges backwards (A depends_on B: changing B affects A).
func impactFollowsForward(relation string) bool {
	switch relation {
	case "implemented_by", "tested_by", "defines":
		return true
	}
	return false
}

// Impact finds the nodes a change to id may affect, breadth first up to opts.Depth levels.
// Each level is one Expand per direction, over only the relations that carry impact that way,
// so every examined edge is a candidate and counts against the work budget, and the whole
// edge table is never read. Results are ordered by depth, then ID.
func (s *Snapshot) Impact(ctx context.Context, id string, opts ImpactOptions) (*ImpactResult, error) {
	depth, budget := opts.bounds()
	limit := s.capLimit(opts.Limit, DefaultListLimit)
	out := &ImpactResult{NodeID: id, Nodes: []ImpactHit{}, Depth: depth, Limit: limit, Budget: budget}
	roots, err := s.Resolve(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	vocabulary, err := s.RelationNames(ctx)
	if err != nil {
		return nil, err
	}
	directions := impactDirections(vocabulary)
	visited := map[int64]bool{roots[0].Key: true}
	level := roots
	for d := 1; d <= depth && len(level) > 0; d++ {
		var found []Hop
		for _, dir := range directions {
			exp, err := s.Expand(ctx, level, dir.outgoing, dir.rels, budget-out.EdgesExamined)
			if err != nil {
				return nil, fmt.Errorf("impact of %s: %w", id, err)
			}
			out.EdgesExamined += exp.Examined
			for _, h := range exp.Hops {
				if !visited[h.To.Key] {
					visited[h.To.Key] = true
					found = append(found, h)
				}
			}
			if exp.Exhausted {
				// The budget is spent: the rest of this level is not examined at all.
				out.Truncated, out.TruncatedBy = true, "work_budget"
				out.TruncatedByAll = append(out.TruncatedByAll, "work_budget")
				break
			}
		}
		slices.SortFunc(found, func(a, b Hop) int { return strings.Compare(a.To.ID, b.To.ID) })
		if room := limit - len(out.Nodes); len(found) > room {
			found = found[:room]
			out.Truncated = true
			if out.TruncatedBy == "" {
				out.TruncatedBy = "result_limit"
			}
			out.TruncatedByAll = append(out.TruncatedByAll, "result_limit")
		}
		refs := make([]NodeRef, len(found))
		for i, h := range found {
			refs[i] = h.To
		}
		recs, err := s.Hydrate(ctx, refs, func(int) int { return 0 })
		if err != nil {
			return nil, fmt.Errorf("impact of %s: %w", id, err)
		}
		for i, h := range found {
			dir := "incoming"
			if h.Outgoing {
				dir = "outgoing"
			}
			out.Nodes = append(out.Nodes, ImpactHit{NodeSummary: summaryOf(recs[i].Record), Depth: d, Via: h.Relation, From: h.From.ID, Direction: dir, Review: h.Review})
		}
		if out.Truncated {
			return out, nil
		}
		level = refs
	}
	return out, nil
}

// bounds are the impact's depth and work budget: the defaults for unset ones, the depth
// within MaxImpactDepth.
func (o ImpactOptions) bounds() (depth, budget int) {
	depth, budget = o.Depth, o.Budget
	if depth <= 0 {
		depth = 3
	}
	if budget <= 0 {
		budget = DefaultImpactBudget
	}
	return min(depth, MaxImpactDepth), budget
}

// impactDirection is the relations an impact follows one way.
type impactDirection struct {
	outgoing bool
	rels     []string
}

// impactDirections splits the vocabulary by the way impact flows along each relation:
// against it (a change to a target reaches its sources) or with it.
func impactDirections(vocabulary []string) []impactDirection {
	var forward, backward []string
	for _, rel := range vocabulary {
		if impactFollowsForward(rel) {
			forward = append(forward, rel)
		} else {
			backward = append(backward, rel)
		}
	}
	return []impactDirection{{false, backward}, {true, forward}}
}

// summaryOf is a record as collections list it.
func summaryOf(r graph.Record) NodeSummary {
	tags := r.Tags
	if tags == nil {
		tags = []string{}
	}
	return NodeSummary{ID: r.ID, Title: r.Title, Kind: r.Kind, Family: r.Family, Status: r.Status, Authority: r.Authority,
		Tags: tags, SourcePath: r.SourcePath, Anchor: r.Anchor}
}

// NameOf is a node's own name, what the search index's name column holds: a declaration's
// name (a method's with its receiver type), a Go file's base name, a package's last path
// element, a document's last ID segment.
func NameOf(id, kind string) string {
	if _, name, ok := code.DeclName(id); ok && kind != golang.KindPackage {
		return name
	}
	last := id[strings.LastIndexAny(id, "/:")+1:]
	if kind == golang.KindFile && graph.IsCode(id) {
		return strings.TrimSuffix(last, path.Ext(last)) // a file's base name: store.go is store
	}
	return last // a package's last element, a document's last segment
}
