package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// setResponseLimit rewrites a project's max_response_chars.
func setResponseLimit(t testing.TB, root string, limit int) {
	t.Helper()
	p := filepath.Join(root, project.FileName)
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^max_response_chars = \d+$`)
	if !re.Match(src) {
		t.Fatalf("%s sets no max_response_chars", p)
	}
	if err := os.WriteFile(p, re.ReplaceAll(src, fmt.Appendf(nil, "max_response_chars = %d", limit)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// taskPageOf is what these tests read of a task-context page.
type taskPageOf struct {
	RequestHash    string `json:"request_hash"`
	PlanHash       string `json:"plan_hash"`
	CollectionHash string `json:"collection_hash"`
	CapsuleHash    string `json:"capsule_hash"`
	Binding        struct {
		Generation     int64  `json:"generation"`
		PolicyHash     string `json:"policy_hash"`
		VocabularyHash string `json:"relation_vocabulary_hash"`
	} `json:"binding"`
	Gaps []struct {
		Kind, Limit string
	} `json:"gaps"`
	Items     []json.RawMessage `json:"items"`
	Omissions []struct {
		Position int    `json:"position"`
		NodeID   string `json:"node_id"`
		Hash     string `json:"entry_hash"`
		Reason   string `json:"reason"`
	} `json:"response_omissions"`
	Pagination Pagination `json:"pagination"`
}

// identity is the four hashes and the binding every page of a capsule carries.
func (p *taskPageOf) identity() string {
	return fmt.Sprint(p.RequestHash, p.PlanHash, p.CollectionHash, p.CapsuleHash, p.Binding)
}

func (p *taskPageOf) complete() bool {
	return p.RequestHash != "" && p.PlanHash != "" && p.CollectionHash != "" && p.CapsuleHash != "" &&
		p.Binding.Generation > 0 && p.Binding.PolicyHash != "" && p.Binding.VocabularyHash != ""
}

// walkTask follows next_cursor from the first page of a task-context request to the last and
// checks the property the contract promises: every page fits the limit and carries the same
// four hashes and binding, positions run on without a gap or an overlap, and the walk yields
// the whole stream, each node once. It returns the number of pages.
func walkTask(t *testing.T, svc *Service, b protocol.Binding, args map[string]any, maxChars int) int {
	t.Helper()
	args = maps.Clone(args)
	var first *taskPageOf
	pos, pages := 0, 0
	seen := map[string]bool{}
	for {
		raw, _ := json.Marshal(args)
		out, err := svc.Call(context.Background(), b, "docforge_get_task_context", raw)
		if err != nil {
			t.Fatalf("%v, page %d: %v: %.400s", args, pages, err, out)
		}
		if len(out) > maxChars {
			t.Fatalf("%v, page %d: %d characters over max_response_chars %d", args, pages, len(out), maxChars)
		}
		var env struct{ Result taskPageOf }
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		p := &env.Result
		if !p.complete() {
			t.Fatalf("%v, page %d: the identity is not whole: %.600s", args, pages, out)
		}
		if first == nil {
			first = p
		} else if p.identity() != first.identity() {
			t.Fatalf("%v, page %d: the identity changed: %s, then %s", args, pages, first.identity(), p.identity())
		}
		if p.Pagination.Position != pos || p.Pagination.Total != first.Pagination.Total {
			t.Fatalf("%v, page %d: at %d of %d, want %d of %d", args, pages, p.Pagination.Position, p.Pagination.Total, pos, first.Pagination.Total)
		}
		for _, it := range p.Items {
			var id struct {
				NodeID string `json:"node_id"`
			}
			json.Unmarshal(it, &id)
			if seen[id.NodeID] {
				t.Fatalf("%v: %s is on two pages", args, id.NodeID)
			}
			seen[id.NodeID] = true
		}
		for _, o := range p.Omissions {
			if seen[o.NodeID] || o.Hash == "" || o.Reason != "response_limit" {
				t.Fatalf("%v: omission %+v", args, o)
			}
			seen[o.NodeID] = true
		}
		pos += len(p.Items) + len(p.Omissions)
		pages++
		if !p.Pagination.HasMore {
			break
		}
		if len(p.Items)+len(p.Omissions) == 0 {
			t.Fatalf("%v, page %d: an empty page with more to come", args, pages)
		}
		args["cursor"] = p.Pagination.NextCursor
	}
	if pos != first.Pagination.Total || len(seen) != pos {
		t.Fatalf("%v: walked %d entries (%d nodes) of %d", args, pos, len(seen), first.Pagination.Total)
	}
	return pages
}

// Task context at limits from the smallest a descriptor accepts: each page fits, carries the
// four hashes and the binding and some evidence (the header gives way before evidence: plan,
// then prose), and pages of one entry walk the whole stream within the limit.
func TestTaskContextFitsSmallResponseLimits(t *testing.T) {
	args := map[string]any{"kind": "change", "task": "change how the shipment store writes events", "budget": 2000}
	for _, limit := range []int{project.MinResponseChars, 5000, 6144, 8192} {
		root := CopyExample(t, func(root string) { setResponseLimit(t, root, limit) })
		w := newWatched(t, root)
		raw, _ := json.Marshal(args)
		out, err := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", raw)
		var env struct{ Result taskPageOf }
		json.Unmarshal(out, &env)
		if err != nil || len(out) > limit || !env.Result.complete() || len(env.Result.Items) == 0 {
			t.Errorf("%d: %v, %d characters, %d items: %.400s", limit, err, len(out), len(env.Result.Items), out)
			continue
		}
		one := maps.Clone(args)
		one["limit"] = 1
		walkTask(t, w.svc, w.b, one, limit)
	}
}

// The cursor a page hands out is accepted by the next call with the same arguments, at any
// budget and limit: for random budgets (500 to 50,000 tokens), response limits (the smallest a
// descriptor accepts to 65,536), both log-uniform, and page limits, on two projects, walking
// the cursors yields the whole stream once, with the same hashes on every page.
func TestTaskContextCursorsWalkTheWholeStream(t *testing.T) {
	seed := uint64(rand.Uint32())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 45))
	projects := []struct {
		name, root string
		tasks      []string
	}{
		{"example", CopyExample(t, nil), []string{"change how the shipment store writes events", "normalize carrier events before they are stored"}},
		{"docforge's own code", ownCodeProject(t), []string{"change how the index publishes generations atomically", "cursor pagination of task context pages"}},
	}
	for _, p := range projects {
		w := newWatched(t, p.root)
		rounds := 20
		if p.name != "example" {
			rounds = 6 // each new limit is a new descriptor: a sync of a few hundred files
		}
		if testing.Short() {
			rounds /= 4
		}
		walks, pages := 0, 0
		for range rounds {
			limit := logUniform(rng, project.MinResponseChars, 65536)
			setResponseLimit(t, p.root, limit)
			for _, task := range p.tasks {
				// Budgets up to about four responses' worth: more pages only repeat the same cut.
				args := map[string]any{"kind": "change", "task": task, "budget": logUniform(rng, 500, min(50000, limit))}
				if rng.IntN(3) == 0 {
					args["limit"] = 1 + rng.IntN(12)
				}
				pages += walkTask(t, w.svc, w.b, args, limit)
				walks++
			}
		}
		t.Logf("%s: %d walks, %d pages", p.name, walks, pages)
	}
}

// logUniform draws from lo to hi with as many draws in each doubling: the small limits and
// budgets, where the layout cuts most, are as likely as the large ones.
func logUniform(rng *rand.Rand, lo, hi int) int {
	return min(hi, int(float64(lo)*math.Pow(float64(hi)/float64(lo), rng.Float64())))
}

// ownCodeProject is a code project of a few hundred files no test here wrote for it: the
// Go sources of DocForge's index, worker and source packages, with a go.mod.
func ownCodeProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"index", "worker", "source"} {
		fixture.Copy(t, filepath.Join("..", dir), filepath.Join(root, "code", dir), func(rel string) bool {
			return !strings.Contains(rel, "testdata") && (strings.HasSuffix(rel, ".go") || !strings.Contains(filepath.Base(rel), "."))
		})
	}
	fixture.WriteTree(t, root, map[string]string{
		"code/go.mod": "module github.com/docforge/docforge\n\ngo 1.26\n",
		project.FileName: `schema_version = 1

[project]
id = "own-code"
name = "DocForge's own code"

[sources]
content_roots = []
code_roots = ["code"]

[relations]
allowed = ["contains", "defines", "imports", "calls", "depends_on", "tested_by", "implements", "documents"]

[limits]
max_response_chars = 65536
`,
	})
	return root
}

// At the smallest max_response_chars, an error (the preflight refusal of a mutation among
// them) still fits the limit it enforces, however long the project's root.
func TestErrorsFitTheSmallestResponseLimit(t *testing.T) {
	// A root near the longest path SQLite opens (512 bytes with the index's own path).
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 18))
	copyExampleTo(t, root)
	setResponseLimit(t, root, project.MinResponseChars)
	w := newWatched(t, root)
	b := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	for _, tc := range []struct{ tool, args string }{
		{"docforge_register_changes", `{"changeset_id":"cs-small","title":"` + strings.Repeat("t", 1500) + `","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"` + strings.Repeat("x", 1500) + `"}}]}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store"}`},
		{"docforge_get_node", `{"node_id":"arch.nope"}`},
	} {
		out, err := w.svc.Call(context.Background(), b, tc.tool, []byte(tc.args))
		if len(out) > project.MinResponseChars {
			t.Errorf("%s: %d characters at max_response_chars %d (%v): %.200s", tc.tool, len(out), project.MinResponseChars, err, out)
		}
		if err != nil && strings.Contains(err.Error(), "internal") {
			t.Errorf("%s: %v", tc.tool, err)
		}
	}
}

// Diagnostics are the first field dropped, by every tool: at small limits an answer with
// diagnostics asked for is the answer without them (less what names the policy, which
// includes the diagnostics switch), never a smaller page or a compact form to make room.
func TestDiagnosticsAreTheFirstFieldDropped(t *testing.T) {
	root := CopyExample(t, func(root string) {
		// A long document, so that get_node's body is cut by the limit.
		fixture.WriteTree(t, root, map[string]string{"docs/architecture/long.md": "+++\nid = \"arch.long\"\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"Long\"\n+++\n" + strings.Repeat("A long design note about the store. ", 400)})
	})
	w := newWatched(t, root)
	plain, diag := w.b, w.b
	diag.Diagnostics = true
	// Fields that name the policy (or hash it) differ with the switch, whatever the limit.
	policyBound := regexp.MustCompile(`"(effective_policy|binding|policy_hash|capsule_hash|next_cursor|budget|diagnostics)":("[^"]*"|\{[^{}]*(\{[^{}]*\}[^{}]*)*\})`)
	tools := []struct{ tool, args string }{
		{"docforge_bootstrap", `{}`}, {"docforge_project_info", `{}`}, {"docforge_get_contract", `{}`},
		{"docforge_get_node", `{"node_id":"arch.long"}`}, {"docforge_get_logic", `{"node_id":"go:example.com/courier/store.Log.State"}`},
		{"docforge_search", `{"query":"store"}`}, {"docforge_filter_nodes", `{"family":"architecture"}`},
		{"docforge_backlinks", `{"node_id":"arch.store"}`}, {"docforge_dependencies", `{"node_id":"arch.store"}`},
		{"docforge_impact", `{"node_id":"arch.store"}`}, {"docforge_get_context", `{"node_id":"arch.store"}`},
		{"docforge_get_task_context", `{"kind":"change","task":"change how the shipment store writes events"}`},
		{"docforge_validate_project", `{}`}, {"docforge_render_status", `{}`}, {"docforge_get_generation_diff", `{}`},
		{"docforge_visualization_status", `{}`}, {"docforge_list_changesets", `{}`},
	}
	dropped := 0
	for _, limit := range []int{project.MinResponseChars, 5000, 7000} {
		setResponseLimit(t, root, limit)
		for _, tc := range tools {
			without, err := w.svc.Call(context.Background(), plain, tc.tool, []byte(tc.args))
			if err != nil {
				t.Fatalf("%s at %d: %v", tc.tool, limit, err)
			}
			with, err := w.svc.Call(context.Background(), diag, tc.tool, []byte(tc.args))
			if err != nil || len(with) > limit {
				t.Fatalf("%s at %d with diagnostics: %v, %d characters", tc.tool, limit, err, len(with))
			}
			var a, b struct{ Result json.RawMessage }
			json.Unmarshal(without, &a)
			json.Unmarshal(with, &b)
			if x, y := policyBound.ReplaceAll(a.Result, nil), policyBound.ReplaceAll(b.Result, nil); string(x) != string(y) {
				t.Errorf("%s at %d: the answer changed with diagnostics:\n%.600s\n%.600s", tc.tool, limit, x, y)
			}
			if !strings.Contains(string(with), `"diagnostics":{"diagnostics_version"`) {
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Error("no answer was large enough to drop its diagnostics: the test tests nothing")
	}
	t.Logf("%d answers dropped their diagnostics", dropped)
}

// A changeset of any size pages within the limit: its get, validate and diff pages of
// thousands of operations each fit the smallest max_response_chars, lists too long for a
// page frame come as summaries with their hashes, and the pages walk every operation.
func TestLargeChangesetsPageWithinTheLimit(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	writer := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
	n := 400
	var ops []string
	for i := range n {
		ops = append(ops, fmt.Sprintf(`{"op":"create","node_id":"arch.generated-%04d","path":"docs/architecture/generated/g%04d.md","fields":{"kind":"component","family":"architecture","title":"Generated %d"}}`, i, i, i))
	}
	out, err := w.svc.Call(context.Background(), writer, "docforge_register_changes", []byte(`{"changeset_id":"cs-large","title":"Many","operations":[`+strings.Join(ops, ",")+`]}`))
	if err != nil || !strings.Contains(string(out), `"ready"`) {
		t.Fatalf("register: %v %.300s", err, out)
	}
	for _, limit := range []int{project.MinResponseChars, 9000} {
		setResponseLimit(t, root, limit)
		call := func(tool, args string) map[string]json.RawMessage {
			t.Helper()
			out, err := w.svc.Call(context.Background(), w.b, tool, []byte(args))
			if err != nil || len(out) > limit {
				t.Fatalf("%s %s at %d: %v, %d characters: %.300s", tool, args, limit, err, len(out), out)
			}
			var env struct{ Result map[string]json.RawMessage }
			json.Unmarshal(out, &env)
			return env.Result
		}
		get := call("docforge_get_changeset", `{"changeset_id":"cs-large","limit":1}`)
		var sum listSummary
		if json.Unmarshal(get["touches_summary"], &sum) != nil || sum.Count != n || sum.Hash == "" || get["touches"] != nil {
			t.Errorf("at %d: touches %.100s, summary %s", limit, get["touches"], get["touches_summary"])
		}
		val := call("docforge_validate_changeset", `{"changeset_id":"cs-large"}`)
		if json.Unmarshal(val["paths_summary"], &sum) != nil || sum.Count != n {
			t.Errorf("at %d: paths summary %s", limit, val["paths_summary"])
		}
		// Every operation, page by page.
		seen, cursor := 0, ""
		for pages := 0; ; pages++ {
			args := `{"changeset_id":"cs-large","limit":200`
			if cursor != "" {
				args += `,"cursor":"` + cursor + `"`
			}
			pg := call("docforge_get_changeset", args+"}")
			var page []json.RawMessage
			var pagination Pagination
			json.Unmarshal(pg["operations"], &page)
			json.Unmarshal(pg["pagination"], &pagination)
			if pagination.Position != seen || len(page) == 0 && pagination.HasMore {
				t.Fatalf("at %d, page %d: %+v after %d operations", limit, pages, pagination, seen)
			}
			seen += len(page)
			if cursor = pagination.NextCursor; cursor == "" {
				break
			}
		}
		if seen != n {
			t.Errorf("at %d: paged %d of %d operations", limit, seen, n)
		}
		// The diff: pages of operations and changes, every one within the limit.
		diffs, cursor := 0, ""
		for {
			args := `{"changeset_id":"cs-large","limit":200`
			if cursor != "" {
				args += `,"cursor":"` + cursor + `"`
			}
			pg := call("docforge_get_changeset_diff", args+"}")
			var pagination Pagination
			json.Unmarshal(pg["pagination"], &pagination)
			diffs++
			if cursor = pagination.NextCursor; cursor == "" {
				break
			}
		}
		t.Logf("at %d: %d diff pages", limit, diffs)
	}
}

// The generation diff answers a shorter page where its items do not all fit, never
// result_too_large: after 1,500 records of 800-character bodies, every limit up to
// max_results pages through the whole receipt within max_response_chars.
func TestGenerationDiffPagesWhatFits(t *testing.T) {
	root := CopyExample(t, nil)
	w := newWatched(t, root)
	w.svc.Call(context.Background(), w.b, "docforge_sync", nil)
	var b strings.Builder
	body := strings.Repeat("a late scan & <an> \"event\" \u00e9 ", 30)[:800]
	for i := range 1500 {
		fmt.Fprintf(&b, "[[node]]\nid = \"req.bulk-%d\"\nkind = \"requirement\"\nfamily = \"requirements\"\ntitle = \"Bulk %d\"\nbody = %q\n\n", i, i, body)
	}
	fixture.WriteTree(t, root, map[string]string{"docs/requirements/bulk.toml": b.String()})
	if out, err := w.svc.Call(context.Background(), w.b, "docforge_sync", nil); err != nil {
		t.Fatalf("sync: %v %.300s", err, out)
	}
	d, _, _ := project.Load(root)
	for _, limit := range []int{100, 200} {
		args := map[string]any{"limit": limit}
		seen, pages := 0, 0
		for {
			raw, _ := json.Marshal(args)
			out, err := w.svc.Call(context.Background(), w.b, "docforge_get_generation_diff", raw)
			if err != nil || len(out) > d.Limits.MaxResponseChars {
				t.Fatalf("limit %d, page %d: %v, %d characters: %.300s", limit, pages, err, len(out), out)
			}
			var env struct {
				Result struct {
					Items      []json.RawMessage `json:"items"`
					Omissions  []Omission        `json:"omissions"`
					Pagination Pagination        `json:"pagination"`
				}
			}
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatal(err)
			}
			p := env.Result
			if p.Pagination.Position != seen || len(p.Items)+len(p.Omissions) == 0 && p.Pagination.HasMore {
				t.Fatalf("limit %d, page %d: %+v after %d", limit, pages, p.Pagination, seen)
			}
			seen += len(p.Items) + len(p.Omissions)
			pages++
			if !p.Pagination.HasMore {
				if seen != p.Pagination.Total || seen < 1000 {
					t.Fatalf("limit %d: %d of %d items", limit, seen, p.Pagination.Total)
				}
				break
			}
			args["cursor"] = p.Pagination.NextCursor
		}
		t.Logf("limit %d: %d pages", limit, pages)
	}
}

// A project root as long as one may be still gets every answer within the smallest
// max_response_chars (bootstrap drops its index hashes and workflow prose first); a longer
// one is refused at once with its own error, where SQLite would fail to open the index.
func TestLongProjectRoots(t *testing.T) {
	base := t.TempDir()
	root := base
	for len(root) < project.MaxRootBytes-60 {
		root = filepath.Join(root, strings.Repeat("r", 60))
	}
	root = filepath.Join(root, strings.Repeat("s", project.MaxRootBytes-len(root)-1))
	copyExampleTo(t, root)
	setResponseLimit(t, root, 4096)
	w := newWatched(t, root)
	for _, tool := range []string{"docforge_bootstrap", "docforge_get_generation_diff", "docforge_project_info", "docforge_get_contract", "docforge_list_changesets"} {
		out, err := w.svc.Call(context.Background(), w.b, tool, []byte(`{}`))
		if err != nil || len(out) > 4096 {
			t.Errorf("%s with a root of %d bytes: %v, %d characters: %.200s", tool, len(root), err, len(out), out)
		}
	}
	longer := filepath.Join(root, "deeper")
	copyExampleTo(t, longer)
	out, err := w.svc.Call(context.Background(), protocol.Binding{ProjectRoot: longer}, "docforge_get_node", []byte(`{"node_id":"arch.store"}`))
	if err == nil || !strings.Contains(string(out), "SQLite") || strings.Contains(string(out), `"internal"`) {
		t.Errorf("a root of %d bytes: %v %.300s", len(longer), err, out)
	}
}

// A capsule is laid out for its token budget and paged by the response limit, not cut to one
// response: at 65,536 characters a budget of 20,000 tokens in pages of 5 selects what an
// unbounded response selects, and at 4,096 characters every selected item comes on some page
// (quoted shorter to fit one, else a hash-identified omission), has_more until the last.
func TestTaskContextPagesItsBudget(t *testing.T) {
	selected := func(chars, budget, limit int) (items int, gaps []string) {
		root := CopyExample(t, func(root string) { setResponseLimit(t, root, chars) })
		w := newWatched(t, root)
		args := map[string]any{"kind": "change", "task": "change how the shipment store writes late events", "budget": budget}
		if limit > 0 {
			args["limit"] = limit
		}
		walkTask(t, w.svc, w.b, args, chars)
		raw, _ := json.Marshal(args)
		out, _ := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", raw)
		var env struct {
			Result struct {
				Counts struct {
					Selected int `json:"selected"`
				} `json:"counts"`
				Gaps []struct{ Kind, Limit string } `json:"gaps"`
			}
		}
		json.Unmarshal(out, &env)
		for _, g := range env.Result.Gaps {
			if g.Limit == "response" {
				gaps = append(gaps, g.Kind)
			}
		}
		return env.Result.Counts.Selected, gaps // the gaps one response cut
	}
	whole, _ := selected(1<<22, 20000, 0)
	if n, gaps := selected(65536, 20000, 5); n != whole || len(gaps) > 0 {
		t.Errorf("65,536 characters: %d items selected (unbounded: %d), gaps %v", n, whole, gaps)
	}
	if n, gaps := selected(4096, 8000, 5); len(gaps) > 0 || n == 0 {
		t.Errorf("4,096 characters: %d items selected, gaps %v", n, gaps)
	}
}
