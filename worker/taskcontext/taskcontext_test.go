package taskcontext_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/taskcontext"
)

var update = flag.Bool("update", false, "rewrite the golden capsules under testdata")

const policyHash = "sha256:test-policy"

// syncProject writes a descriptor and files into a fresh directory, syncs it and opens the
// published snapshot.
func syncProject(t testing.TB, files map[string]string) (*index.Snapshot, string) {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return open(t, root), root
}

func open(t testing.TB, root string) *index.Snapshot {
	t.Helper()
	ctx := context.Background()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatalf("sync: %v", err)
	}
	snap, err := index.Open(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap
}

// example copies the bundled example project (sources only) and opens its index.
func example(t testing.TB) *index.Snapshot {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "examples", "courier"))); err != nil {
		t.Fatal(err)
	}
	for _, derived := range []string{".docforge", "site"} {
		if err := os.RemoveAll(filepath.Join(dst, derived)); err != nil {
			t.Fatal(err)
		}
	}
	return open(t, dst)
}

func build(t testing.TB, snap *index.Snapshot, r taskcontext.Request) *taskcontext.Capsule {
	t.Helper()
	r, err := taskcontext.Normalize(r)
	if err != nil {
		t.Fatal(err)
	}
	c, err := taskcontext.Build(context.Background(), snap, r, policyHash, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render is a capsule as one JSON document: header, then every stream entry.
func render(t testing.TB, c *taskcontext.Capsule) []byte {
	t.Helper()
	var stream []any
	for _, e := range c.Stream {
		var v any
		if err := json.Unmarshal(e, &v); err != nil {
			t.Fatal(err)
		}
		stream = append(stream, v)
	}
	out, err := json.MarshalIndent(struct {
		*taskcontext.Capsule
		Stream []any `json:"stream"`
	}{c, stream}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func gaps(c *taskcontext.Capsule, kind, limit string) []taskcontext.Gap {
	var out []taskcontext.Gap
	for _, g := range c.Gaps {
		if g.Kind == kind && g.Limit == limit {
			out = append(out, g)
		}
	}
	return out
}

func items(t testing.TB, c *taskcontext.Capsule) []taskcontext.Item {
	t.Helper()
	var out []taskcontext.Item
	for _, e := range c.Stream {
		var it taskcontext.Item
		if err := json.Unmarshal(e, &it); err != nil {
			t.Fatal(err)
		}
		if it.Type == "evidence" {
			out = append(out, it)
		}
	}
	return out
}

// The example project's capsules for every task kind, from one exact focus and one lexical
// task each, are golden: a change in planning, ordering, provenance or hashing shows up as a
// diff to review (go test ./worker/taskcontext -update rewrites them).
func TestGoldenCapsulesOfTheExample(t *testing.T) {
	snap := example(t)
	cases := []struct {
		kind, focus, task string
	}{
		{taskcontext.KindChange, "arch.store", "rename the store's append path"},
		{taskcontext.KindImplementation, "req.event-order", "implement ordering of late carrier events"},
		{taskcontext.KindFailure, "go:example.com/courier/store.Log.Append", "appending an event panics after a late scan"},
		{taskcontext.KindOwnership, "data.events", "who owns the event log"},
		{taskcontext.KindTest, "req.event-order", "test that late events are ordered"},
		{taskcontext.KindOperation, "arch.notifier", "operate webhook delivery"},
		{taskcontext.KindRelease, "arch.api", "release the tracking API v2"},
	}
	for _, tc := range cases {
		for _, mode := range []string{"exact", "lexical"} {
			t.Run(tc.kind+"-"+mode, func(t *testing.T) {
				r := taskcontext.Request{Kind: tc.kind, Task: tc.task, Budget: 6000}
				if mode == "exact" {
					r.FocusNodeID = tc.focus
				}
				got := render(t, build(t, snap, r))
				path := filepath.Join("testdata", tc.kind+"-"+mode+".json")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./worker/taskcontext -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("capsule differs from %s (go test ./worker/taskcontext -update, then review the diff):\n%s", path, firstDiff(string(got), string(want)))
				}
			})
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(al), len(bl)); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// The same sources give byte-identical capsules: on one snapshot twice, and on an index
// built independently in another directory.
func TestCapsulesAreDeterministic(t *testing.T) {
	a, b := example(t), example(t)
	for _, kind := range taskcontext.Kinds() {
		r := taskcontext.Request{Kind: kind, Task: "late carrier events are stored in order"}
		first, again, other := render(t, build(t, a, r)), render(t, build(t, a, r)), render(t, build(t, b, r))
		if !bytes.Equal(first, again) || !bytes.Equal(first, other) {
			t.Errorf("%s: capsules differ between builds:\n%s", kind, firstDiff(string(first), string(other)))
		}
	}
}

func TestItemsCarryProvenanceAndPaths(t *testing.T) {
	snap := example(t)
	c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "change the event log", FocusNodeID: "data.events"})
	its := items(t, c)
	if len(its) < 3 || its[0].NodeID != "data.events" || its[0].Role != "focus" {
		t.Fatalf("the focus comes first: %+v", its)
	}
	for _, it := range its {
		if it.SourcePath == "" || !strings.HasPrefix(it.ContentHash, "sha256:") || it.Tokens <= 0 {
			t.Errorf("%s: source path, content hash and tokens are required: %+v", it.NodeID, it)
		}
		switch {
		case it.Role == "focus" && len(it.Path) != 0:
			t.Errorf("%s: a focus item is where paths start; its path is empty: %+v", it.NodeID, it.Path)
		case it.Role == "related" && (it.Path[0].NodeID != "data.events" || len(it.Path) != it.Depth+1):
			t.Errorf("%s: the path starts at the focus and has one hop per depth: %+v", it.NodeID, it.Path)
		}
		if it.Role == "related" {
			codes := map[string]bool{}
			for _, f := range it.Provenance {
				codes[f.Code] = true
			}
			if !codes[taskcontext.FactDeclared] && !codes[taskcontext.FactStatic] {
				t.Errorf("%s: a related item says whether its path was declared or extracted: %+v", it.NodeID, it.Provenance)
			}
			if codes[taskcontext.FactTransitive] != (it.Depth > 1) {
				t.Errorf("%s: transitive_path exactly beyond depth 1: %+v", it.NodeID, it.Provenance)
			}
		}
	}
}

// Path direction is relative to the preceding node; relationship-reason direction is
// relative to the item itself.
func TestDirections(t *testing.T) {
	snap, _ := syncProject(t, map[string]string{
		"docforge.toml": descriptor(`"depends_on", "relates_to", "calls"`),
		"docs/a.md":     node("a", `depends_on = ["b"]`+"\n"+`calls = ["b"]`, ""),
		"docs/b.md":     node("b", ``, ""),
	})
	c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "change b", FocusNodeID: "b"})
	its := items(t, c)
	var a *taskcontext.Item
	for i := range its {
		if its[i].NodeID == "a" {
			a = &its[i]
		}
	}
	if a == nil {
		t.Fatalf("a depends on b, so a change to b reaches a: %+v", its)
	}
	// b <-calls- a (calls sorts before depends_on): a is the stored source, b precedes it.
	if len(a.Path) != 2 || a.Path[1].Direction != "incoming" || a.Path[1].Relation != "calls" || a.Path[1].Category != graph.Execution {
		t.Errorf("path hop direction is relative to the preceding node: %+v", a.Path)
	}
	want := taskcontext.Reason{Relation: "depends_on", Category: graph.Dependency, Direction: "outgoing", NodeID: "b", Step: 2}
	if !slices.Contains(a.Reasons, want) {
		t.Errorf("a is the stored source of a depends_on b, so the reason is outgoing from a: %+v", a.Reasons)
	}
}

func descriptor(relations string) string {
	return `schema_version = 1
[project]
id = "tc"
[sources]
content_roots = ["docs"]
[relations]
allowed = [` + relations + `]
[families.arch]
kinds = ["component"]
[limits]
max_results = 200
`
}

func node(id, relations, body string) string {
	return fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Node %s\"\n[relations]\n%s\n+++\n# Node %s\n\n%s\n", id, id, relations, id, body)
}

// Every alias maps to exactly its listed category; every other name is unclassified, however
// close its spelling.
func TestAliasMapExactness(t *testing.T) {
	want := map[string]string{
		"contains": "structure", "defined_in": "structure", "defines": "structure", "owns": "structure",
		"implemented_by": "implementation", "implements": "implementation", "inherits": "implementation", "inherits_from": "implementation",
		"depends_on": "dependency", "imports": "dependency",
		"activates": "execution", "calls": "execution", "dispatches_to": "execution", "launches": "execution",
		"reads": "data", "writes": "data",
		"documents": "evidence", "governs": "evidence", "proves": "evidence", "tested_by": "evidence", "verifies": "evidence",
		"relates_to": "context",
	}
	if got := graph.CategoryMap(); len(got) != len(want) {
		t.Errorf("the alias map has %d entries, want exactly %d: %v", len(got), len(want), got)
	}
	for rel, cat := range want {
		if got := graph.Category(rel); got != cat {
			t.Errorf("graph.Category(%q) = %q, want %q", rel, got, cat)
		}
	}
	for _, rel := range []string{"supersedes", "depends-on", "dependsOn", "DEPENDS_ON", "Calls", "call", "test", "tests", "tested-by",
		"implemented", "relates", "related_to", "", " contains", "contains "} {
		if got := graph.Category(rel); got != graph.Unclassified {
			t.Errorf("graph.Category(%q) = %q, want unclassified", rel, got)
		}
	}
}

// An unclassified relation stays present, raw, with its limitation.
func TestUnclassifiedRelationsStayRaw(t *testing.T) {
	snap := example(t)
	c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindRelease, Task: "release", FocusNodeID: "dec.event-sourcing"})
	found := false
	for _, it := range items(t, c) {
		for _, h := range it.Path {
			if h.Relation == "supersedes" {
				found = true
				if h.Category != graph.Unclassified {
					t.Errorf("supersedes is unclassified: %+v", h)
				}
				if !slices.ContainsFunc(it.Provenance, func(f taskcontext.Fact) bool { return f.Code == taskcontext.FactUnclassified }) {
					t.Errorf("%s: reached through supersedes without the unclassified_relation limitation: %+v", it.NodeID, it.Provenance)
				}
			}
		}
	}
	if !found {
		t.Fatalf("the example's supersedes relation does not appear in the capsule:\n%s", render(t, c))
	}
}

func TestRequestsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    taskcontext.Request
		want string
	}{
		{"unknown kind", taskcontext.Request{Kind: "refactor", Task: "x"}, "not a task kind"},
		{"empty task", taskcontext.Request{Kind: "change", Task: "  "}, "task is required"},
		{"long task", taskcontext.Request{Kind: "change", Task: strings.Repeat("é", taskcontext.MaxTaskChars+1)}, "at most 10000"},
		{"negative budget", taskcontext.Request{Kind: "change", Task: "x", Budget: -1}, "budget"},
		{"huge budget", taskcontext.Request{Kind: "change", Task: "x", Budget: taskcontext.MaxBudget + 1}, "ceiling"},
	} {
		_, err := taskcontext.Normalize(tc.r)
		if problem.CodeOf(err) != problem.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want invalid_argument mentioning %q", tc.name, err, tc.want)
		}
	}
	r, err := taskcontext.Normalize(taskcontext.Request{Kind: "test", Task: strings.Repeat("é", taskcontext.MaxTaskChars)})
	if err != nil || r.Budget != taskcontext.DefaultBudget {
		t.Errorf("a task of exactly the ceiling is accepted with the default budget: %v %+v", err, r.Budget)
	}
}

// A generated graph hits each ceiling and each gap kind appears exactly where it must.
func TestCeilingsAndGaps(t *testing.T) {
	files := map[string]string{"docforge.toml": descriptor(`"depends_on", "relates_to"`)}
	var b strings.Builder
	// hub has 5,200 dependents: a change to it reaches more than the 1,000-item ceiling, and
	// their words are too common for a lexical focus to rank.
	// 1,500 of them are new and 1,700 widgets, together past the scoring budget too.
	for i := 0; i < 5200; i++ {
		extra := ""
		switch {
		case i < 1500:
			extra = " new"
		case i < 3200:
			extra = " widget"
		}
		fmt.Fprintf(&b, "[[node]]\nid = \"m%04d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"M %d\"\nbody = \"common dependent%s\"\n[node.relations]\ndepends_on = [\"hub\"]\n", i, i, extra)
	}
	files["docs/dependents.toml"] = b.String()
	files["docs/hub.md"] = node("hub", "", "the hub")
	// wide depends on 400 nodes, each depending on the same 300 leaves: 120,400 edges
	// within depth 2, past the 100,000-edge work ceiling, with only 700 nodes.
	var targets []string
	for j := 0; j < 300; j++ {
		targets = append(targets, fmt.Sprintf("%q", fmt.Sprintf("t%03d", j)))
	}
	leaves := strings.Builder{}
	for j := 0; j < 300; j++ {
		fmt.Fprintf(&leaves, "[[node]]\nid = \"t%03d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"T %d\"\nbody = \"leaf\"\n", j, j)
	}
	files["docs/leaves.toml"] = leaves.String()
	var mids []string
	for part := 0; part < 4; part++ {
		var m strings.Builder
		for i := part * 100; i < part*100+100; i++ {
			fmt.Fprintf(&m, "[[node]]\nid = \"w%03d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"W %d\"\nbody = \"mid\"\n[node.relations]\ndepends_on = [%s]\n", i, i, strings.Join(targets, ", "))
			mids = append(mids, fmt.Sprintf("%q", fmt.Sprintf("w%03d", i)))
		}
		files[fmt.Sprintf("docs/mids%d.toml", part)] = m.String()
	}
	files["docs/wide.md"] = node("wide", "depends_on = ["+strings.Join(mids, ", ")+"]", "wide")
	files["docs/lonely.md"] = node("lonely", "", "a node nothing relates to")
	snap, _ := syncProject(t, files)

	t.Run("result", func(t *testing.T) {
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "change the hub", FocusNodeID: "hub", Budget: taskcontext.MaxBudget})
		if g := gaps(c, taskcontext.GapIncomplete, taskcontext.LimitResult); len(g) != 1 || g[0].Step != 2 {
			t.Errorf("want one result-limit gap at step 2: %+v", c.Gaps)
		}
		if c.Counts.Collected != taskcontext.MaxEvidence {
			t.Errorf("the collection stops at the ceiling: %d", c.Counts.Collected)
		}
		if len(gaps(c, taskcontext.GapIncomplete, taskcontext.LimitWork)) != 0 {
			t.Errorf("5,200 edges are within the work ceiling: %+v", c.Gaps)
		}
	})
	t.Run("work", func(t *testing.T) {
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindFailure, Task: "wide fails", FocusNodeID: "wide", Budget: 600})
		if g := gaps(c, taskcontext.GapIncomplete, taskcontext.LimitWork); len(g) != 1 || g[0].Step != 2 {
			t.Errorf("want one work-limit gap at step 2: %+v", c.Gaps)
		}
		if c.Counts.EdgesExamined != taskcontext.MaxExaminedEdges {
			t.Errorf("examined %d edges, want exactly the ceiling", c.Counts.EdgesExamined)
		}
		if len(gaps(c, taskcontext.GapIncomplete, taskcontext.LimitResult)) != 0 || c.Counts.Collected != 701 {
			t.Errorf("700 nodes and the focus fit the item ceiling: %d %+v", c.Counts.Collected, c.Gaps)
		}
		// The 600-token budget holds little: the rest is counted in a token-limit gap, the
		// best of it listed as omissions, so nothing is lost silently.
		tok := gaps(c, taskcontext.GapIncomplete, taskcontext.LimitToken)
		if len(tok) != 1 || tok[0].Count != c.Counts.TokenOmitted || c.Counts.Selected+c.Counts.TokenOmitted != c.Counts.Collected || c.Budget.Used > 600 {
			t.Errorf("token budgeting: %+v %+v %+v", tok, c.Counts, c.Budget)
		}
		if len(c.Stream) != c.Counts.Selected+c.Counts.OmissionsListed || c.Counts.OmissionsListed == 0 {
			t.Errorf("the stream is the selected evidence and the listed omissions: %d entries, %+v", len(c.Stream), c.Counts)
		}
		// Below the smallest capsule the budget is refused, saying what would do.
		r, _ := taskcontext.Normalize(taskcontext.Request{Kind: taskcontext.KindFailure, Task: "wide fails", FocusNodeID: "wide", Budget: 100})
		if _, err := taskcontext.Build(context.Background(), snap, r, policyHash, 0); problem.CodeOf(err) != problem.InvalidArgument || !strings.Contains(err.Error(), "at least") {
			t.Errorf("a budget below the header: %v", err)
		}
	})
	t.Run("undeclared and empty", func(t *testing.T) {
		// The project declares no evidence or implementation relation: a test task says so.
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindTest, Task: "test lonely", FocusNodeID: "lonely"})
		var cats []string
		for _, g := range gaps(c, taskcontext.GapUndeclaredCategory, "") {
			cats = append(cats, fmt.Sprintf("%d:%s", g.Step, g.Category))
		}
		// Each undeclared category is reported once, at the first step that wants it.
		if want := []string{"2:evidence", "2:implementation", "4:execution"}; !slices.Equal(cats, want) {
			t.Errorf("undeclared categories %v, want %v", cats, want)
		}
		// A declared category with nothing on it: completed search, nothing selected.
		c = build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "change lonely", FocusNodeID: "lonely"})
		var empty []string
		for _, g := range gaps(c, taskcontext.GapNoEvidence, "") {
			for _, cat := range g.Categories {
				empty = append(empty, fmt.Sprintf("%d:%s", g.Step, cat))
			}
		}
		if want := []string{"2:dependency", "3:dependency", "4:context"}; !slices.Equal(empty, want) {
			t.Errorf("empty searches %v, want %v (gaps %+v)", empty, want, c.Gaps)
		}
		if len(gaps(c, taskcontext.GapIncomplete, taskcontext.LimitWork))+len(gaps(c, taskcontext.GapIncomplete, taskcontext.LimitResult)) != 0 {
			t.Errorf("nothing was cut short: %+v", c.Gaps)
		}
	})
	t.Run("no focus", func(t *testing.T) {
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "zyxwvut qqqq"})
		if g := gaps(c, taskcontext.GapNoEvidence, ""); len(g) != 1 || g[0].Step != 1 || c.Counts.Collected != 0 {
			t.Errorf("a lexical focus that matches nothing is a no-evidence gap at step 1: %+v", c.Gaps)
		}
	})
	t.Run("common terms", func(t *testing.T) {
		// "common" is in 5,200 nodes, past the scoring budget: the focus is ranked on the rarer
		// terms, and the capsule says which term it left out.
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "common lonely"})
		its := items(t, c)
		if len(its) == 0 || its[0].NodeID != "lonely" || c.FocusMatch != "any" {
			t.Fatalf("focus %+v (match %q)", its, c.FocusMatch)
		}
		want := []index.TermUse{{Term: "common", Nodes: 3000, AtLeast: true}, {Term: "lonely", Nodes: 1, Used: true}, {Term: "commonlonely"}}
		if !slices.Equal(c.FocusTerms, want) {
			t.Errorf("focus terms %+v, want %+v", c.FocusTerms, want)
		}
		if g := gaps(c, taskcontext.GapIncomplete, taskcontext.LimitWork); len(g) != 1 || g[0].Step != 1 || !strings.Contains(g[0].Detail, "common") {
			t.Errorf("a left-out term is a work gap of the focus step: %+v", c.Gaps)
		}
		// Of two terms that cannot both be ranked by, the word saying what to do ("new") gives
		// way to the subject ("widget"), though it is the rarer.
		c = build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "add a new widget"})
		want = []index.TermUse{{Term: "add"}, {Term: "new", Nodes: 1500}, {Term: "widget", Nodes: 1700, Used: true}, {Term: "newwidget"}}
		if !slices.Equal(c.FocusTerms, want) {
			t.Errorf("focus terms %+v, want %+v", c.FocusTerms, want)
		}
		// Every term too common, and the nodes holding both too: no focus, and the gap says why.
		c = build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "common dependent"})
		if g := gaps(c, taskcontext.GapIncomplete, taskcontext.LimitWork); len(g) != 1 || g[0].Step != 1 || c.Counts.Collected != 0 || c.FocusMatch != "too_common" {
			t.Errorf("too common to rank: %+v %+v", c.FocusMatch, c.Gaps)
		}
	})
	t.Run("unknown focus", func(t *testing.T) {
		r, _ := taskcontext.Normalize(taskcontext.Request{Kind: taskcontext.KindChange, Task: "x", FocusNodeID: "nope"})
		if _, err := taskcontext.Build(context.Background(), snap, r, policyHash, 0); problem.CodeOf(err) != problem.NodeNotFound {
			t.Errorf("an unknown focus_node_id is node_not_found, got %v", err)
		}
	})
}

// A test task reaches the tests of a function through its callers: TestHandle calls Handle,
// which calls parse; the focus is parse, which no test calls directly.
func TestTestKindReachesTestsThroughCallers(t *testing.T) {
	snap, _ := syncProject(t, map[string]string{
		"docforge.toml":       fixture.GoModuleDescriptor("tk", false),
		"go.mod":              "module example.com/tk\n",
		"p/p.go":              "package p\n\nfunc parse() {}\n\n// Handle handles.\nfunc Handle() { parse() }\n",
		"p/p_test.go":         "package p\n\nimport \"testing\"\n\nfunc TestHandle(t *testing.T) { Handle() }\n",
		"q/unrelated_test.go": "package q\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
	})
	c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindTest, Task: "cover parse", FocusNodeID: "go:example.com/tk/p.parse"})
	var ids []string
	for _, it := range items(t, c) {
		ids = append(ids, it.NodeID)
	}
	if !slices.Contains(ids, "go:example.com/tk/p.TestHandle") {
		t.Errorf("the test of parse's caller is not in the capsule: %v", ids)
	}
	if slices.Contains(ids, "go:example.com/tk/q.TestOther") {
		t.Errorf("an unrelated test is: %v", ids)
	}
}

// The whole response, as the CLI and an MCP client receive it, is bounded by the budget is
// tested in the worker (envelope included); here the capsule alone stays within it at every
// budget, and a larger budget holds at least as much evidence.
func TestBudgetBoundsTheCapsule(t *testing.T) {
	snap := example(t)
	prev := -1
	for _, budget := range []int{500, 2000, 8000} {
		c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "late carrier events are stored in order", Budget: budget})
		header, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		size := len(header)
		for _, e := range c.Stream {
			size += len(e) + 1
		}
		if size > budget*4 || c.Budget.Used > budget {
			t.Errorf("budget %d: the capsule is %d bytes (%d tokens), used says %d", budget, size, (size+3)/4, c.Budget.Used)
		}
		if len(c.Stream) < prev {
			t.Errorf("budget %d holds %d entries, fewer than a smaller budget's %d", budget, len(c.Stream), prev)
		}
		prev = len(c.Stream)
	}
}

// A lexical plan's terms are the search index's: identifiers whole and by parts, prose
// stemmed, stopwords dropped, and two adjacent words joined, since prose often writes an
// identifier apart ("event store" for EventStore, "JSON-RPC" for jsonrpc).
func TestLexicalTerms(t *testing.T) {
	tests := []struct {
		task      string
		want, not []string
	}{
		{
			task: "Purge the event store when a JSON-RPC message arrives (see GetDiscussionComments)",
			want: []string{"purg", "event", "stor", "json", "rpc", "messag", "arriv", "getdiscussioncomments", "discussion", "comment", "eventstore", "jsonrpc"},
			not:  []string{"the", "when", "a", "theevent", "seegetdiscussioncomments", "rpcmessage"},
		},
		{
			// Words are joined within a phrase: a hyphenated compound with itself only, and
			// never across punctuation.
			task: "Add a new read-only tool that lists labels, prompts and resources. Cache hits count",
			want: []string{"readonly", "listslabels", "cachehits", "hitscount"},
			not:  []string{"newread", "onlytool", "labelsprompts", "resourcescache"},
		},
	}
	for _, tt := range tests {
		p := taskcontext.PlanFor(taskcontext.Request{Kind: taskcontext.KindChange, Task: tt.task, Budget: 8000}, nil)
		got := p.Steps[0].Terms
		for _, want := range tt.want {
			if !slices.Contains(got, want) {
				t.Errorf("%q: terms %v lack %q", tt.task, got, want)
			}
		}
		for _, stop := range tt.not {
			if slices.Contains(got, stop) {
				t.Errorf("%q: terms %v hold %q", tt.task, got, stop)
			}
		}
	}
}

// A declaration's item quotes its source lines and signature; a document's its best section;
// once the file changes behind the generation, the item says so and quotes nothing.
func TestEvidenceContent(t *testing.T) {
	snap, root := syncProject(t, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("ec", true),
		"go.mod":        "module example.com/ec\n",
		"w/wal.go":      "package w\n\n// Replay reads the log back.\nfunc Replay(from int,\n\tto int) error {\n\treturn nil\n}\n",
		"docs/d.md":     "# Design\n\n## Intro\n\nNothing here.\n\n## Recovery\n\nOn start the log is replayed: see `w.Replay`.\n",
	})
	c := build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "replay the log on recovery", FocusNodeID: "go:example.com/ec/w.Replay"})
	byID := map[string]taskcontext.Item{}
	for _, it := range items(t, c) {
		byID[it.NodeID] = it
	}
	fn, doc := byID["go:example.com/ec/w.Replay"], byID["d"]
	if fn.Source != "func Replay(from int,\n\tto int) error {\n\treturn nil\n}" || fn.Line != 4 || fn.EndLine != 7 || fn.SourceEnd != 7 || fn.Excerpt != "Replay reads the log back." {
		t.Errorf("the declaration's content: %+v", fn)
	}
	if doc.Section != "recovery" || !strings.Contains(doc.Excerpt, "replayed") {
		t.Errorf("the document's best section: %q %q", doc.Section, doc.Excerpt)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "w", "wal.go"), []byte("package w\n\nfunc Other() {}\n"), 0o644))
	c = build(t, snap, taskcontext.Request{Kind: taskcontext.KindChange, Task: "replay the log on recovery", FocusNodeID: "go:example.com/ec/w.Replay"})
	it := items(t, c)[0]
	codes := map[string]bool{}
	for _, f := range it.Provenance {
		codes[f.Code] = true
	}
	if it.Source != "" || it.Signature != "" || !codes[taskcontext.FactSourceChanged] {
		t.Errorf("an edited file is not quoted and the item says why: %+v", it)
	}
}

// A word that names a family of one file's declarations (finishes: every finish_*) does not
// make the focus that file's alone: a file gives at most a few focus nodes, and another file
// the task's words match is in the focus too.
func TestFocusSpansFiles(t *testing.T) {
	var parser strings.Builder
	for i := range 60 {
		fmt.Fprintf(&parser, "def finish_part_%d(reader):\n    \"\"\"Finishes reading a string value from the byte stream.\"\"\"\n    return reader\n\n\n", i)
	}
	snap, _ := syncProject(t, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("spans", false),
		"app/parser.py": parser.String(),
		"app/limits.py": "def add_overflow_safe(a, b):\n    \"\"\"Adds lengths of a string value without overflow, so reading finishes.\"\"\"\n    return a + b\n",
	})
	c := build(t, snap, taskcontext.Request{Kind: "failure", Task: "reading a string value from a byte stream never finishes", Budget: 8000})
	found := false
	for _, e := range c.Stream {
		var entry struct {
			NodeID string `json:"node_id"`
			Role   string `json:"role"`
		}
		if err := json.Unmarshal(e, &entry); err != nil {
			t.Fatal(err)
		}
		found = found || entry.NodeID == "py:app/limits.py/add_overflow_safe" && entry.Role == "focus"
	}
	if !found {
		t.Errorf("the other file's function is not in the focus")
	}
}
