package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

const descriptor = `schema_version = 1
[project]
id = "gen"
[sources]
content_roots = ["docs"]
[relations]
allowed = ["depends_on", "relates_to", "tested_by", "implemented_by"]
[families.arch]
kinds = ["component", "requirement"]
`

// syncedProject generates a project of n nodes from seed and publishes its first generation.
func syncedProject(t testing.TB, n int, seed int64) (root string, d *project.Descriptor, r *rand.Rand) {
	t.Helper()
	r = rand.New(rand.NewSource(seed))
	root = genProject(t, n, r)
	d = load(t, root)
	_, err := index.Sync(context.Background(), d, index.Options{})
	must(t, err)
	return root, d, r
}

// genProject writes n nodes, each depending on up to two earlier nodes.
func genProject(t testing.TB, n int, r *rand.Rand) string {
	t.Helper()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(descriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	for i := 0; i < n; i++ {
		writeNode(t, root, i, r, "")
	}
	return root
}

func writeNode(t testing.TB, root string, i int, r *rand.Rand, extra string) {
	t.Helper()
	var deps []string
	for j := 0; j < 2 && i > 0; j++ {
		deps = append(deps, fmt.Sprintf("%q", fmt.Sprintf("n%03d", r.Intn(i))))
	}
	body := fmt.Sprintf("# Node %d\n\nWords about storage %d and wal %d. %s\n", i, r.Intn(50), r.Intn(50), extra)
	// Half the nodes carry a review stamp of their first dependency (suspect: no real hash).
	stamps := ""
	if len(deps) > 0 && r.Intn(2) == 0 {
		stamps = fmt.Sprintf("[stamps]\n%s = \"sha256:%064x\"\n", deps[0], r.Int63())
	}
	content := fmt.Sprintf("+++\nid = \"n%03d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Node %d\"\ntags = [\"t%d\"]\n[relations]\ndepends_on = [%s]\n%s+++\n%s",
		i, i, i%5, strings.Join(deps, ", "), stamps, body)
	// Written by rename, as editors do, so that a concurrent sync never reads a torn file.
	path := filepath.Join(root, "docs", fmt.Sprintf("n%03d.md", i))
	must(t, os.WriteFile(path+".tmp", []byte(content), 0o644))
	must(t, os.Rename(path+".tmp", path))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func load(t testing.TB, root string) *project.Descriptor {
	t.Helper()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	return d
}

// dump returns every logical row of an index, with node keys replaced by IDs, so two builds
// compare equal exactly when they hold the same graph.
// dump prints the published generation of d under policy: every stored row by stable IDs,
// and the ranked answers of full-text searches in their order.
func dump(t testing.TB, d *project.Descriptor, policy string) string {
	t.Helper()
	ctx := context.Background()
	snap, err := index.OpenWith(ctx, d, policy)
	must(t, err)
	defer snap.Close()
	var b strings.Builder
	for _, q := range []string{
		`SELECT id, kind, family, title, status, authority, tags, language, capabilities, source_path, anchor, line, end_line, content_hash, record_hash, headings, head_digest, body_digest, (SELECT body FROM bodies b WHERE b.key = nodes.key) FROM nodes ORDER BY id`,
		`SELECT n.id, s.target, s.hash, s.head, s.body, s.path FROM stamps s JOIN nodes n ON n.key = s.src ORDER BY 1, 2`,
		`SELECT s.id, r.name, t.id FROM edges e JOIN nodes s ON s.key = e.src JOIN relations r ON r.rel = e.rel JOIN nodes t ON t.key = e.dst ORDER BY 1, 2, 3`,
		// A tag or capability row left behind by its node shows as one (a cold build has none).
		`SELECT t.tag, coalesce(n.id, 'no node: ' || t.key) FROM node_tags t LEFT JOIN nodes n ON n.key = t.key ORDER BY 1, 2`,
		`SELECT c.cap, coalesce(n.id, 'no node: ' || c.key) FROM node_caps c LEFT JOIN nodes n ON n.key = c.key ORDER BY 1, 2`,
		`SELECT path, file_hash FROM files ORDER BY path`,
		`SELECT key, value FROM meta WHERE key NOT IN ('generation', 'build', 'source_identity', 'project_root') ORDER BY key`,
		`SELECT o.name, s.name, r.name, d.name FROM refs x JOIN ref_names o ON o.id = x.origin JOIN ref_names s ON s.id = x.src
			JOIN relations r ON r.rel = x.rel JOIN ref_names d ON d.id = x.dst ORDER BY 1, 2, 3, 4`,
		`SELECT n.id, l.steps, l.edges, hex(l.encoded) FROM logic l JOIN nodes n ON n.key = l.owner ORDER BY 1`,
		`SELECT s.id, r.name, t.id, a.anchor FROM edge_anchors a JOIN nodes s ON s.key = a.src JOIN relations r ON r.rel = a.rel
			JOIN nodes t ON t.key = a.dst ORDER BY 1, 2, 3`,
	} {
		must(t, snap.QueryForTest(ctx, q, func(s *sqlite.Stmt) error {
			for i := 0; i < s.ColumnCount(); i++ {
				b.WriteString(s.ColumnText(i))
				b.WriteByte('|')
			}
			b.WriteByte('\n')
			return nil
		}))
		b.WriteString("--\n")
	}
	for _, q := range []string{"storage", "write ahead", "log*", "storage log"} {
		limit := 50
		if q == "storage log" {
			limit = 3 // which of the matches tied at the limit are kept
		}
		res, err := snap.Search(ctx, q, limit)
		must(t, err)
		for _, h := range res.Hits {
			// The score to the last bit: a merged base's full-text totals are its rows', and
			// over deltas every match is ranked with the generation's statistics (ranking.go),
			// so each ranks as in a cold build.
			fmt.Fprintf(&b, "%s|%s|%s|%s|%s\n", q, h.ID, h.Match, strconv.FormatFloat(h.Score, 'g', -1, 64), h.Snippet)
		}
		b.WriteString("--\n")
	}
	rk, err := snap.RankAny(ctx, nil, []string{"storage", "log", "write", "node"}, 5, 1000, nil)
	must(t, err)
	for _, h := range rk.Hits {
		fmt.Fprintf(&b, "rank-any %s %s %s\n", rk.Mode, h.ID, strconv.FormatFloat(h.Score, 'g', -1, 64))
	}
	// How many nodes hold each term, within a budget that caps the common ones, and which
	// files hold them: counted over the segments with the replaced rows left out.
	for _, budget := range []int{2, 1000} {
		rk, err := snap.RankAny(ctx, nil, []string{"storage", "log", "write", "node", "absent"}, 5, budget, nil)
		must(t, err)
		fmt.Fprintf(&b, "rank-any terms %d %s %+v\n", budget, rk.Mode, rk.Terms)
	}
	terms := []string{"storage", "log", "write", "node"}
	files, sizes, total, err := snap.FileTerms(ctx, terms, 1000)
	must(t, err)
	for i, t := range terms {
		slices.Sort(files[i])
		fmt.Fprintf(&b, "file-terms %s %d %v\n", t, total, files[i])
	}
	fmt.Fprintf(&b, "file-sizes %v\n", sizes)
	b.WriteString("--\n")
	dumpQueries(t, snap, &b)
	return b.String()
}

// dumpQueries writes what the node-level queries answer for every node: the node, its links
// both ways, its impact at depth 3 and its one-hop expansion, by ID (keys differ between a
// cold build and a layered generation), so that every query, not only the stored rows, is
// compared through the segments' views.
func dumpQueries(t testing.TB, snap *index.Snapshot, b *strings.Builder) {
	ctx := context.Background()
	var ids []string
	must(t, snap.QueryForTest(ctx, `SELECT id FROM nodes ORDER BY id`, func(s *sqlite.Stmt) error {
		ids = append(ids, s.ColumnText(0))
		return nil
	}))
	line := func(what string, v any, err error) {
		must(t, err)
		data, err := json.Marshal(v)
		must(t, err)
		fmt.Fprintf(b, "%s %s\n", what, data)
	}
	for _, id := range ids {
		v, err := snap.Get(ctx, id)
		line("get "+id, v, err)
		bl, err := snap.Backlinks(ctx, id, 1000)
		line("backlinks "+id, bl, err)
		deps, err := snap.Dependencies(ctx, id, 1000)
		line("dependencies "+id, deps, err)
		imp, err := snap.Impact(ctx, id, index.ImpactOptions{Depth: 3})
		line("impact "+id, imp, err)
		refs, err := snap.Resolve(ctx, []string{id})
		must(t, err)
		for _, out := range []bool{true, false} {
			ex, err := snap.Expand(ctx, refs, out, nil, 1000)
			must(t, err)
			var hops []string
			for _, h := range ex.Hops {
				hops = append(hops, fmt.Sprintf("%s-%s->%s %v %s", h.From.ID, h.Relation, h.To.ID, h.Outgoing, h.Review))
			}
			slices.Sort(hops)
			fmt.Fprintf(b, "expand %s %v %v\n", id, out, hops)
		}
	}
	b.WriteString("--\n")
}

// coldCopy builds, from scratch, a copy of the sources under root (its index state left out)
// and returns the copy's descriptor: a cold build of the same sources that leaves root's
// generation and its deltas as they are.
func coldCopy(t testing.TB, root string) *project.Descriptor {
	t.Helper()
	dst := t.TempDir()
	must(t, filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if e.IsDir() {
			if e.Name() == ".docforge" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
	d := load(t, dst)
	res, err := index.Sync(context.Background(), d, index.Options{})
	must(t, err)
	if res.Build != index.BuildCold {
		t.Fatalf("the copy's build = %s, want cold", res.Build)
	}
	return d
}

// TestSegmentedGenerationsAnswerAsColdBuilds edits a project round after round, each edit
// published as one more delta, and compares every stored row and the full-text matches with
// a cold build of the same sources; once a merge folds the deltas into a base, the ranked
// answers are the cold build's too, in order and in score to the last bit.
func TestSegmentedGenerationsAnswerAsColdBuilds(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(11))
	root := genProject(t, 60, r)
	d := load(t, root)
	// As a worker syncs: its watch tells the tracker which folders changed, and it remembers
	// what it published.
	tracker, memory := source.NewTracker(), index.NewMemory()
	opts := index.Options{Tracker: tracker, Memory: memory}
	_, err := index.Sync(ctx, d, opts)
	must(t, err)
	next, sawDeltas, merges, deltaMerges, recalled := 60, 0, 0, 0, 0
	for round := 0; round < 14; round++ {
		for k := 0; k < 1+r.Intn(3); k++ {
			if r.Intn(3) == 0 {
				writeNode(t, root, next, r, "")
				next++
			} else {
				writeNode(t, root, r.Intn(next), r, fmt.Sprintf("edit %d", round))
			}
		}
		tracker.Changed("docs")
		inc, err := index.Sync(ctx, d, opts)
		must(t, err)
		if inc.Build != index.BuildIncremental {
			t.Fatalf("round %d: build = %s, want incremental", round, inc.Build)
		}
		if !inc.Ran(index.PhaseRescan) {
			t.Fatalf("round %d: the sync walked the tree (phases %v)", round, inc.Timings)
		}
		if inc.Ran(index.PhaseRecall) {
			recalled++
		}
		sawDeltas = max(sawDeltas, inc.Deltas)
		cold := coldCopy(t, root)
		if got, want := dump(t, d, ""), dump(t, cold, ""); got != want {
			t.Fatalf("round %d (%d deltas): segmented and cold generations differ:\n%s", round, inc.Deltas, firstDiff(got, want))
		}
		if round%5 == 2 && inc.Deltas > 1 {
			// Deltas folded into one delta answer as they did, and as the cold build.
			m, err := index.MergeDeltasForTest(ctx, d, index.MergeOptions{Memory: memory})
			must(t, err)
			if m.Merged != inc.Deltas || m.Base || m.Deltas != 1 {
				t.Fatalf("round %d: merge of %d deltas %+v", round, inc.Deltas, m)
			}
			deltaMerges++
			if got, want := dump(t, d, ""), dump(t, cold, ""); got != want {
				t.Fatalf("round %d: deltas merged into one and cold generations differ:\n%s", round, firstDiff(got, want))
			}
		}
		if round%5 == 4 {
			before, err := index.Open(ctx, d)
			must(t, err)
			m, err := index.Merge(ctx, d, index.MergeOptions{Memory: memory})
			must(t, err)
			if m.Merged == 0 || m.Generation != inc.Generation {
				t.Fatalf("round %d: merge %+v of generation %d", round, m, inc.Generation)
			}
			merges++
			if got, want := dump(t, d, ""), dump(t, cold, ""); got != want {
				t.Fatalf("round %d: merged and cold generations differ:\n%s", round, firstDiff(got, want))
			}
			// A snapshot opened before the merge still answers from the segments it opened.
			if _, err := before.Get(ctx, "n000"); err != nil {
				t.Fatalf("a snapshot of the merged segments: %v", err)
			}
			before.Close()
			st, err := index.CheckStatus(ctx, d, "", "")
			must(t, err)
			if st.State != publication.Current {
				t.Fatalf("round %d: after a merge the status is %s (%s)", round, st.State, st.Reason)
			}
		}
	}
	if sawDeltas < 3 || merges == 0 || deltaMerges == 0 {
		t.Fatalf("the rounds stacked at most %d deltas, merged %d times into a base and %d into a delta", sawDeltas, merges, deltaMerges)
	}
	// Only the first edit after the cold build reads the file table back; merges keep the memory.
	if recalled != 13 {
		t.Fatalf("%d of 14 syncs started from the memory, want 13", recalled)
	}
}

func TestColdAndIncrementalBuildsAreEquivalent(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(7))
	root := genProject(t, 60, r)
	d := load(t, root)
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildCold {
		t.Fatalf("first build = %s", res.Build)
	}
	next := 60
	for round := 0; round < 12; round++ {
		// A random edit: change bodies and relations, add nodes, delete unreferenced ones.
		for k := 0; k < 1+r.Intn(3); k++ {
			switch r.Intn(3) {
			case 0:
				writeNode(t, root, r.Intn(next), r, fmt.Sprintf("edit %d", round))
			case 1:
				writeNode(t, root, next, r, "")
				next++
			case 2:
				// Delete the newest node only if nothing points at it; otherwise edit it.
				i := next - 1
				p := filepath.Join(root, "docs", fmt.Sprintf("n%03d.md", i))
				snap, err := index.Open(ctx, d)
				must(t, err)
				bl, err := snap.Backlinks(ctx, fmt.Sprintf("n%03d", i), 1)
				snap.Close()
				if err == nil && len(bl.Links) == 0 {
					must(t, os.Remove(p))
					next--
				}
			}
		}
		inc, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		if inc.Build != index.BuildIncremental {
			t.Fatalf("round %d: build = %s, want incremental", round, inc.Build)
		}
		incDump := dump(t, d, "")
		incPub := inc.Publication.Graph

		cold, err := index.Sync(ctx, d, index.Options{Rebuild: true})
		must(t, err)
		if cold.Build != index.BuildCold {
			t.Fatalf("rebuild = %s", cold.Build)
		}
		if got := dump(t, d, ""); got != incDump {
			t.Fatalf("round %d: incremental and cold indexes differ:\n%s", round, firstDiff(incDump, got))
		}
		cp := cold.Publication.Graph
		if cp.NodeHash != incPub.NodeHash || cp.EdgeHash != incPub.EdgeHash || cp.SourceHash != incPub.SourceHash || cp.NodeCount != incPub.NodeCount || cp.EdgeCount != incPub.EdgeCount {
			t.Fatalf("round %d: hashes differ: incremental %+v cold %+v", round, incPub, cp)
		}
		if s := cold.Summary; s.NodesAdded+s.NodesRemoved+s.NodesChanged+s.EdgesAdded+s.EdgesRemoved != 0 {
			t.Fatalf("round %d: a rebuild of the same sources reported changes: %+v", round, s)
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n inc  %s\n cold %s", i, al[i], bl[i])
		}
	}
	return "lengths differ"
}

func TestNoChangeSyncDoesNothingAndEditIsIncremental(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	root := genProject(t, 20, r)
	d := load(t, root)
	first, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	again, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if again.Build != index.BuildNone || again.Generation != first.Generation {
		t.Fatalf("no-change sync: %s generation %d, want none at %d", again.Build, again.Generation, first.Generation)
	}
	writeNode(t, root, 3, r, "changed")
	st, err := index.CheckStatus(ctx, d, "", "")
	must(t, err)
	if st.State != publication.Stale {
		t.Fatalf("status after edit = %s", st.State)
	}
	inc, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if inc.Build != index.BuildIncremental || inc.Generation != first.Generation+1 || inc.Summary.NodesChanged != 1 {
		t.Fatalf("edit: %+v", inc)
	}
	diff, err := index.ReadGenerationDiff(publication.PathsFor(d, "").Diff)
	must(t, err)
	if diff.From == nil || diff.From.Generation != first.Generation || diff.To.Generation != inc.Generation || diff.Index != inc.Publication.Index {
		t.Fatalf("diff receipt does not bind the transition: %+v", diff)
	}
}

func TestInvalidEditPublishesNothing(t *testing.T) {
	ctx := context.Background()
	root := genProject(t, 10, rand.New(rand.NewSource(2)))
	d := load(t, root)
	first, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	bad := "+++\nid = \"n001\"\nkind = \"component\"\nfamily = \"arch\"\n[relations]\ndepends_on = [\"ghost\"]\n+++\n"
	must(t, os.WriteFile(filepath.Join(root, "docs", "n001.md"), []byte(bad), 0o644))
	_, err = index.Sync(ctx, d, index.Options{})
	var pe *problem.Error
	if !errors.As(err, &pe) || pe.Problem.Code != problem.ProjectInvalid || len(problem.Errors(pe.Problems)) != 1 ||
		problem.Errors(pe.Problems)[0].Code != problem.DanglingTarget || problem.Errors(pe.Problems)[0].Line != 6 {
		t.Fatalf("want project_invalid with one positioned dangling_target, got %v %+v", err, pe)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	if snap.Info().Generation != first.Generation {
		t.Fatalf("generation %d published despite the error", snap.Info().Generation)
	}
}

// checkPublished asserts the published index is readable and holds generation gen.
func checkPublished(t *testing.T, d *project.Descriptor, gen int64) {
	t.Helper()
	snap, err := index.Open(context.Background(), d)
	must(t, err)
	defer snap.Close()
	if snap.Info().Generation != gen {
		t.Fatalf("published generation %d, want %d", snap.Info().Generation, gen)
	}
	if _, err := snap.Search(context.Background(), "storage", 5); err != nil {
		t.Fatalf("published index is not queryable: %v", err)
	}
}

// interruptedPublication publishes a generation, edits a node, lets interrupt stop the next
// publication at step, and checks that the right generation stays published (the old one
// before the rename, the new one from the rename on, even with a receipt missing) and that a
// new sync recovers to a current, queryable index.
func interruptedPublication(t *testing.T, seed int64, step string, interrupt func(d *project.Descriptor)) *project.Descriptor {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed))
	root := genProject(t, 15, r)
	d := load(t, root)
	first, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	writeNode(t, root, int(seed)+1, r, "edit")
	interrupt(d)
	want := first.Generation
	if slices.Index(index.Steps(), step) > slices.Index(index.Steps(), index.StepRename) {
		want++
	}
	checkPublished(t, d, want)
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Generation < want {
		t.Fatalf("recovery sync went back to generation %d", res.Generation)
	}
	checkPublished(t, d, res.Generation)
	if st, _ := index.CheckStatus(ctx, d, "", ""); st.State != publication.Current {
		t.Fatalf("after recovery status = %s", st.State)
	}
	return d
}

func TestFailureAtEveryPublicationStepKeepsThePreviousIndex(t *testing.T) {
	for _, step := range index.Steps() {
		t.Run(step, func(t *testing.T) {
			interruptedPublication(t, 3, step, func(d *project.Descriptor) {
				boom := errors.New("injected")
				if _, err := index.Sync(context.Background(), d, index.Options{Fault: failAt(step, boom)}); !errors.Is(err, boom) {
					t.Fatalf("sync error = %v", err)
				}
			})
		})
	}
}

// failAt is a fault hook that fails with err at step.
func failAt(step string, err error) func(string) error {
	return func(s string) error {
		if s == step {
			return err
		}
		return nil
	}
}

// killAt is a fault hook that kills its process (SIGKILL) at step.
func killAt(step string) func(string) error {
	return func(s string) error {
		if s == step {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Second)
		}
		return nil
	}
}

// runKilled runs the test helper in a child process on the project at root, told to kill
// itself at step, and checks that it was killed.
func runKilled(t *testing.T, helper, root, step string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$")
	cmd.Env = append(os.Environ(), "DOCFORGE_TEST_CHILD_ROOT="+root, "DOCFORGE_TEST_KILL_AT="+step)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed: %v", err)
	}
}

// killedChild returns the project and step a child of runKilled works on, or ok false in
// every other run of the test binary.
func killedChild(t *testing.T) (d *project.Descriptor, step string, ok bool) {
	root := os.Getenv("DOCFORGE_TEST_CHILD_ROOT")
	if root == "" {
		return nil, "", false
	}
	return load(t, root), os.Getenv("DOCFORGE_TEST_KILL_AT"), true
}

// TestKilledPublisherLeavesAPublishedIndex kills a child process (SIGKILL) at every step of a
// publication and checks the index afterwards.
func TestKilledPublisherLeavesAPublishedIndex(t *testing.T) {
	if os.Getenv("DOCFORGE_TEST_CHILD_ROOT") != "" {
		return // the child runs TestHelperKilledSync instead
	}
	for _, step := range index.Steps() {
		t.Run(step, func(t *testing.T) {
			d := interruptedPublication(t, 4, step, func(d *project.Descriptor) { runKilled(t, "TestHelperKilledSync", d.Root, step) })
			if matches, _ := filepath.Glob(filepath.Join(publication.PathsFor(d, "").Dir, "*.tmp*")); len(matches) != 0 {
				t.Fatalf("temporary files left after recovery: %v", matches)
			}
		})
	}
}

func TestHelperKilledSync(t *testing.T) {
	d, step, ok := killedChild(t)
	if !ok {
		return
	}
	_, _ = index.Sync(context.Background(), d, index.Options{Fault: killAt(step)})
	t.Fatal("the child was meant to be killed")
}

// TestConcurrentSyncAndQuery runs syncs, merges and queries at once: every open finds a
// whole generation, never one whose segments a merge retired under it.
func TestConcurrentSyncAndQuery(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := rand.New(rand.NewSource(5))
	root := genProject(t, 40, r)
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	var mu sync.Mutex // the edit goroutine's rand
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var lastGen int64
			for i := 0; i < 15; i++ {
				if g == 0 && i%3 == 0 {
					mu.Lock()
					writeNode(t, root, r.Intn(40), r, fmt.Sprintf("concurrent %d", i))
					mu.Unlock()
				}
				res, err := index.Sync(ctx, d, index.Options{})
				if err != nil {
					errs <- fmt.Errorf("sync: %w", err)
					return
				}
				if g == 1 && i%3 == 1 {
					// Merges retire segments while the others open them.
					if _, err := index.Merge(ctx, d, index.MergeOptions{}); err != nil {
						errs <- fmt.Errorf("merge: %w", err)
					}
				}
				snap, err := index.Open(ctx, d)
				if err != nil {
					errs <- fmt.Errorf("open: %w", err)
					return
				}
				if gen := snap.Info().Generation; gen < res.Generation || gen < lastGen {
					errs <- fmt.Errorf("generation went backwards: %d after %d (sync said %d)", gen, lastGen, res.Generation)
				}
				lastGen = snap.Info().Generation
				if _, err := snap.Search(ctx, "storage wal", 10); err != nil {
					errs <- fmt.Errorf("search: %w", err)
				}
				if _, err := snap.Impact(ctx, "n001", index.ImpactOptions{}); err != nil {
					errs <- fmt.Errorf("impact: %w", err)
				}
				snap.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A stamp-only edit changes no node record, yet the next incremental sync carries the new
// stamp: the relation it confirms reads confirmed, then suspect once its target changes, in
// the relation lists and in traversal alike (the first generation has no stamp at all).
func TestStampOnlyEditReachesTheIndex(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(descriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	node := func(id, rels, stamps, body string) {
		text := fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\n%s%s+++\n%s\n", id, rels, stamps, body)
		must(t, os.WriteFile(filepath.Join(root, "docs", id+".md"), []byte(text), 0o644))
	}
	node("a", "", "", "the target")
	node("b", "[relations]\ndepends_on = [\"a\"]\n", "", "the document")
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	review := func() string {
		t.Helper()
		snap, err := index.Open(ctx, d)
		must(t, err)
		defer snap.Close()
		deps, err := snap.Dependencies(ctx, "b", 10)
		must(t, err)
		if len(deps.Links) != 1 {
			t.Fatalf("dependencies of b: %+v", deps.Links)
		}
		// Impact follows depends_on backwards: the traversal reads the same state.
		imp, err := snap.Impact(ctx, "a", index.ImpactOptions{Depth: 1})
		must(t, err)
		if len(imp.Nodes) != 1 || imp.Nodes[0].ID != "b" || imp.Nodes[0].Review != deps.Links[0].Review {
			t.Fatalf("impact of a: %+v, want b reached with review %q", imp.Nodes, deps.Links[0].Review)
		}
		// Expanding b forwards reads the target's hash on the far side.
		refs, err := snap.Resolve(ctx, []string{"b"})
		must(t, err)
		ex, err := snap.Expand(ctx, refs, true, []string{"depends_on"}, 10)
		must(t, err)
		if len(ex.Hops) != 1 || ex.Hops[0].To.ID != "a" || ex.Hops[0].Review != deps.Links[0].Review {
			t.Fatalf("expansion of b: %+v, want a reached with review %q", ex.Hops, deps.Links[0].Review)
		}
		return deps.Links[0].Review
	}
	if got := review(); got != "" {
		t.Fatalf("an unstamped relation reads %q", got)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	target, err := snap.Get(ctx, "a")
	snap.Close()
	must(t, err)
	node("b", "[relations]\ndepends_on = [\"a\"]\n", fmt.Sprintf("[stamps]\na = %q\n", target.ContentHash), "the document")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental || res.Summary.NodesChanged != 0 {
		t.Fatalf("stamp-only edit: %s, %+v", res.Build, res.Summary)
	}
	if got := review(); got != "confirmed" {
		t.Fatalf("after stamping: %q, want confirmed", got)
	}
	node("a", "", "", "the target, changed")
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	if got := review(); got != "suspect" {
		t.Fatalf("after the target changed: %q, want suspect", got)
	}
}

// A sync whose sources are all as indexed but whose identity changed (the descriptor touched,
// its content the same) writes a receipt and no new generation.
func TestTouchedDescriptorRewritesOnlyTheReceipt(t *testing.T) {
	ctx := context.Background()
	root, d, _ := syncedProject(t, 10, 3)
	first, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(root, project.FileName), later, later))
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildReceipt || res.Generation != first.Generation {
		t.Fatalf("after touching the descriptor: build %s, generation %d (was %d)", res.Build, res.Generation, first.Generation)
	}
	if st, _ := index.CheckStatus(ctx, d, "", ""); st.State != publication.Current {
		t.Fatalf("status %s (%s)", st.State, st.Reason)
	}
}

// A memory filled by Remember from the published generation (a worker after its first sync
// or a cold build) is what the next edit's sync starts from; one filled for another manifest
// is not used.
func TestRememberedGenerationStartsTheNextEdit(t *testing.T) {
	ctx := context.Background()
	root, d, r := syncedProject(t, 20, 17)
	mem := index.NewMemory()
	must(t, index.Remember(ctx, d, "", mem))
	if mem.Empty() {
		t.Fatal("Remember left the memory empty")
	}
	writeNode(t, root, 3, r, "edit")
	res, err := index.Sync(ctx, d, index.Options{Memory: mem})
	must(t, err)
	if res.Build != index.BuildIncremental || !res.Ran(index.PhaseRecall) {
		t.Fatalf("the edit after Remember: build %s, phases %v; want incremental from the memory", res.Build, res.Timings)
	}
	// Another process publishes; the memory names a manifest that is no longer published.
	writeNode(t, root, 4, r, "edit")
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	writeNode(t, root, 5, r, "edit")
	res, err = index.Sync(ctx, d, index.Options{Memory: mem})
	must(t, err)
	if res.Ran(index.PhaseRecall) {
		t.Fatalf("a sync started from a memory of a manifest another publisher replaced (phases %v)", res.Timings)
	}
	if got, want := dump(t, d, ""), dump(t, coldCopy(t, root), ""); got != want {
		t.Fatalf("after the edits the generation differs from a cold build:\n%s", firstDiff(got, want))
	}
}
