package history_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index/history"
)

// repo is a git repository made for a test, committing with fixed identities and dates so
// that hashes and times are reproducible.
type repo struct {
	t    *testing.T
	dir  string
	tick int
}

func newRepo(t *testing.T) *repo {
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	return fixture.GitAt(r.t, r.dir, time.Date(2026, 1, 1, 0, r.tick, 0, 0, time.UTC), args...)
}

// commit writes files (an empty text removes the file) and commits them with msg.
func (r *repo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for name, text := range files {
		p := filepath.Join(r.dir, name)
		if text == "" {
			r.git("rm", "-q", name)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			r.t.Fatal(err)
		}
		r.git("add", name)
	}
	r.tick++
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func lines(n int, word string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %d\n", word, i)
	}
	return b.String()
}

func update(t *testing.T, root, dir string, w history.Window) history.Result {
	t.Helper()
	res, err := history.Update(context.Background(), root, dir, w)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	return res
}

func open(t *testing.T, dir string) *history.Store {
	t.Helper()
	s, err := history.Open(context.Background(), dir)
	if err != nil || s == nil {
		t.Fatalf("open: %v %v", s, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dump lists every indexed commit with what it touched, oldest first.
func dump(t *testing.T, dir string) []string {
	t.Helper()
	s := open(t, dir)
	commits := recent(t, s, "", 0, 0)
	seqs := make([]int64, len(commits))
	for i, c := range commits {
		seqs[i] = c.Seq
	}
	touched, err := s.Touched(context.Background(), seqs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range commits {
		out = append(out, fmt.Sprintf("%s %s %v", c.Hash[:7], c.Subject, touched[c.Seq]))
	}
	return out
}

// changed lists the commits, newest first, that changed the file at path (and of it lines
// first to last, when first > 0), as Store.Changes gives them.
func changed(t *testing.T, s *history.Store, path string, first, last int) []history.Commit {
	t.Helper()
	all, err := s.Changes(context.Background(), []string{path})
	if err != nil {
		t.Fatal(err)
	}
	var out []history.Commit
	for _, ch := range all[path] {
		hit := first == 0 || ch.First == 0 || ch.First <= last && ch.Last >= first
		if hit && (len(out) == 0 || out[len(out)-1].Hash != ch.Hash) {
			out = append(out, ch.Commit)
		}
	}
	return out
}

// recent lists every commit, oldest first, through the changes of each path the test uses.
func recent(t *testing.T, s *history.Store, _ string, _, _ int) []history.Commit {
	t.Helper()
	seen := map[string]bool{}
	var all []history.Commit
	for _, p := range []string{"store.go", "notes.txt", "gone.go", "sub/x.go", "sub/store.go"} {
		for _, c := range changed(t, s, p, 0, 0) {
			if !seen[c.Hash] {
				seen[c.Hash] = true
				all = append(all, c)
			}
		}
	}
	slices.SortFunc(all, func(a, b history.Commit) int { return int(a.Seq - b.Seq) })
	return all
}

// Outside git and before the first commit there is no history, and an index left from
// before is removed.
func TestNoHistory(t *testing.T) {
	dir := t.TempDir()
	if res := update(t, t.TempDir(), dir, history.DefaultWindow); res.State != history.StateOff || !strings.Contains(res.Reason, "not in a git repository") {
		t.Errorf("outside git: %+v", res)
	}
	r := newRepo(t)
	if res := update(t, r.dir, dir, history.DefaultWindow); res.State != history.StateOff {
		t.Errorf("no commit yet: %+v", res)
	}
	r.commit("first", map[string]string{"store.go": lines(5, "a")})
	r.commit("second", map[string]string{"store.go": lines(6, "a")})
	if res := update(t, r.dir, dir, history.DefaultWindow); res.State != history.StateRebuilt || res.Commits != 2 {
		t.Fatalf("two commits: %+v", res)
	}
	if err := os.RemoveAll(filepath.Join(r.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	res := update(t, r.dir, dir, history.DefaultWindow)
	if res.State != history.StateOff || !strings.HasSuffix(res.Reason, history.TurnOff) {
		t.Errorf("git removed: %+v", res)
	}
	if s, err := history.Open(context.Background(), dir); s != nil || err != nil {
		t.Errorf("the index of another history is left: %v %v", s, err)
	}
}

// History degrades, never fails: a clone that lacks old file contents (blobless, or a blob
// pruned) is indexed with the paths each commit touched, a shallow one as far as it reaches,
// and a clone git cannot read at all has none; each result says why.
func TestHistoryDegrades(t *testing.T) {
	r := newRepo(t)
	for i := range 5 {
		r.commit(fmt.Sprintf("change %d", i), map[string]string{"store.go": lines(5+i, "a"), fmt.Sprintf("sub/x%d.go", i): "x\n"})
	}
	r.git("config", "uploadpack.allowFilter", "true")
	clone := func(args ...string) string {
		dst := filepath.Join(t.TempDir(), "clone")
		r.git(append(append([]string{"clone", "-q", "--no-local"}, args...), "file://"+r.dir, dst)...)
		return dst
	}
	pruned := clone()
	blob := fixture.GitAt(t, pruned, time.Time{}, "rev-parse", "HEAD~3:store.go")
	fixture.RemoveGitObject(t, pruned, blob)
	noCommit := clone()
	fixture.RemoveGitObject(t, noCommit, fixture.GitAt(t, noCommit, time.Time{}, "rev-parse", "HEAD~1"))
	for _, tc := range []struct {
		name    string
		root    string
		state   string
		commits int
		says    string
		paths   bool // touches are whole files: no lines were read
	}{
		{"blobless clone", clone("--filter=blob:none"), history.StateRebuilt, 5, "old contents of files", true},
		{"one blob pruned", pruned, history.StateRebuilt, 5, "old contents of files", true},
		{"depth 3", clone("--depth", "3"), history.StateRebuilt, 3, "shallow clone", false},
		{"a commit missing", noCommit, history.StateOff, 0, "git cannot read", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res := update(t, tc.root, dir, history.DefaultWindow)
			why := res.Limited + res.Reason
			if res.State != tc.state || res.Commits != tc.commits || !strings.Contains(why, tc.says) || !strings.HasSuffix(why, history.TurnOff) {
				t.Fatalf("got %+v, want %s with %d commits saying %q", res, tc.state, tc.commits, tc.says)
			}
			if res.State == history.StateOff {
				return
			}
			s := open(t, dir)
			if s.Limited() != res.Limited {
				t.Errorf("the index says %q, the update %q", s.Limited(), res.Limited)
			}
			all, err := s.Changes(context.Background(), []string{"store.go", "sub/x0.go", "sub/x4.go"})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.commits
			if tc.name == "depth 3" {
				want-- // the commit at the clone's depth: what it changed is past the depth
			}
			if n := len(all["store.go"]); n != want {
				t.Errorf("store.go changed by %d commits, want %d", n, want)
			}
			for _, ch := range all["store.go"] {
				if whole := ch.First == 0; whole != tc.paths {
					t.Errorf("%s: lines %d-%d, paths only %v", ch.Subject, ch.First, ch.Last, tc.paths)
				}
			}
			if tc.name == "depth 3" && len(all["sub/x0.go"]) > 0 {
				// The commit at the clone's depth did not add every file.
				t.Errorf("the shallow root touches files it did not change: %+v", all["sub/x0.go"])
			}
			if len(all["sub/x4.go"]) != 1 {
				t.Errorf("sub/x4.go: %+v", all["sub/x4.go"])
			}
			// The next update reads as the index was built.
			r2 := update(t, tc.root, dir, history.DefaultWindow)
			if r2.State != history.StateCurrent || r2.Limited != res.Limited {
				t.Errorf("second update: %+v", r2)
			}
		})
	}
}

// A commit's changed lines are carried to the lines they are at now: lines inserted above
// move them down, a rewrite of them keeps the newer commit's, a deleted file keeps none.
func TestSpansFollowTheLines(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	base := lines(10, "base")
	r.commit("add the store", map[string]string{"store.go": base})
	// Lines 4-5 rewritten, then 3 lines inserted at the top: they are 7-8 now.
	rewritten := strings.Replace(base, "base 3\nbase 4\n", "fix 3\nfix 4\n", 1)
	r.commit("fix the flush", map[string]string{"store.go": rewritten})
	r.commit("add a header", map[string]string{"store.go": "h\nh\nh\n" + rewritten, "gone.go": "x\n"})
	r.commit("drop gone", map[string]string{"gone.go": ""})
	update(t, r.dir, dir, history.DefaultWindow)
	s := open(t, dir)
	hits := func(first, last int) []string {
		var out []string
		for _, c := range changed(t, s, "store.go", first, last) {
			out = append(out, c.Subject)
		}
		return out
	}
	for _, c := range []struct {
		first, last int
		want        []string
	}{
		{7, 8, []string{"fix the flush", "add the store"}},
		{1, 3, []string{"add a header"}},
		{10, 13, []string{"add the store"}},
		{0, 0, []string{"add a header", "fix the flush", "add the store"}},
	} {
		if got := hits(c.first, c.last); !slices.Equal(got, c.want) {
			t.Errorf("lines %d-%d: %v, want %v", c.first, c.last, got, c.want)
		}
	}
	if cs := changed(t, s, "gone.go", 1, 1); len(cs) != 2 {
		t.Errorf("a deleted file's commits: %v", cs)
	}
}

// A new commit is added to the index as it stands, and the index equals one built afresh;
// a rewritten history (an amended commit) is indexed afresh.
func TestIncrementalEqualsRebuild(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	r.commit("first", map[string]string{"store.go": lines(20, "a"), "notes.txt": "n\n"})
	r.commit("second", map[string]string{"store.go": strings.Replace(lines(20, "a"), "a 5\n", "b 5\nb 6\n", 1)})
	if res := update(t, r.dir, dir, history.DefaultWindow); res.State != history.StateRebuilt {
		t.Fatalf("first update: %+v", res)
	}
	r.commit("third inserts above", map[string]string{"store.go": "top\n" + strings.Replace(lines(20, "a"), "a 5\n", "b 5\nb 6\n", 1), "sub/x.go": "package sub\n"})
	r.commit("fourth", map[string]string{"notes.txt": "n\nm\n"})
	// A rename keeps the file's history under its new name, in both ways of indexing.
	r.git("mv", "store.go", "sub/store.go")
	r.commit("move the store", map[string]string{"sub/store.go": "moved\n" + "top\n" + strings.Replace(lines(20, "a"), "a 5\n", "b 5\nb 6\n", 1)})
	res := update(t, r.dir, dir, history.DefaultWindow)
	if res.State != history.StateIncremental || res.Added != 3 || res.Commits != 5 {
		t.Fatalf("after three commits: %+v", res)
	}
	s := open(t, dir)
	var subjects []string
	for _, c := range changed(t, s, "sub/store.go", 8, 9) {
		subjects = append(subjects, c.Subject)
	}
	// b 5 and b 6, written by "second", are lines 8-9 after two lines went on top.
	if !slices.Equal(subjects, []string{"second", "first"}) {
		t.Errorf("the moved file's lines 8-9: %v", subjects)
	}
	if again := update(t, r.dir, dir, history.DefaultWindow); again.State != history.StateCurrent {
		t.Errorf("unchanged head: %+v", again)
	}
	cold := t.TempDir()
	update(t, r.dir, cold, history.DefaultWindow)
	if got, want := dump(t, dir), dump(t, cold); !slices.Equal(got, want) {
		t.Errorf("incremental:\n%s\nafresh:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	r.tick++
	r.git("commit", "-q", "--amend", "-m", "move the store, reworded")
	if res := update(t, r.dir, dir, history.DefaultWindow); res.State != history.StateRebuilt || res.Commits != 5 {
		t.Errorf("after an amend: %+v", res)
	}
	if got := dump(t, dir); !strings.Contains(got[len(got)-1], "move the store, reworded") {
		t.Errorf("after an amend: %v", got)
	}
}

// The window keeps the newest commits only, within its count and its age.
func TestWindowBounds(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	for i := range 6 {
		r.commit(fmt.Sprintf("change %d", i), map[string]string{"store.go": lines(i+1, "a")})
	}
	w := history.Window{MaxCommits: 4, MaxAge: time.Hour}
	if res := update(t, r.dir, dir, w); res.Commits != 4 {
		t.Errorf("four of six: %+v", res)
	}
	r.commit("change 6", map[string]string{"store.go": lines(8, "a")})
	if res := update(t, r.dir, dir, w); res.State != history.StateIncremental || res.Commits != 4 {
		t.Errorf("still four: %+v", res)
	}
	// Commits are a minute apart: three minutes back from the newest holds four.
	if res := update(t, r.dir, dir, history.Window{MaxCommits: 100, MaxAge: 3 * time.Minute}); res.State != history.StateRebuilt || res.Commits != 4 {
		t.Errorf("by age: %+v", res)
	}
}

// Commit messages are ranked by the task's terms, analyzed as the graph's text is.
func TestRelevantMessages(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	r.commit("Add reconnect backoff to the client", map[string]string{"store.go": "a\n"})
	r.commit("Fix typo", map[string]string{"notes.txt": "b\n"})
	r.commit("client: jitter the ReconnectDelay", map[string]string{"store.go": "a\nb\n"})
	update(t, r.dir, dir, history.DefaultWindow)
	s := open(t, dir)
	cs, err := s.Relevant(context.Background(), []string{"reconnect", "backoff"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Subject)
	}
	if want := []string{"Add reconnect backoff to the client", "client: jitter the ReconnectDelay"}; !slices.Equal(got, want) {
		t.Errorf("relevant: %v, want %v", got, want)
	}
}

// A project in a folder of its repository reads its paths relative to that folder, and a
// commit that changed nothing in it touches none of its files.
func TestProjectInAFolder(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	r.commit("start the project", map[string]string{"proj/store.go": "a\n", "other/b.go": "b\n"})
	r.commit("elsewhere only", map[string]string{"other/b.go": "c\n"})
	if res := update(t, filepath.Join(r.dir, "proj"), dir, history.DefaultWindow); res.Commits != 2 {
		t.Fatalf("update: %+v", res)
	}
	s := open(t, dir)
	if cs := changed(t, s, "store.go", 0, 0); len(cs) != 1 || cs[0].Subject != "start the project" {
		t.Errorf("store.go: %+v", cs)
	}
	cs, err := s.Relevant(context.Background(), []string{"elsewher"}, 10)
	if err != nil || len(cs) != 1 || cs[0].Files != 0 {
		t.Errorf("the commit elsewhere: %+v %v", cs, err)
	}
}

// A path git must quote (a tab in it) or that holds spaces keeps its own changes; a binary
// file is touched as a whole.
func TestUnusualPaths(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	r.commit("add odd files", map[string]string{"with space.go": "a\nb\n", "tab\there.go": "a\n", "blob.bin": "\x00\x01\x02"})
	r.commit("change both", map[string]string{"with space.go": "a\nc\n", "tab\there.go": "z\n", "blob.bin": "\x00\x03"})
	update(t, r.dir, dir, history.DefaultWindow)
	s := open(t, dir)
	all, err := s.Changes(context.Background(), []string{"with space.go", "tab\there.go", "blob.bin"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string][]string{
		"with space.go": {"change both 2-2", "add odd files 1-2"},
		"tab\there.go":  {"change both 1-1", "add odd files 1-1"},
		"blob.bin":      {"change both 0-0", "add odd files 0-0"},
	} {
		var got []string
		for _, ch := range all[p] {
			got = append(got, fmt.Sprintf("%s %d-%d", ch.Subject, ch.First, ch.Last))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", p, got, want)
		}
	}
}

// Reading history runs no program that the repository or the environment configures, and
// nothing configured changes what is read: the history of a repository armed with each trap,
// and with all of them, is the one of the same repository unarmed.
func TestNoProgramTheRepositoryConfiguresRuns(t *testing.T) {
	build := func(t *testing.T) *repo {
		r := newRepo(t)
		r.commit("add the store", map[string]string{"store.go": lines(5, "a"), "notes.txt": "n\n"})
		r.commit("grow the store", map[string]string{"store.go": lines(40, "a")})
		r.commit("déplacer les notes", map[string]string{"notes.txt": "", "sub/x.go": "x\n"})
		return r
	}
	clean := t.TempDir()
	update(t, build(t).dir, clean, history.DefaultWindow)
	want := dump(t, clean)
	check := func(t *testing.T, name string, traps ...fixture.GitTrap) {
		r := build(t)
		armed := fixture.ArmGitTraps(t, r.dir, traps...)
		dir := t.TempDir()
		res, err := history.Update(context.Background(), r.dir, dir, history.DefaultWindow)
		if ran := armed.Ran(t); ran != "" {
			t.Fatalf("%s: a trap ran:\n%s", name, ran)
		}
		if err != nil || res.State != history.StateRebuilt || res.Head != armed.Head || res.Commits != 3 {
			t.Fatalf("%s: %+v %v, want a rebuild of 3 commits to %s", name, res, err, armed.Head)
		}
		// The same commits touching the same lines; the signature trap re-signs the last one.
		got := dump(t, dir)
		same := len(got) == len(want)
		for i := 0; same && i < len(got); i++ {
			same = got[i][7:] == want[i][7:]
		}
		if !same {
			t.Errorf("%s: read\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for _, trap := range fixture.GitTraps() {
		t.Run(trap.Name, func(t *testing.T) { check(t, trap.Name, trap) })
	}
	t.Run("every trap", func(t *testing.T) { check(t, "every trap") })
}

// A partial clone's missing object is read around, not fetched from the remote the
// repository names (an ext:: URL runs a command of the repository's choosing).
func TestPartialCloneFetchesNothing(t *testing.T) {
	r := newRepo(t)
	r.commit("first", map[string]string{"store.go": lines(5, "a")})
	r.commit("second", map[string]string{"store.go": lines(6, "a")})
	// The first version's blob removed: reading the first diff needs it.
	blob := r.git("rev-parse", "HEAD~1:store.go")
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	var promisor []fixture.GitTrap
	for _, trap := range fixture.GitTraps() {
		if trap.Name == "promisor remote" {
			promisor = append(promisor, trap)
		}
	}
	armed := fixture.ArmGitTraps(t, r.dir, promisor...)
	res, err := history.Update(context.Background(), r.dir, t.TempDir(), history.DefaultWindow)
	if ran := armed.Ran(t); ran != "" {
		t.Errorf("a trap ran:\n%s", ran)
	}
	if err != nil || res.Commits != 2 || !strings.Contains(res.Limited, "old contents of files") {
		t.Errorf("a history with a missing object: %+v %v", res, err)
	}
}
