package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// CopyExample copies the bundled example project's sources (not its state or rendered site)
// into a temporary directory and lets edit change the copy. It is exported to the package's
// external tests too.
func CopyExample(t testing.TB, edit func(root string)) string {
	t.Helper()
	root := t.TempDir()
	copyExampleTo(t, root)
	if edit != nil {
		edit(root)
	}
	return root
}

// copyExampleTo copies the example's sources into dst.
func copyExampleTo(t testing.TB, dst string) {
	t.Helper()
	fixture.Copy(t, filepath.Join("..", "examples", "courier"), dst, func(rel string) bool { return !strings.HasPrefix(rel, "site"+string(filepath.Separator)) })
}

// watched is a service with its source watch on, and the binding of one project.
type watched struct {
	t   *testing.T
	svc *Service
	b   protocol.Binding
}

func newWatched(t *testing.T, root string) *watched {
	t.Helper()
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(impl, true)
	t.Cleanup(func() { svc.Close() })
	return &watched{t: t, svc: svc, b: protocol.Binding{ProjectRoot: root}}
}

// deltas counts the delta segments of the binding's published generation.
func (w *watched) deltas() int {
	w.t.Helper()
	d, probs, err := project.Load(w.b.ProjectRoot)
	if err != nil || d == nil {
		w.t.Fatalf("descriptor: %v %v", err, probs)
	}
	m, err := index.ReadManifest(publication.PathsFor(d, "").Index)
	if err != nil {
		w.t.Fatal(err)
	}
	return m.Deltas()
}

// answer is what these tests read of an protocol.Envelope.
type answer struct {
	Staleness string   `json:"staleness"`
	Warnings  []string `json:"warnings"`
	Result    struct {
		Title      string `json:"title"`
		SourcePath string `json:"source_path"`
	} `json:"result"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// remembered waits until the worker remembers the published generation, which it reads in
// the background after its first sync.
func (w *watched) remembered() {
	w.t.Helper()
	l := w.svc.liveFor(w.b, nil)
	for start := time.Now(); l.memory.Empty(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			w.t.Fatal("the worker did not remember the published generation")
		}
	}
}

// node calls docforge_get_node.
func (w *watched) node(id string) answer {
	w.t.Helper()
	out, _ := w.svc.Call(context.Background(), w.b, "docforge_get_node", json.RawMessage(`{"node_id":"`+id+`"}`))
	var a answer
	if err := json.Unmarshal(out, &a); err != nil {
		w.t.Fatalf("%v: %s", err, out)
	}
	return a
}

// retitle rewrites the title line of a Markdown source.
func retitle(t *testing.T, path, title string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "title = ") {
			lines[i] = `title = "` + title + `"`
			break
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A renamed folder stays watched under its new name: an edit inside it, made right after the
// rename, is in the next answer, round after round (fsnotify drops the watch of a folder
// that moves, racing with the watch added for its new name).
func TestWatchFollowsRenamedFolders(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.node("arch.store")
	dir := filepath.Join(root, "docs", "architecture")
	for i := range fixture.SoakRounds(10) {
		moved := filepath.Join(root, "docs", "renamed-"+strings.Repeat("x", i+1))
		if err := os.Rename(dir, moved); err != nil {
			t.Fatal(err)
		}
		dir = moved
		if a := w.node("arch.store"); a.Error != nil || !strings.HasPrefix(a.Result.SourcePath, "docs/renamed-") {
			t.Fatalf("round %d: after the rename: %+v", i, a)
		}
		title := fmt.Sprintf("Store, round %d", i)
		retitle(t, filepath.Join(dir, "store.md"), title)
		if a := w.node("arch.store"); a.Result.Title != title || a.Staleness != "current" {
			t.Fatalf("round %d: an edit inside the renamed folder is not in the answer: title %q, staleness %s", i, a.Result.Title, a.Staleness)
		}
	}
}

// A content root that is deleted and made again (what git checkout and git stash do) is
// watched again: its nodes come back, and later edits inside it are seen.
func TestWatchSeesARootRemovedAndMadeAgain(t *testing.T) {
	root := CopyExample(t, func(root string) {
		desc := filepath.Join(root, "docforge.toml")
		src, _ := os.ReadFile(desc)
		nested := `content_roots = ["docs/architecture", "docs/requirements", "docs/verification"]`
		os.WriteFile(desc, []byte(strings.Replace(string(src), `content_roots = ["docs"]`, nested, 1)), 0o644)
	})
	w := newWatched(t, root)
	if a := w.node("arch.store"); a.Error != nil {
		t.Fatalf("nested roots: %+v", a.Error)
	}
	dir := filepath.Join(root, "docs", "architecture")
	aside := filepath.Join(t.TempDir(), "architecture")
	for i := range fixture.SoakRounds(3) {
		if err := os.Rename(dir, aside); err != nil {
			t.Fatal(err)
		}
		// A missing root makes the project invalid: the last good generation answers, stale.
		if a := w.node("arch.store"); a.Error == nil && a.Staleness == "current" {
			t.Fatalf("round %d: the root is gone but its node is answered as current", i)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(dir, os.DirFS(aside)); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(aside)
		if a := w.node("arch.store"); a.Error != nil || a.Staleness != "current" {
			t.Fatalf("round %d: the root is back but its node is not: %+v", i, a)
		}
		title := fmt.Sprintf("Store again %d", i)
		retitle(t, filepath.Join(dir, "store.md"), title)
		if a := w.node("arch.store"); a.Result.Title != title {
			t.Fatalf("round %d: an edit inside the re-created root is not seen: %q", i, a.Result.Title)
		}
	}
}

// A real git checkout between two branches, one of which moves a folder and deletes another,
// is seen in full, both ways, every time.
func TestWatchSeesAGitCheckout(t *testing.T) {
	fixture.NeedCommand(t, "git", "git")
	root := CopyExample(t, nil)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	note := func(dir, id string) {
		t.Helper()
		os.MkdirAll(filepath.Join(root, dir, "deeper"), 0o755)
		body := "+++\nid = \"" + id + "\"\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"A note\"\n+++\nA note.\n"
		if err := os.WriteFile(filepath.Join(root, dir, "deeper", "note.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte(".docforge/\n"), 0o644)
	note("docs/notes", "arch.main-only")
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "main")
	git("checkout", "-qb", "moved")
	git("mv", "docs/architecture", "docs/design")
	git("rm", "-rq", "docs/notes")
	note("docs/extra", "arch.moved-only")
	retitle(t, filepath.Join(root, "docs/design/store.md"), "Store on the moved branch")
	git("add", "-A")
	git("commit", "-qm", "moved")
	git("checkout", "-q", "main")

	w := newWatched(t, root)
	w.node("arch.store")
	for i := range fixture.SoakRounds(4) {
		git("checkout", "-q", "moved")
		a := w.node("arch.store")
		if a.Result.SourcePath != "docs/design/store.md" || a.Result.Title != "Store on the moved branch" || a.Staleness != "current" {
			t.Fatalf("round %d, branch moved: %+v", i, a)
		}
		if a := w.node("arch.main-only"); a.Error == nil {
			t.Fatalf("round %d, branch moved: a node of the deleted folder is still answered", i)
		}
		if a := w.node("arch.moved-only"); a.Error != nil {
			t.Fatalf("round %d, branch moved: the new folder's node is missing: %+v", i, a.Error)
		}
		git("checkout", "-q", "main")
		a = w.node("arch.store")
		if a.Result.SourcePath != "docs/architecture/store.md" || a.Result.Title == "Store on the moved branch" || a.Staleness != "current" {
			t.Fatalf("round %d, branch main: %+v", i, a)
		}
		if a := w.node("arch.main-only"); a.Error != nil {
			t.Fatalf("round %d, branch main: the restored folder's node is missing: %+v", i, a.Error)
		}
		if a := w.node("arch.moved-only"); a.Error == nil {
			t.Fatalf("round %d, branch main: a node of the other branch is still answered", i)
		}
	}
}

// After the watch fails (an inotify queue overflow), the next call says so and answers from a
// full walk, the watch is rebuilt, and the calls after that skip the walk again: the failure
// is visible and repaired, not a silent walk on every call for good.
func TestWatchRepairsItselfAfterAnOverflow(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.node("arch.store")
	w.node("arch.store")
	l := w.svc.lives[root+"\x00"+w.b.Policy()]
	if l == nil || l.watch == nil {
		t.Fatal("no watch started")
	}
	l.watch.w.Errors <- fsnotify.ErrEventOverflow
	deadline := time.Now().Add(5 * time.Second)
	for w.svc.Stats().Watch.Failures == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // the watch's loop takes the error in its own time
	}
	if st := w.svc.Stats(); st.Watch.Failures != 1 || st.Watch.State != "failed" && st.Watch.Repairs == 0 {
		// The background rebuild may already have repaired it; either is visible.
		t.Errorf("after an overflow the stats say %+v", st.Watch)
	}
	a := w.node("arch.store")
	if a.Staleness != "current" || !strings.Contains(strings.Join(a.Warnings, " "), "rebuilt") {
		// A background rebuild may have taken the notice; it is then the call after it.
		if st := w.svc.Stats(); st.Watch.Repairs != 1 {
			t.Fatalf("the call after an overflow: %+v, stats %+v", a, st.Watch)
		}
	}
	before := w.svc.Stats().WalksSkipped
	for range 3 {
		w.node("arch.store")
	}
	st := w.svc.Stats()
	if st.WalksSkipped != before+3 || st.Watch.State != "ok" || st.Watch.Failures != 1 || st.Watch.Repairs != 1 {
		t.Errorf("after the repair: walks skipped %d of 3, watch %+v", st.WalksSkipped-before, st.Watch)
	}
	if h, ok := readWatchHealth(l.watch.health); !ok || h.State != "ok" || h.Failures != 1 || h.Repairs != 1 || !strings.Contains(h.LastError, "overflow") {
		t.Errorf("the health file says %+v (read %v)", h, ok)
	}
}

// Two services on one project (two managers' workers, say): the first to serve it publishes,
// the second answers read-only from what the first publishes, says so, and never syncs; once
// the first is gone the second takes over.
func TestOnePublisherPerProject(t *testing.T) {
	root := CopyExample(t, nil)
	first, second := newWatched(t, root), newWatched(t, root)
	if a := first.node("arch.store"); a.Error != nil || len(a.Warnings) != 0 {
		t.Fatalf("the first service: %+v", a)
	}
	a := second.node("arch.store")
	if a.Error != nil || a.Staleness != "current" || !strings.Contains(strings.Join(a.Warnings, " "), "answers read-only") {
		t.Fatalf("the second service: %+v", a)
	}
	retitle(t, filepath.Join(root, "docs/architecture/store.md"), "Store, edited")
	// The first publishes the edit (its watch schedules a rebuild); the second waits for it.
	if a := second.node("arch.store"); a.Result.Title != "Store, edited" || a.Staleness != "current" {
		t.Errorf("the follower after an edit: %+v", a)
	}
	if n := second.svc.Stats().Syncs; n != 0 {
		t.Errorf("the follower ran %d syncs", n)
	}
	first.svc.Close()
	retitle(t, filepath.Join(root, "docs/architecture/store.md"), "Store, edited again")
	a = second.node("arch.store")
	if a.Result.Title != "Store, edited again" || a.Staleness != "current" || len(a.Warnings) != 0 || second.svc.Stats().Syncs == 0 {
		t.Errorf("after the publisher closed, the follower did not take over: %+v, %d syncs", a, second.svc.Stats().Syncs)
	}
}

// An edit's sync lists only the folder the watch saw change and starts from what the worker
// remembers of the generation it published, and its answer is the edit's, round after round:
// the tracker is as fresh as the walk it replaces.
func TestEditsListOnlyTheChangedFolder(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.node("arch.store")
	w.remembered()
	const rounds = 8
	for i := range rounds {
		title := fmt.Sprintf("Store, edit %d", i)
		retitle(t, filepath.Join(root, "docs", "architecture", "store.md"), title)
		if a := w.node("arch.store"); a.Result.Title != title || a.Staleness != "current" {
			t.Fatalf("edit %d: title %q, staleness %s", i, a.Result.Title, a.Staleness)
		}
	}
	if st := w.svc.Stats(); st.Rescans < rounds || st.Recalls < rounds {
		t.Fatalf("of %d syncs, %d listed only the changed folder and %d started from the memory; want %d each (stats %+v)", st.Syncs, st.Rescans, st.Recalls, rounds, st)
	}
}

// A ranked answer right after an edit comes from the generation the edit published, over its
// deltas, and ranks as a cold build's to the bit: every match, the base's unchanged ones too,
// is ranked with the generation's statistics (index/layerrank.go). No call waits for a merge.
func TestRankedAnswerOverDeltasAsAColdBuild(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.svc.mergeQuiet = time.Hour // no merge
	w.node("arch.store")
	for i, tool := range []string{"docforge_search", "docforge_get_task_context", "docforge_get_context"} {
		title := fmt.Sprintf("Store of events, edit %d", i)
		retitle(t, filepath.Join(root, "docs", "architecture", "store.md"), title)
		if a := w.node("arch.store"); a.Result.Title != title {
			t.Fatalf("edit %d: title %q", i, a.Result.Title)
		}
		args := `{"query":"store events"}`
		if tool == "docforge_get_task_context" {
			args = `{"task":"change how the store appends events","kind":"change"}`
		}
		if _, err := w.svc.Call(context.Background(), w.b, tool, []byte(args)); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if n := w.deltas(); n != i+1 {
			t.Fatalf("%s: %d deltas after it answered, want %d", tool, n, i+1)
		}
	}

	// A search after one more edit (the fourth delta, which a merge in the background may be
	// folding already), against a cold build of the same sources: the same hits, in the same
	// order, with the same scores.
	search := func(svc *Service, b protocol.Binding) string {
		out, err := svc.Call(context.Background(), b, "docforge_search", []byte(`{"query":"store events"}`))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		return string(env.Result)
	}
	retitle(t, filepath.Join(root, "docs", "architecture", "store.md"), "Store of events, last edit")
	got := search(w.svc, w.b)
	// The sources alone (Copy skips the state folder): the merge in the background may retire
	// a segment while it is read.
	cold := t.TempDir()
	fixture.Copy(t, root, cold, nil)
	other := newWatched(t, cold)
	if want := search(other.svc, other.b); got != want {
		t.Errorf("a search after an edit answered\n%s\nwhere a cold build answers\n%s", got, want)
	}
}

// In a small project the worker merges its deltas once the edits pause (a generation of one
// segment answers fastest), and a burst of edits is not interrupted by merges:
// each of its syncs starts from the worker's memory.
func TestSmallProjectMergesWhenEditsPause(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.node("arch.store")
	w.remembered()
	const rounds = 3
	before := w.svc.Stats().Recalls
	for i := range rounds {
		title := fmt.Sprintf("Store, burst %d", i)
		retitle(t, filepath.Join(root, "docs", "architecture", "store.md"), title)
		if a := w.node("arch.store"); a.Result.Title != title || a.Staleness != "current" {
			t.Fatalf("edit %d: title %q, staleness %s", i, a.Result.Title, a.Staleness)
		}
	}
	for start := time.Now(); w.deltas() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the worker did not merge %d deltas of a small project", w.deltas())
		}
	}
	if a := w.node("arch.store"); a.Result.Title != fmt.Sprintf("Store, burst %d", rounds-1) || a.Staleness != "current" {
		t.Errorf("after the merge: %+v", a)
	}
	if got := w.svc.Stats().Recalls - before; got < rounds {
		t.Errorf("%d of %d syncs in the burst started from the memory", got, rounds)
	}
}

// An edit no event reports (here through a hard link from outside the watched root) is
// answered as current for at most the proof's age: a stat walk then renews the proof or
// finds the edit, and the answer has the new text. trust_watch does not keep the old
// answer past it either.
func TestUnseenEditIsFoundWithinTheProofsAge(t *testing.T) {
	root := CopyExample(t, nil)
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	const age = time.Second
	svc := NewService(impl, true, WithProofAge(age))
	t.Cleanup(func() { svc.Close() })
	w := &watched{t: t, svc: svc, b: protocol.Binding{ProjectRoot: root}}
	if a := w.node("arch.store"); a.Staleness != "current" || a.Result.Title != "Shipment store" {
		t.Fatalf("first answer: %+v", a)
	}
	// The same file under a second name outside every watched folder.
	outside := filepath.Join(t.TempDir(), "store.md")
	src := filepath.Join(root, "docs", "architecture", "store.md")
	if err := os.Link(src, outside); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	f, err := os.OpenFile(outside, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(outside)
	edited := []byte(strings.Replace(string(data), "Shipment store", "Shipment vault", 1))
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Truncate(int64(len(edited)))
	f.Close()
	edit := time.Now()
	for {
		a := w.node("arch.store")
		if a.Result.Title == "Shipment vault" || a.Staleness != "current" {
			t.Logf("the edit was found after %v (%s, %q)", time.Since(edit).Round(time.Millisecond), a.Staleness, a.Result.Title)
			break
		}
		if time.Since(edit) > age+2*time.Second {
			t.Fatalf("%v after an unseen edit, still answered current with the old title", time.Since(edit))
		}
		out, _ := w.svc.Call(context.Background(), w.b, "docforge_sync", json.RawMessage(`{"trust_watch":true}`))
		if !strings.Contains(string(out), `"staleness":"current"`) {
			t.Fatalf("sync: %s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An MkDocs site's nav titles its pages: the watch sees an edit of mkdocs.yml, outside every
// content root, and the next answer has the new title.
func TestWatchSeesTheMkDocsNav(t *testing.T) {
	root := CopyExample(t, func(root string) {
		fixture.Append(t, filepath.Join(root, "docforge.toml"), "\n[sources.links]\nsite = \"mkdocs\"\ndangling = \"warning\"\n")
		fixture.WriteTree(t, root, map[string]string{"mkdocs.yml": "nav:\n  - Store: architecture/store.md\n"})
	})
	w := newWatched(t, root)
	if a := w.node("arch.store"); a.Error != nil || a.Result.Title != "Store" {
		t.Fatalf("the nav title: %+v %+v", a.Error, a.Result.Title)
	}
	for i := range fixture.SoakRounds(3) {
		title := fmt.Sprintf("Event store %d", i)
		fixture.WriteTree(t, root, map[string]string{"mkdocs.yml": "nav:\n  - " + title + ": architecture/store.md\n"})
		if a := w.node("arch.store"); a.Error != nil || a.Result.Title != title || a.Staleness != "current" {
			t.Fatalf("round %d: after a nav edit: %+v title %q, staleness %s", i, a.Error, a.Result.Title, a.Staleness)
		}
	}
}
