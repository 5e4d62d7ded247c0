package main

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// ftsCost is what one term costs the full-text index, in milliseconds (median of 5).
type ftsCost struct {
	Term                    string
	Nodes                   int64
	ExactCount, CappedCount float64 // fts5vocab row count; count of the first 5,001 matches
	RankOne                 float64 // BM25 top 6 for the term alone
}

// measureFTS times, on a synced project's index, why the task-context focus counts terms
// before ranking: BM25 must score every node holding a term, while counting the first
// matches stops early. It reads the index read-only and writes nothing.
func measureFTS(proj string) (string, error) {
	d, _, err := project.Load(proj)
	if err != nil || d == nil {
		return "", fmt.Errorf("fts costs: load %s: %v", proj, err)
	}
	path, err := index.BaseSegment(d, "")
	if err != nil {
		return "", fmt.Errorf("fts costs: %w", err)
	}
	uri := (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}).String()
	conn, err := sqlite.OpenConn(uri, sqlite.OpenReadOnly|sqlite.OpenURI)
	if err != nil {
		return "", fmt.Errorf("fts costs: open %s: %w", path, err)
	}
	defer conn.Close()
	if err := sqlitex.ExecuteTransient(conn, `CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, search, 'row')`, nil); err != nil {
		return "", fmt.Errorf("fts costs: %w", err)
	}
	// The three most common terms, and the terms nearest 13,000 and 2,000 nodes.
	var picked []string
	pick := func(q string, args ...any) error {
		return sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(s *sqlite.Stmt) error {
			picked = append(picked, s.ColumnText(0))
			return nil
		}})
	}
	if err := pick(`SELECT term FROM temp.vocab ORDER BY doc DESC, term LIMIT 3`); err != nil {
		return "", err
	}
	for _, near := range []int{13000, 2000} {
		if err := pick(`SELECT term FROM temp.vocab ORDER BY abs(doc - ?), term LIMIT 1`, near); err != nil {
			return "", err
		}
	}
	timed := func(q string, args ...any) (float64, int64, error) {
		var ds []time.Duration
		var n int64
		for rep := 0; rep < 5; rep++ {
			t0 := time.Now()
			err := sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(s *sqlite.Stmt) error { n = s.ColumnInt64(0); return nil }})
			if err != nil {
				return 0, 0, err
			}
			ds = append(ds, time.Since(t0))
		}
		return median(ds), n, nil
	}
	var costs []ftsCost
	for _, t := range picked {
		c := ftsCost{Term: t}
		var err error
		quoted := `"` + t + `"`
		if c.ExactCount, c.Nodes, err = timed(`SELECT doc FROM temp.vocab WHERE term = ?`, t); err != nil {
			return "", err
		}
		if c.CappedCount, _, err = timed(`SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH ? LIMIT 5001)`, quoted); err != nil {
			return "", err
		}
		if c.RankOne, _, err = timed(`SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 6)`, quoted); err != nil {
			return "", err
		}
		costs = append(costs, c)
	}
	orQuery := `"` + picked[0] + `" OR "` + picked[1] + `"`
	orMs, _, err := timed(`SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 6)`, orQuery)
	if err != nil {
		return "", err
	}
	slices.SortFunc(costs, func(a, b ftsCost) int { return int(b.Nodes - a.Nodes) })
	var b strings.Builder
	fmt.Fprintf(&b, "\nFull-text costs on %s (medians of 5, ms): counting a term's nodes exactly (fts5vocab), counting its first 5,001 matches, and BM25's top 6 for it alone:\n\n", filepath.Base(proj))
	b.WriteString("| term | nodes | exact count | first 5,001 | BM25 top 6 |\n|---|---|---|---|---|\n")
	for _, c := range costs {
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.1f |\n", c.Term, c.Nodes, c.ExactCount, c.CappedCount, c.RankOne)
	}
	fmt.Fprintf(&b, "\nBM25 top 6 for the two most common terms OR'ed (%s, %s): %.1f ms.\n", costs[0].Term, costs[1].Term, orMs)
	return b.String(), nil
}
