package index_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// courier copies the example project, Go code included, into a temporary directory.
func courier(t testing.TB) *project.Descriptor {
	t.Helper()
	root := t.TempDir()
	fixture.Copy(t, filepath.Join("..", "examples", "courier"), root, func(string) bool { return true })
	return load(t, root)
}

func write(t testing.TB, d *project.Descriptor, rel, text string) {
	t.Helper()
	p := filepath.Join(d.Root, filepath.FromSlash(rel))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(text), 0o644))
}

// replaceIn replaces the first old in the project's file rel with new, and fails when the
// file does not hold old: an edit that changed nothing would prove nothing.
func replaceIn(t testing.TB, d *project.Descriptor, rel, old, new string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(d.Root, filepath.FromSlash(rel)))
	must(t, err)
	if !strings.Contains(string(src), old) {
		t.Fatalf("%s does not hold %q", rel, old)
	}
	write(t, d, rel, strings.Replace(string(src), old, new, 1))
}

func hasEdge(t testing.TB, snap *index.Snapshot, src, rel, dst string) bool {
	t.Helper()
	l, err := snap.Dependencies(context.Background(), src, 200)
	must(t, err)
	for _, link := range l.Links {
		if link.Relation == rel && link.NodeID == dst {
			return true
		}
	}
	return false
}

// Code edits that make a call's target appear and disappear in another file, add and remove
// packages and tests: after each, the incremental index must equal a cold build.
func TestCodeEditsIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	const ingest = "go:example.com/courier/normalize.Ingest"
	const extra = "go:example.com/courier/store.Extra"
	steps := []struct {
		name     string
		edit     func()
		edgeWant bool // whether Ingest calls store.Extra afterwards
	}{
		{"call a function that does not exist yet", func() {
			replaceIn(t, d, "code/normalize/normalize.go", "\t\tn++\n", "\t\tn++\n\t\tstore.Extra()\n")
		}, false},
		{"define it in a new file of the other package", func() {
			write(t, d, "code/store/extra.go", "package store\n\n// Extra is new.\nfunc Extra() { latest() }\n\nfunc latest() {}\n")
		}, true},
		{"test it from a new package", func() {
			write(t, d, "code/audit/audit_test.go", "package audit\n\nimport (\n\t\"testing\"\n\n\t\"example.com/courier/store\"\n)\n\nfunc TestExtra(t *testing.T) { store.Extra() }\n")
		}, true},
		{"remove the file that defines it", func() { must(t, os.Remove(filepath.Join(d.Root, "code/store/extra.go"))) }, false},
		{"define it again, as a method elsewhere and a func", func() {
			write(t, d, "code/store/more.go", "package store\n\nfunc (l *Log) Extra() {}\n\nfunc Extra() {}\n")
		}, true},
		{"remove a package", func() { must(t, os.RemoveAll(filepath.Join(d.Root, "code/audit"))) }, true},
	}
	for _, step := range steps {
		step.edit()
		inc, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		if inc.Build != index.BuildIncremental {
			t.Fatalf("%s: build = %s, want incremental", step.name, inc.Build)
		}
		incDump := dump(t, d, "")
		snap, err := index.Open(ctx, d)
		must(t, err)
		if got := hasEdge(t, snap, ingest, "calls", extra); got != step.edgeWant {
			t.Errorf("%s: edge Ingest calls store.Extra = %v, want %v", step.name, got, step.edgeWant)
		}
		snap.Close()
		// The merge writes the delta's code rows, Logic among them, into a new base.
		m, err := index.Merge(ctx, d, index.MergeOptions{})
		must(t, err)
		if m.Merged == 0 {
			t.Fatalf("%s: the merge merged no delta: %+v", step.name, m)
		}
		if merged := dump(t, d, ""); merged != incDump {
			t.Fatalf("%s: the merged generation differs from the layered one:\n%s", step.name, firstDiff(incDump, merged))
		}
		_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
		must(t, err)
		if coldDump := dump(t, d, ""); coldDump != incDump {
			t.Fatalf("%s: incremental and cold builds differ:\n%s", step.name, firstDiff(incDump, coldDump))
		}
	}
}

// A file whose stat changed but not its bytes (a touch, a branch switch) keeps its relation
// candidates through the delta that re-reads its neighbour: a call it makes to a function
// that does not exist yet becomes an edge when the function appears, as in a cold build.
func TestTouchedFileKeepsItsCandidates(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	replaceIn(t, d, "code/normalize/normalize.go", "\t\tn++\n", "\t\tn++\n\t\tstore.Extra()\n")
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	normalize := filepath.Join(d.Root, "code/normalize/normalize.go")
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(normalize, later, later))
	write(t, d, "code/store/other.go", "package store\n\nfunc other() {}\n")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental || res.FilesParsed != 2 {
		t.Fatalf("touch and a new file: build %s parsing %d files; want a delta parsing the new file and its package", res.Build, res.FilesParsed)
	}
	write(t, d, "code/store/extra.go", "package store\n\n// Extra is new.\nfunc Extra() {}\n")
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	snap, err := index.Open(ctx, d)
	must(t, err)
	edge := hasEdge(t, snap, "go:example.com/courier/normalize.Ingest", "calls", "go:example.com/courier/store.Extra")
	snap.Close()
	if !edge {
		t.Error("Ingest does not call store.Extra once it exists")
	}
	inc := dump(t, d, "")
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	if cold := dump(t, d, ""); cold != inc {
		t.Fatalf("incremental and cold builds differ:\n%s", firstDiff(inc, cold))
	}
}

// The adapter over this repository's own code: known nodes, relations and Logic.
func TestAdapterOnThisRepository(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.Copy(t, "..", filepath.Join(root, "code"), func(rel string) bool {
		// bench-out (ignored) holds the benchmarks' projects, GOROOT/src's copy among them.
		if strings.HasPrefix(rel, "examples") || strings.HasPrefix(rel, "bench-out") {
			return false
		}
		return strings.HasSuffix(rel, "/") || rel == "go.mod" || strings.HasSuffix(rel, ".go")
	})
	write(t, &project.Descriptor{Root: root}, "docforge.toml", `schema_version = 1
[project]
id = "self"
[sources]
content_roots = ["docs"]
code_roots = ["code"]
[relations]
allowed = ["calls", "contains", "defines", "imports", "tested_by", "implemented_by"]
[families.arch]
kinds = ["component"]
`)
	write(t, &project.Descriptor{Root: root}, "docs/index.md", "+++\nid = \"arch.index\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Index\"\n[relations]\nimplemented_by = [\"go:github.com/docforge/docforge/index.Sync\"]\n+++\nThe index.\n")
	d := load(t, root)
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	const m = "go:github.com/docforge/docforge/"
	for id, kind := range map[string]string{
		m + "index":                         "package",
		m + "index/sync.go":                 "file",
		m + "index.Sync":                    "func",
		m + "index.Snapshot":                "type",
		m + "index.Snapshot.Search":         "method",
		m + "source/golang.Extract":         "func",
		m + "source/golang.TestLogicGolden": "func",
	} {
		v, err := snap.Get(ctx, id)
		if err != nil {
			t.Errorf("node %s: %v", id, err)
			continue
		}
		if v.Kind != kind || v.Language != "go" || v.Family != "code" {
			t.Errorf("node %s: kind %s language %s family %s, want %s go code", id, v.Kind, v.Language, v.Family, kind)
		}
	}
	for _, e := range [][3]string{
		{m + "index", "contains", m + "index/sync.go"},
		{m + "index/sync.go", "defines", m + "index.Sync"},
		{m + "index/sync.go", "imports", m + "source"},
		{m + "index.syncOnce", "calls", m + "index.syncRun.scan"},
		{m + "index.syncRun.scan", "calls", m + "source.Scan"},
		{m + "index.Sync", "calls", m + "index.syncOnce"},
		{m + "index.syncOnce", "calls", m + "index.syncRun.publish"},
		{m + "index.syncRun.publish", "calls", m + "index.publish"},
		{m + "index.Snapshot.Search", "calls", m + "index.Snapshot.withReader"},
		{m + "source/golang.Extract", "tested_by", m + "source/golang.TestLogicGolden"},
	} {
		if !hasEdge(t, snap, e[0], e[1], e[2]) {
			t.Errorf("missing edge %s -%s-> %s", e[0], e[1], e[2])
		}
	}
	l, err := snap.Logic(ctx, m+"index.syncOnce")
	must(t, err)
	if len(l.Steps) < 10 || l.Steps[0].Kind != "entry" || l.Steps[len(l.Steps)-1].Kind != "exit" {
		t.Errorf("Logic of index.syncOnce: %d steps, first %v", len(l.Steps), l.Steps[:1])
	}
	if _, err := snap.Logic(ctx, m+"index"); problem.CodeOf(err) != problem.InvalidArgument {
		t.Errorf("Logic of a package: %v, want invalid_argument", err)
	}
	// Logic stays out of search: no step label is a search hit.
	hits, err := snap.Search(ctx, "removeStaleTemps", 20)
	must(t, err)
	for _, h := range hits.Hits {
		if !strings.HasPrefix(h.ID, "go:") {
			t.Errorf("search returned %s", h.ID)
		}
	}
}

// The no-AST policy: declarations from the lexical scanner (the same ones go/ast finds),
// never Logic, the policy recorded, and every Logic path refused.
func TestNoASTPolicy(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	astSnap, err := index.Open(ctx, d)
	must(t, err)
	astCode, err := astSnap.FilterNodes(ctx, index.Filter{Language: "go"}, 200)
	must(t, err)
	astSnap.Close()

	// Each policy has its own published index: none under no-AST before a no-AST sync.
	astPaths, noASTPaths := publication.PathsFor(d, ""), publication.PathsFor(d, golang.PolicyNoAST)
	if astPaths.Dir == noASTPaths.Dir {
		t.Fatalf("both policies publish into %s", astPaths.Dir)
	}
	if _, err := index.OpenWith(ctx, d, golang.PolicyNoAST); problem.CodeOf(err) != problem.IndexMissing {
		t.Fatalf("open under no-AST before its sync: %v, want index_missing", err)
	}
	// An index that holds Logic is refused under no-AST before any read (the AST index,
	// copied where the no-AST one belongs).
	must(t, os.MkdirAll(noASTPaths.Dir, 0o755))
	m, err := index.ReadManifest(astPaths.Index)
	must(t, err)
	for _, s := range m.Segments {
		data, err := os.ReadFile(filepath.Join(astPaths.Dir, s.Name))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(noASTPaths.Dir, s.Name), data, 0o644))
	}
	stale, err := index.ReadManifest(astPaths.Index)
	must(t, err)
	for i := range stale.Segments {
		sig, err := publication.Stat(filepath.Join(noASTPaths.Dir, stale.Segments[i].Name))
		must(t, err)
		sig.Generation = stale.Segments[i].Generation
		stale.Segments[i].Signature = sig
	}
	data, err := publication.Seal(stale)
	must(t, err)
	must(t, os.WriteFile(noASTPaths.Index, data, 0o644))
	if _, err := index.OpenWith(ctx, d, golang.PolicyNoAST); problem.CodeOf(err) != problem.AdapterPolicyForbidsLogic {
		t.Fatalf("open an index with Logic under no-AST: %v, want adapter_policy_forbids_logic", err)
	}
	must(t, os.RemoveAll(noASTPaths.Dir))
	astGen := astSnapGeneration(t, d)

	res, err := index.Sync(ctx, d, index.Options{Policy: golang.PolicyNoAST})
	must(t, err)
	if res.Build != index.BuildCold || res.Publication.Policy != golang.PolicyNoAST {
		t.Fatalf("policy change: build %s, policy %s; want a cold build recorded as no-ast", res.Build, res.Publication.Policy)
	}
	snap, err := index.OpenWith(ctx, d, golang.PolicyNoAST)
	must(t, err)
	defer snap.Close()
	if snap.Info().Policy != golang.PolicyNoAST {
		t.Errorf("index metadata policy = %q", snap.Info().Policy)
	}
	code, err := snap.FilterNodes(ctx, index.Filter{Language: "go"}, 200)
	must(t, err)
	var got, want []string
	for _, n := range code.Nodes {
		got = append(got, n.ID)
	}
	for _, n := range astCode.Nodes {
		want = append(want, n.ID)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("no-AST code nodes differ from AST ones:\n got %v\nwant %v", got, want)
	}
	if _, err := snap.Logic(ctx, "go:example.com/courier/store.Log.State"); problem.CodeOf(err) != problem.AdapterPolicyForbidsLogic {
		t.Errorf("Logic under no-AST: %v, want adapter_policy_forbids_logic", err)
	}
	if strings.Contains(dump(t, d, golang.PolicyNoAST), "entry|") {
		t.Error("the no-AST index holds Logic steps")
	}
	// The no-AST sync left the AST index alone, and syncs of the two policies in turn build
	// nothing: neither rebuilds the other's index.
	if g := astSnapGeneration(t, d); g != astGen {
		t.Errorf("the AST index moved from generation %d to %d under a no-AST sync", astGen, g)
	}
	for _, policy := range []string{golang.PolicyAST, golang.PolicyNoAST, golang.PolicyAST} {
		if res, err := index.Sync(ctx, d, index.Options{Policy: policy}); err != nil || res.Build != index.BuildNone {
			t.Errorf("a %s sync after the other policy's: %v, %+v; want no build", policy, err, res)
		}
	}
}

func astSnapGeneration(t *testing.T, d *project.Descriptor) int64 {
	t.Helper()
	s, err := index.Open(context.Background(), d)
	must(t, err)
	defer s.Close()
	return s.Info().Generation
}

// Extraction is keyed by content: a file whose stat changes but whose bytes do not is not
// parsed again (and alone it publishes nothing new: only the receipt's identity moves), and a
// one-file edit parses exactly that file.
func TestTouchParsesNothingAndEditParsesOneFile(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	first, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	file := filepath.Join(d.Root, "code/store/store.go")
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(file, later, later))
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildReceipt || res.Generation != first.Generation || res.FilesParsed != 0 {
		t.Fatalf("touch: build %s, generation %d (was %d), %d parsed; want a receipt-only sync", res.Build, res.Generation, first.Generation, res.FilesParsed)
	}
	if again, err := index.Sync(ctx, d, index.Options{}); err != nil || again.Build != index.BuildNone {
		t.Fatalf("after the touch: %v %v, want nothing to do", again, err)
	}
	if st, _ := index.CheckStatus(ctx, d, "", ""); st.State != publication.Current {
		t.Fatalf("after the touch the index is %s", st.State)
	}
	// Now a real edit elsewhere: the touched file is in the delta again but is not parsed.
	other := filepath.Join(d.Root, "code/normalize/normalize.go")
	src, err := os.ReadFile(other)
	must(t, err)
	must(t, os.WriteFile(other, append(src, "\nfunc Added() {}\n"...), 0o644))
	res, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental || res.FilesChanged != 2 || res.FilesParsed != 1 || res.Summary.NodesAdded != 1 {
		t.Errorf("edit: build %s, %d changed, %d parsed, %d nodes added; want incremental, 2, 1, 1",
			res.Build, res.FilesChanged, res.FilesParsed, res.Summary.NodesAdded)
	}
}

// A documentation node may point at code; a code target no code root defines is a dangling
// target, reported with its position and a remediation about code roots.
func TestDanglingCodeReferenceIsReported(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	replaceIn(t, d, "docs/architecture/store.md", "store.Log\"]", "store.Missing\"]")
	_, err := index.Sync(ctx, d, index.Options{})
	var pe *problem.Error
	if !errors.As(err, &pe) || pe.Problem.Code != problem.ProjectInvalid {
		t.Fatalf("sync: %v, want project_invalid", err)
	}
	for _, pr := range pe.Problems {
		if pr.Code == problem.DanglingTarget && strings.Contains(pr.Message, "go:example.com/courier/store.Missing") {
			if pr.Location.Path != "docs/architecture/store.md" || pr.Location.Line == 0 || !strings.Contains(pr.Remediation, "code_roots") {
				t.Errorf("problem %+v: want a position in store.md and a code_roots remediation", pr)
			}
			return
		}
	}
	t.Fatalf("no dangling_target for the code reference in %v", pe.Problems)
}
