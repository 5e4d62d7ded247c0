package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/safefile"
)

// Store reads a history index. It is not safe for concurrent use.
type Store struct {
	conn    *sqlite.Conn
	head    string
	commits int
	limited string
}

// Open opens the history index in dir for reading, or returns nil and no error when there
// is none (no history, or not indexed yet).
func Open(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadOnly)
	if err != nil {
		return nil, fmt.Errorf("open the history index: %w", err)
	}
	conn.SetInterrupt(ctx.Done())
	s := &Store{conn: conn}
	if err := sqlitex.ExecuteTransient(conn, "PRAGMA busy_timeout = 5000", nil); err != nil {
		conn.Close()
		return nil, err
	}
	meta, err := readMeta(conn)
	if err == nil {
		s.commits, err = count(conn)
	}
	if err != nil || meta["schema"] != schemaVersion {
		conn.Close()
		return nil, nil // another version, or half written: as if there were none until rebuilt
	}
	s.head, s.limited = meta["head"], meta["limited"]
	return s, nil
}

// Limited says how the history indexed falls short of its window (Result.Limited), or is
// empty.
func (s *Store) Limited() string { return s.limited }

// Close closes the store.
func (s *Store) Close() error { return s.conn.Close() }

// Head is the commit the index ends at.
func (s *Store) Head() string { return s.head }

// Commits is the number of commits indexed.
func (s *Store) Commits() int { return s.commits }

// Commit is one indexed commit.
type Commit struct {
	Seq     int64
	Hash    string
	Time    time.Time
	Subject string
	Files   int // files it touched
	// Score is a commit's relevance to the terms it was found by (Relevant), higher better.
	Score float64
}

// Touch is a span of lines of a file, at the indexed head, that a commit changed; First 0
// means the file as a whole.
type Touch struct {
	Path        string
	First, Last int
}

// Relevant ranks the commits whose messages hold any of terms (analyzed as base/lexicon
// analyzes text) by BM25, the subject weighed twice the body; at most limit, best first.
func (s *Store) Relevant(ctx context.Context, terms []string, limit int) ([]Commit, error) {
	var quoted []string
	for _, t := range terms {
		if t != "" {
			quoted = append(quoted, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		}
	}
	if len(quoted) == 0 || limit <= 0 {
		return nil, nil
	}
	defer s.interruptOn(ctx)()
	var out []Commit
	err := sqlitex.Execute(s.conn, `SELECT c.seq, c.hash, c.time, c.subject, c.files, -bm25(messages, 2.0, 1.0) AS score
		FROM messages JOIN commits c ON c.seq = messages.rowid
		WHERE messages MATCH ? ORDER BY score DESC, c.seq DESC LIMIT ?`, &sqlitex.ExecOptions{
		Args:       []any{strings.Join(quoted, " OR "), limit},
		ResultFunc: func(st *sqlite.Stmt) error { out = append(out, commitOf(st, true)); return nil },
	})
	if err != nil {
		return nil, fmt.Errorf("rank commit messages: %w", err)
	}
	return out, nil
}

// commitOf reads a commit from columns seq, hash, time, subject, files and, when scored, its
// score.
func commitOf(st *sqlite.Stmt, scored bool) Commit {
	c := Commit{Seq: st.ColumnInt64(0), Hash: st.ColumnText(1), Time: time.Unix(st.ColumnInt64(2), 0).UTC(),
		Subject: st.ColumnText(3), Files: st.ColumnInt(4)}
	if scored {
		c.Score = st.ColumnFloat(5)
	}
	return c
}

// inList is an SQL list of one parameter per value, "(?, ?, ...)", and the values to bind.
func inList[T any](values []T) (string, []any) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return "(?" + strings.Repeat(", ?", len(values)-1) + ")", args
}

// interruptOn makes ctx's cancellation interrupt the store's queries until the returned
// function restores what was there.
func (s *Store) interruptOn(ctx context.Context) func() {
	prev := s.conn.SetInterrupt(ctx.Done())
	return func() { s.conn.SetInterrupt(prev) }
}

// Touched returns what each of the commits at seqs changed, in path and line order: one
// query for many commits.
func (s *Store) Touched(ctx context.Context, seqs []int64) (map[int64][]Touch, error) {
	out := map[int64][]Touch{}
	if len(seqs) == 0 {
		return out, nil
	}
	defer s.interruptOn(ctx)()
	in, args := inList(seqs)
	err := sqlitex.Execute(s.conn, `SELECT seq, path, first, last FROM touches WHERE seq IN `+in+` ORDER BY seq, path, first`, &sqlitex.ExecOptions{
		Args: args,
		ResultFunc: func(st *sqlite.Stmt) error {
			q := st.ColumnInt64(0)
			out[q] = append(out[q], Touch{Path: st.ColumnText(1), First: st.ColumnInt(2), Last: st.ColumnInt(3)})
			return nil
		}})
	if err != nil {
		return nil, fmt.Errorf("read what %d commits touched: %w", len(seqs), err)
	}
	return out, nil
}

// maxGitLink bounds a .git file, which names the repository's directory in one line.
const maxGitLink = 4096

// Probe is a cheap signature of the git state of the repository holding root: the files git
// rewrites when HEAD moves (HEAD, its reflog, the branch it names, packed refs, the shallow
// list), by size and time, read without running git. "" means no repository was found.
func Probe(root string) string {
	gitDir := ""
	for d := root; ; {
		p := filepath.Join(d, ".git")
		if st, err := os.Stat(p); err == nil {
			gitDir = p
			if !st.IsDir() {
				// A worktree or submodule: .git names the real directory, in one short line;
				// never a FIFO or device put there to block the read.
				data, err := safefile.ReadRegular(p, maxGitLink)
				if err != nil {
					return "unreadable " + p
				}
				target := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
				if !filepath.IsAbs(target) {
					target = filepath.Join(d, target)
				}
				gitDir = target
			}
			break
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
	var b strings.Builder
	stamp := func(p string) {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d;", filepath.Base(p), st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s -;", filepath.Base(p))
		}
	}
	b.WriteString(gitDir + ";")
	head := filepath.Join(gitDir, "HEAD")
	stamp(head)
	if data, err := os.ReadFile(head); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: "); ok {
			stamp(filepath.Join(gitDir, filepath.FromSlash(ref)))
			common := gitDir
			if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				common = filepath.Join(gitDir, strings.TrimSpace(string(c)))
			}
			stamp(filepath.Join(common, filepath.FromSlash(ref)))
			stamp(filepath.Join(common, "packed-refs"))
		}
	}
	stamp(filepath.Join(gitDir, "logs", "HEAD"))
	stamp(filepath.Join(gitDir, "shallow"))
	return b.String()
}

// Change is one commit's change to a file: the commit, and the lines it changed at the
// indexed head (First 0: the file as a whole).
type Change struct {
	Commit
	First, Last int
}

// Changes returns, for each of paths, every indexed change to it, newest first: one query for
// many files.
func (s *Store) Changes(ctx context.Context, paths []string) (map[string][]Change, error) {
	out := map[string][]Change{}
	if len(paths) == 0 {
		return out, nil
	}
	defer s.interruptOn(ctx)()
	in, args := inList(paths)
	q := `SELECT c.seq, c.hash, c.time, c.subject, c.files, t.path, t.first, t.last FROM touches t JOIN commits c ON c.seq = t.seq
		WHERE t.path IN ` + in + ` ORDER BY t.path, c.seq DESC, t.first`
	err := sqlitex.Execute(s.conn, q, &sqlitex.ExecOptions{
		Args: args,
		ResultFunc: func(st *sqlite.Stmt) error {
			p := st.ColumnText(5)
			out[p] = append(out[p], Change{Commit: commitOf(st, false), First: st.ColumnInt(6), Last: st.ColumnInt(7)})
			return nil
		}})
	if err != nil {
		return nil, fmt.Errorf("read the changes of %d files: %w", len(paths), err)
	}
	return out, nil
}
