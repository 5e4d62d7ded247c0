package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/lexicon"
)

// Window bounds the history indexed: the newest MaxCommits first-parent commits, none older
// than MaxAge before the newest.
type Window struct {
	MaxCommits int
	MaxAge     time.Duration
}

// DefaultWindow is the window of a project that sets none.
var DefaultWindow = Window{MaxCommits: 5000, MaxAge: 2 * 365 * 24 * time.Hour}

// States of an update.
const (
	StateOff         = "off"         // no history to index: Result.Reason says why
	StateCurrent     = "current"     // the index already ends at HEAD
	StateIncremental = "incremental" // the commits after the indexed head were added
	StateRebuilt     = "rebuilt"     // indexed afresh
)

// Result is what Update did.
type Result struct {
	State, Reason string
	Head          string
	Commits       int // in the window now
	Added         int // commits read by this update
	// Limited says how the history indexed falls short of the window, when it does: a
	// shallow clone's history ends at its depth; where git cannot read old file contents
	// (a partial or pruned clone) commits carry the paths they touched but not the lines.
	Limited string
}

// TurnOff is how a project stops DocForge reading its history; every reason that history is
// missing or partial ends with it.
const TurnOff = "[history] enabled = false in docforge.toml stops DocForge reading it"

// FileName is the history index's file in its directory.
const FileName = "history.db"

// schemaVersion changes whenever the tables or what they hold change; an index of another
// version is rebuilt.
const schemaVersion = "2"

const schema = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commits (
  seq     INTEGER PRIMARY KEY, -- oldest first
  hash    TEXT NOT NULL UNIQUE,
  time    INTEGER NOT NULL,    -- committer time, Unix seconds
  subject TEXT NOT NULL,
  files   INTEGER NOT NULL     -- files touched
);
-- The lines each commit changed in each file, carried to the lines they are at the indexed
-- head; first = 0 marks a file touched as a whole (binary, deleted, or too many changes).
CREATE TABLE touches (
  seq   INTEGER NOT NULL,
  path  TEXT NOT NULL,
  first INTEGER NOT NULL,
  last  INTEGER NOT NULL
);
CREATE INDEX touches_path ON touches (path, seq);
CREATE INDEX touches_seq ON touches (seq);
-- Messages analyzed as the graph's text is (base/lexicon), so a task's terms match them.
CREATE VIRTUAL TABLE messages USING fts5 (
  subject, body, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
`

// maxSpans bounds the spans kept of one file in one commit; a file changed in more places
// counts as touched as a whole.
const maxSpans = 32

// Update brings the history index in dir up to date with the git repository holding the
// project at root: the commits after the indexed head when the head moved forward along its
// first parents, else the whole window afresh. History degrades rather than fails: where git
// cannot read the lines commits changed, the paths they touched are indexed; where it cannot
// read commits at all, or there are none (outside git, before the first commit), the index is
// removed. The result says which and why; only the context's end and the index's own files
// are errors.
func Update(ctx context.Context, root, dir string, w Window) (Result, error) {
	path := filepath.Join(dir, FileName)
	head, headTime, shallow, why, err := headOf(ctx, root)
	if err != nil {
		return Result{}, err
	}
	if why != "" {
		return none(path, why)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Result{}, fmt.Errorf("history index directory: %w", err)
	}
	r := reading{root: root, path: path, head: head, cutoff: headTime - int64(w.MaxAge/time.Second), w: w, shallow: shallow}
	res, err := r.update(ctx)
	var unreadable *unreadableError
	if errors.As(err, &unreadable) && ctx.Err() == nil {
		// The lines are out of reach; the paths need only commits and trees.
		r.mode, r.why = readPaths, unreadable.Error()
		res, err = r.rebuild(ctx)
	}
	if errors.As(err, &unreadable) && ctx.Err() == nil {
		return none(path, "git cannot read the repository's history ("+unreadable.Error()+")")
	}
	return res, err
}

// none removes the history index, for the reason why.
func none(path, why string) (Result, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Result{}, fmt.Errorf("remove the history index: %w", err)
	}
	return Result{State: StateOff, Reason: why + "; " + TurnOff}, nil
}

// headOf is HEAD's commit and time and whether the clone is shallow, or why the project has
// no history to index.
func headOf(ctx context.Context, root string) (head string, when int64, shallow bool, why string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", 0, false, "git is not installed", nil
	}
	out, err := git(ctx, root, "rev-parse", "--is-shallow-repository", "--verify", "-q", "HEAD")
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, false, "", ctx.Err()
		}
		if strings.Contains(err.Error(), "dubious ownership") {
			// No user configuration is read (see command), so a safe.directory there does not
			// apply: git's own guard against another user's repository stands.
			return "", 0, false, "git refuses the repository: another user owns it; run DocForge as its owner", nil
		}
		return "", 0, false, "the project is not in a git repository with a commit", nil
	}
	lines := strings.Fields(out)
	if len(lines) != 2 {
		return "", 0, false, "the project is not in a git repository with a commit", nil
	}
	t, err := git(ctx, root, "log", "-1", "--no-show-signature", "--format=%ct", lines[1])
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, false, "", ctx.Err()
		}
		return "", 0, false, "git cannot read the head commit (" + err.Error() + ")", nil
	}
	if when, err = strconv.ParseInt(strings.TrimSpace(t), 10, 64); err != nil {
		return "", 0, false, "git gave the head commit no time (" + strings.TrimSpace(t) + ")", nil
	}
	return lines[1], when, lines[0] == "true", "", nil
}

// reading is one Update's read of a repository into the index at path.
type reading struct {
	root, path, head string
	cutoff           int64
	w                Window
	shallow          bool
	mode             readMode
	why              string // why mode reads paths only
}

// update adds to the index when it can, else rebuilds it.
func (r *reading) update(ctx context.Context) (Result, error) {
	r.mode = readLines
	if res, ok, err := r.advance(ctx); err != nil || ok {
		return res, err
	}
	return r.rebuild(ctx)
}

// limited is how the index falls short of the window, from what it was read with.
func limited(mode readMode, why string, shallow bool) string {
	var says []string
	if shallow {
		says = append(says, "the repository is a shallow clone: its history ends at the clone's depth")
	}
	if mode == readPaths {
		says = append(says, "git cannot read the old contents of files ("+why+"): commits carry the paths they touched, not the lines")
	}
	if len(says) == 0 {
		return ""
	}
	return strings.Join(says, "; ") + "; " + TurnOff
}

// skipRoot empties a parentless commit's changes in a shallow clone: git shows the commit at
// the clone's depth as adding every file, which it did not.
func (r *reading) skipRoot(c *commit) {
	if r.shallow && c.parent == "" {
		c.files = nil
	}
}

// windowKey identifies a window in the index's metadata: another window is a rebuild.
func windowKey(w Window) string {
	return fmt.Sprintf("%d/%d", w.MaxCommits, int64(w.MaxAge/time.Second))
}

// advance adds the commits after the indexed head when HEAD descends from it along first
// parents; ok is false when the index must be rebuilt instead.
// It reads as the index was built: an index of paths stays one until it is rebuilt (another
// window, a rewritten head), so that a clone missing old contents is not read twice a call.
func (r *reading) advance(ctx context.Context) (Result, bool, error) {
	if _, err := os.Stat(r.path); err != nil {
		return Result{}, false, nil
	}
	conn, err := sqlite.OpenConn(r.path, sqlite.OpenReadWrite)
	if err != nil {
		return Result{}, false, nil // unreadable: rebuilt
	}
	defer conn.Close()
	conn.SetInterrupt(ctx.Done())
	if err := sqlitex.ExecuteTransient(conn, "PRAGMA busy_timeout = 5000", nil); err != nil {
		return Result{}, false, err
	}
	meta, err := readMeta(conn)
	if err != nil || meta["schema"] != schemaVersion || meta["window"] != windowKey(r.w) || meta["head"] == "" {
		return Result{}, false, nil
	}
	if meta["mode"] == string(readPaths) {
		r.mode, r.why = readPaths, meta["why"]
	}
	old := meta["head"]
	if old == r.head {
		n, _ := count(conn)
		return Result{State: StateCurrent, Head: r.head, Commits: n, Limited: limited(r.mode, r.why, r.shallow)}, true, nil
	}
	var fresh []*commit
	err = readLog(ctx, r.root, r.mode, []string{"-n", strconv.Itoa(r.w.MaxCommits), old + ".." + r.head}, func(c *commit) error {
		r.skipRoot(c)
		fresh = append(fresh, c)
		return nil
	})
	if err != nil {
		return Result{}, false, nil // the old head is gone (a rewrite): rebuilt
	}
	if len(fresh) == 0 || fresh[len(fresh)-1].parent != old {
		return Result{}, false, nil // HEAD moved back, or off the first-parent line
	}
	lim := limited(r.mode, r.why, r.shallow)
	if err := addCommits(conn, fresh, map[string]string{"head": r.head, "limited": lim}, r.cutoff, r.w); err != nil {
		return Result{}, false, err
	}
	n, err := count(conn)
	return Result{State: StateIncremental, Head: r.head, Commits: n, Added: len(fresh), Limited: lim}, true, err
}

// addCommits adds commits (newest first) after the indexed ones in one transaction: each
// carries the spans indexed before it to the lines they are at after it, then adds its own.
// meta is what the index's metadata says afterwards.
func addCommits(conn *sqlite.Conn, fresh []*commit, meta map[string]string, cutoff int64, w Window) (err error) {
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		return err
	}
	defer end(&err)
	next, err := maxSeq(conn)
	if err != nil {
		return err
	}
	for i := len(fresh) - 1; i >= 0; i-- {
		c := fresh[i]
		next++
		for _, f := range c.files {
			if f.from != "" && f.from != f.path {
				if err := sqlitex.Execute(conn, `UPDATE touches SET path = ? WHERE path = ?`,
					&sqlitex.ExecOptions{Args: []any{f.path, f.from}}); err != nil {
					return fmt.Errorf("follow %s to %s: %w", f.from, f.path, err)
				}
			}
			if err := remap(conn, f); err != nil {
				return err
			}
		}
		if err := insertCommit(conn, next, c, nil); err != nil {
			return err
		}
	}
	if err := trim(conn, next-int64(w.MaxCommits), cutoff); err != nil {
		return err
	}
	return setMeta(conn, meta)
}

// rebuild indexes the window ending at head into a new file and puts it in place of the old.
func (r *reading) rebuild(ctx context.Context) (Result, error) {
	// A temporary file of its own: two processes rebuilding at once each publish a whole index.
	f, err := os.CreateTemp(filepath.Dir(r.path), FileName+".*.new")
	if err != nil {
		return Result{}, fmt.Errorf("create the history index: %w", err)
	}
	tmp := f.Name()
	f.Close()
	conn, err := sqlite.OpenConn(tmp, sqlite.OpenReadWrite|sqlite.OpenCreate)
	if err != nil {
		return Result{}, fmt.Errorf("create the history index: %w", err)
	}
	conn.SetInterrupt(ctx.Done())
	ok := false
	defer func() {
		if !ok {
			conn.Close()
			os.Remove(tmp)
		}
	}()
	for _, p := range []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF"} {
		if err := sqlitex.ExecuteTransient(conn, p, nil); err != nil {
			return Result{}, err
		}
	}
	if err := sqlitex.ExecuteScript(conn, schema, nil); err != nil {
		return Result{}, fmt.Errorf("history schema: %w", err)
	}
	// Commits come newest first; each file's diffs seen so far (newer ones) carry an older
	// commit's spans to the head's lines. Sequence numbers are given oldest first afterwards.
	// A file renamed since a commit is stored under its name at the head: renamed maps each
	// earlier name to it.
	var commits []*commit
	later := map[string][][]hunk{}
	renamed := map[string]string{}
	var spans [][][]span
	err = readLog(ctx, r.root, r.mode, []string{"-n", strconv.Itoa(r.w.MaxCommits), r.head}, func(c *commit) error {
		if c.time < r.cutoff {
			return errStop
		}
		r.skipRoot(c)
		own := make([][]span, len(c.files))
		for i := range c.files {
			f := &c.files[i]
			if now, ok := renamed[f.path]; ok {
				f.path = now
			}
			own[i] = carried(*f, later[f.path])
			later[f.path] = append(later[f.path], f.hunks)
			if f.deleted {
				later[f.path] = append(later[f.path], nil)
			}
			if f.from != "" && f.from != f.path {
				renamed[f.from] = f.path
			}
		}
		commits = append(commits, c)
		spans = append(spans, own)
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	if err := func() (err error) {
		end, err := sqlitex.ImmediateTransaction(conn)
		if err != nil {
			return err
		}
		defer end(&err)
		for i := len(commits) - 1; i >= 0; i-- {
			if err := insertCommit(conn, int64(len(commits)-i), commits[i], spans[i]); err != nil {
				return err
			}
		}
		return setMeta(conn, map[string]string{"schema": schemaVersion, "window": windowKey(r.w), "head": r.head,
			"mode": string(r.mode), "why": r.why, "limited": limited(r.mode, r.why, r.shallow)})
	}(); err != nil {
		return Result{}, err
	}
	if err := conn.Close(); err != nil {
		return Result{}, err
	}
	ok = true
	if err := os.Rename(tmp, r.path); err != nil {
		os.Remove(tmp)
		return Result{}, fmt.Errorf("publish the history index: %w", err)
	}
	return Result{State: StateRebuilt, Head: r.head, Commits: len(commits), Added: len(commits), Limited: limited(r.mode, r.why, r.shallow)}, nil
}

// carried are the spans a file's diff changed, carried through the diffs of the later commits
// that touched it (newest first); a deleted file, a binary one and one changed in too many
// places are touched as a whole.
func carried(f fileDiff, later [][]hunk) []span {
	own := changed(f.hunks)
	if f.deleted || len(own) == 0 || len(own) > maxSpans {
		return []span{{0, 0}}
	}
	for i := len(later) - 1; i >= 0; i-- {
		if later[i] == nil {
			return []span{{0, 0}} // deleted since: no line of it is left
		}
		for j, s := range own {
			own[j] = carry(s, later[i:i+1])
		}
	}
	return own
}

// remap carries the spans indexed for a file through one newer diff of it.
func remap(conn *sqlite.Conn, f fileDiff) error {
	type row struct {
		id          int64
		first, last int
	}
	var rows []row
	err := sqlitex.Execute(conn, `SELECT rowid, first, last FROM touches WHERE path = ? AND first > 0`, &sqlitex.ExecOptions{
		Args: []any{f.path},
		ResultFunc: func(s *sqlite.Stmt) error {
			rows = append(rows, row{s.ColumnInt64(0), s.ColumnInt(1), s.ColumnInt(2)})
			return nil
		}})
	if err != nil {
		return fmt.Errorf("read spans of %s: %w", f.path, err)
	}
	for _, r := range rows {
		s := span{0, 0}
		if !f.deleted {
			s = carry(span{r.first, r.last}, [][]hunk{f.hunks})
		}
		if err := sqlitex.Execute(conn, `UPDATE touches SET first = ?, last = ? WHERE rowid = ?`,
			&sqlitex.ExecOptions{Args: []any{s.first, s.last, r.id}}); err != nil {
			return fmt.Errorf("carry spans of %s: %w", f.path, err)
		}
	}
	return nil
}

// insertCommit stores one commit at seq: its message, and its files' spans (own[i] for
// files[i]; nil computes them, for a commit newer than every indexed one).
func insertCommit(conn *sqlite.Conn, seq int64, c *commit, own [][]span) error {
	if err := sqlitex.Execute(conn, `INSERT INTO commits (seq, hash, time, subject, files) VALUES (?, ?, ?, ?, ?)`,
		&sqlitex.ExecOptions{Args: []any{seq, c.hash, c.time, c.subject, len(c.files)}}); err != nil {
		return fmt.Errorf("store commit %s: %w", c.hash, err)
	}
	if err := sqlitex.Execute(conn, `INSERT INTO messages (rowid, subject, body) VALUES (?, ?, ?)`,
		&sqlitex.ExecOptions{Args: []any{seq, lexicon.Text(c.subject), lexicon.Text(c.body)}}); err != nil {
		return fmt.Errorf("store the message of %s: %w", c.hash, err)
	}
	for i, f := range c.files {
		spans := carried(f, nil)
		if own != nil {
			spans = own[i]
		}
		for _, s := range spans {
			if err := sqlitex.Execute(conn, `INSERT INTO touches (seq, path, first, last) VALUES (?, ?, ?, ?)`,
				&sqlitex.ExecOptions{Args: []any{seq, f.path, s.first, s.last}}); err != nil {
				return fmt.Errorf("store what %s touched: %w", c.hash, err)
			}
		}
	}
	return nil
}

// trim drops the commits at or below seq, and those older than cutoff.
func trim(conn *sqlite.Conn, seq, cutoff int64) error {
	for _, q := range []string{
		`DELETE FROM messages WHERE rowid IN (SELECT seq FROM commits WHERE seq <= ?1 OR time < ?2)`,
		`DELETE FROM touches WHERE seq IN (SELECT seq FROM commits WHERE seq <= ?1 OR time < ?2)`,
		`DELETE FROM commits WHERE seq <= ?1 OR time < ?2`,
	} {
		if err := sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: []any{seq, cutoff}}); err != nil {
			return fmt.Errorf("trim the window: %w", err)
		}
	}
	return nil
}

func readMeta(conn *sqlite.Conn) (map[string]string, error) {
	meta := map[string]string{}
	err := sqlitex.Execute(conn, `SELECT key, value FROM meta`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error {
			meta[s.ColumnText(0)] = s.ColumnText(1)
			return nil
		}})
	return meta, err
}

func setMeta(conn *sqlite.Conn, kv map[string]string) error {
	for k, v := range kv {
		if err := sqlitex.Execute(conn, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`,
			&sqlitex.ExecOptions{Args: []any{k, v}}); err != nil {
			return fmt.Errorf("history metadata: %w", err)
		}
	}
	return nil
}

func count(conn *sqlite.Conn) (int, error) {
	n := 0
	err := sqlitex.Execute(conn, `SELECT count(*) FROM commits`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error { n = s.ColumnInt(0); return nil }})
	return n, err
}

func maxSeq(conn *sqlite.Conn) (int64, error) {
	var n int64
	err := sqlitex.Execute(conn, `SELECT coalesce(max(seq), 0) FROM commits`, &sqlitex.ExecOptions{
		ResultFunc: func(s *sqlite.Stmt) error { n = s.ColumnInt64(0); return nil }})
	return n, err
}
