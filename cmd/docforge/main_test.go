package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "docforge-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "docforge")
	// docforge-mcp beside it, as installed: mcp-config names it.
	if out, err := exec.Command("go", "build", "-o", dir, ".", "../docforge-mcp").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func docforge(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

func TestCommandsOnTheExample(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	sub := filepath.Join(root, "docs", "architecture")
	tests := []struct {
		name string
		args []string
		code int
		want string // substring of stdout
	}{
		{"validate_passes", []string{"validate"}, 0, "valid: 25 sources"},
		{"sync_builds_cold", []string{"sync"}, 0, "published generation 1 (cold build"},
		{"sync_again_is_a_no_op", []string{"sync"}, 0, "index is current: generation 1, 59 nodes"},
		{"status_is_current", []string{"status"}, 0, "current"},
		{"diff_lists_the_first_generation", []string{"diff", "--limit", "3"}, 0, "+ node "},
		{"context_pages", []string{"context", "arch.store", "--limit", "2"}, 0, "next page: --cursor"},
		{"context_needs_a_focus", []string{"context"}, 2, ""},
		{"search_ranks_text_matches", []string{"search", "late events", "--limit", "3"}, 0, "req.event-order"},
		{"search_exact_id_first", []string{"search", "arch.store"}, 0, " 1. arch.store"},
		{"get_shows_relations", []string{"get", "req.audit"}, 0, "-> implemented_by arch.store"},
		{"filter_by_family_and_tag", []string{"filter", "--family", "requirements", "--tag", "security"}, 0, "req.auth"},
		{"backlinks", []string{"backlinks", "arch.store"}, 0, "<- governs dec.event-sourcing"},
		{"deps", []string{"deps", "arch.api"}, 0, "-> implements iface.tracking-api"},
		{"impact_is_bounded_and_says_so", []string{"impact", "arch.store", "--limit", "2"}, 0, "truncated by result limit"},
		{"unknown_node_is_a_usage_error", []string{"get", "no.such"}, 2, ""},
		{"code_backlinks_show_calls_tests_and_docs", []string{"backlinks", "go:example.com/courier/normalize.Normalize"}, 0, "<- implemented_by arch.normalizer"},
		{"logic_of_a_method", []string{"logic", "go:example.com/courier/store.Log.State"}, 0, "s1   L32    condition     if len(l.events) == 0"},
		{"logic_of_a_package_is_a_usage_error", []string{"logic", "go:example.com/courier/store"}, 2, ""},
		{"no_ast_refuses_logic", []string{"logic", "--no-ast", "go:example.com/courier/store.Log.State"}, 2, ""},
		{"no_ast_still_has_declarations", []string{"get", "--no-ast", "go:example.com/courier/store.Log.State"}, 0, "kind method, family code"},
		{"task_context_lexical", []string{"task-context", "--kind", "change", "rename the store append path"}, 0, "1 focus by the task's words: ids [], terms [renam stor append path storeappend appendpath]"},
		{"task_context_follows_the_kind", []string{"task-context", "--kind", "change", "rename the store append path"}, 0, "follow incoming dependency, execution, data, depth 3"},
		{"task_context_exact_focus_paths", []string{"task-context", "--kind", "test", "--focus", "req.event-order", "cover", "ordering"}, 0, "path: req.event-order -tested_by-> test.ingest-order"},
		{"task_context_budget_gap", []string{"task-context", "--kind", "change", "--budget", "700", "--focus", "arch.store", "rename"}, 0, "[token limit]"},
		{"task_context_budget_below_the_header", []string{"task-context", "--kind", "change", "--budget", "200", "--focus", "arch.store", "rename"}, 2, ""},
		{"task_context_needs_a_kind", []string{"task-context", "rename"}, 2, ""},
		{"task_context_unknown_kind", []string{"task-context", "--kind", "refactor", "rename"}, 2, ""},
		{"unknown_command", []string{"frobnicate"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := docforge(t, sub, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
}

// A query's --json is the tool's envelope, as an MCP client receives it.
func TestJSONOutputIsMachineReadable(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	out, _, code := docforge(t, root, "search", "--json", "retention")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v struct {
		Generation int64 `json:"revision"`
		Result     struct {
			Hits []struct {
				ID string `json:"id"`
			} `json:"hits"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Generation != 1 || len(v.Result.Hits) == 0 {
		t.Fatalf("bad JSON (%v): %s", err, out)
	}
}

func TestValidateBrokenCopiesExitsOneWithPositions(t *testing.T) {
	out, _, code := docforge(t, ".", "validate", "--project-root", "../../examples/testdata/broken-nodes")
	if code != 1 || !strings.Contains(out, "docs/store.md:10:15: error dangling_target") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestInitScaffoldsAProjectThatSyncs(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := docforge(t, dir, "init", "--id", "demo"); code != 0 {
		t.Fatalf("init: %d %s", code, e)
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || !strings.Contains(string(ignore), ".docforge/") {
		t.Fatalf(".gitignore: %q %v", ignore, err)
	}
	if out, e, code := docforge(t, dir, "sync"); code != 0 || !strings.Contains(out, "1 nodes") {
		t.Fatalf("sync after init: %d %s %s", code, out, e)
	}
	if _, _, code := docforge(t, dir, "init"); code != 2 {
		t.Fatalf("second init exit %d, want 2 (never overwrite)", code)
	}
}

// TestInitSaysWhatItDidToGitignore checks that init tells a new .gitignore from the user's own
// one it appended to, and leaves one that already ignores the state directory alone.
func TestInitSaysWhatItDidToGitignore(t *testing.T) {
	tests := []struct {
		name     string
		existing string // "" for no .gitignore
		say      string
		want     string
	}{
		{"none", "", "created .gitignore (ignores .docforge/)", ".docforge/\n"},
		{"the user's own", "node_modules/", "appended .docforge/ to .gitignore", "node_modules/\n.docforge/\n"},
		{"already listed", "bin/\n.docforge/\n", "", "bin/\n.docforge/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.existing != "" {
				if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, e, code := docforge(t, dir, "init", "--id", "demo")
			if code != 0 {
				t.Fatalf("init: %d %s", code, e)
			}
			if tt.say != "" && !strings.Contains(out, tt.say) {
				t.Errorf("output does not say %q:\n%s", tt.say, out)
			}
			if strings.Contains(out, "gitignore") != (tt.say != "") {
				t.Errorf("output about .gitignore, want %q:\n%s", tt.say, out)
			}
			if tt.existing != "" && strings.Contains(out, "created .gitignore") {
				t.Errorf("says it created the user's .gitignore:\n%s", out)
			}
			got, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
			if err != nil || string(got) != tt.want {
				t.Errorf(".gitignore = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestNoProjectIsAClearUsageError(t *testing.T) {
	_, errOut, code := docforge(t, t.TempDir(), "sync")
	if code != 2 || !strings.Contains(errOut, "descriptor_not_found") || !strings.Contains(errOut, "fix:") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// docforge render writes every view and its receipt; --status and --deep report the states
// and exit 1 unless every view is current.
func TestRenderCommand(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	out, stderr, code := docforge(t, root, "render")
	if code != 0 || !strings.Contains(out, "wrote site/architecture.html: view architecture, 16 nodes") || !strings.Contains(out, "wrote site/requirements.html") {
		t.Fatalf("render: %d %s %s", code, out, stderr)
	}
	if out, _, code = docforge(t, root, "render", "--status"); code != 0 || strings.Count(out, " current") != 2 {
		t.Errorf("status after render: %d %s", code, out)
	}
	node := filepath.Join(root, "docs", "architecture", "store.md")
	b, _ := os.ReadFile(node)
	os.WriteFile(node, append(b, []byte("\nMore.\n")...), 0o644)
	if out, _, code = docforge(t, root, "render", "--status", "--view", "architecture"); code != 1 || !strings.Contains(out, "stale") || !strings.Contains(out, "sources changed") {
		t.Errorf("status after an edit: %d %s", code, out)
	}
	if out, _, code = docforge(t, root, "render", "--deep", "--json"); code != 1 || !strings.Contains(out, `"identical": false`) {
		t.Errorf("deep after an edit: %d %s", code, out)
	}
	if _, stderr, code = docforge(t, root, "render", "--view", "nope"); code != 2 || !strings.Contains(stderr, `no view "nope"`) {
		t.Errorf("unknown view: %d %s", code, stderr)
	}
}

// init in a tree written for another tool adopts it without editing a document, prints what
// the first sync will find, and that sync succeeds.
func TestInitAdoptsAnExistingTree(t *testing.T) {
	root := fixture.Temp(t, "../../examples/testdata/adopt-docusaurus")
	out, stderr, code := docforge(t, root, "init", "--id", "courier")
	for _, want := range []string{"existing docusaurus documentation tree", "content roots: docs",
		"front matter: 0 TOML, 4 YAML, 0 none", "families: docs, guides, storage", "nodes: 4; links: 6 found, 5 relations",
		"docs/guides/setup.md:6:45: warning dangling_link", "created docforge.toml", "next: run 'docforge sync'"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Fatalf("init exit %d: %s", code, stderr)
	}
	if out, e, code := docforge(t, root, "sync"); code != 0 || !strings.Contains(out, "4 nodes, 5 edges") {
		t.Fatalf("sync after init: %d %s %s", code, out, e)
	}
	if out, _, code := docforge(t, root, "deps", "intro"); code != 0 || !strings.Contains(out, "-> relates_to storage/wal  Write-ahead log  [storage/page]  at #segments") {
		t.Errorf("dependencies: %d %s", code, out)
	}

	// Errors in the documents are reported with positions; the descriptor stays, exit 1.
	broken := fixture.Temp(t, "../../examples/testdata/adopt-github")
	os.WriteFile(filepath.Join(broken, "docs", "storage.md"), []byte("---\ntitle: [unclosed\n---\n"), 0o644)
	out, _, code = docforge(t, broken, "init")
	if code != 1 || !strings.Contains(out, "docs/storage.md:2:1: error malformed_front_matter") || !strings.Contains(out, "next: fix the errors above") {
		t.Errorf("init on a broken tree: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(broken, "docforge.toml")); err != nil {
		t.Errorf("descriptor not kept: %v", err)
	}
}

// init in a Go module switches the Go adapter on and takes every Markdown file outside
// dependencies and test inputs; another tool's TOML is skipped and counted, the descriptor is
// never a source, and a module without Markdown is a valid code-only project.
func TestInitAdoptsAGoModuleWhole(t *testing.T) {
	cases := []struct {
		name      string
		files     map[string]string
		want      []string
		absent    []string
		nodes     []string
		noContent bool
	}{
		{
			name: "module with docs",
			files: map[string]string{
				"go.mod":             "module example.com/m\n\ngo 1.22\n",
				"README.md":          "# M\n\nSee [the store](store/README.md).\n",
				"CONTRIBUTING.md":    "# Contributing\n",
				"store/README.md":    "# Store\n",
				"store/store.go":     "// Package store keeps things.\npackage store\n\n// Put stores v.\nfunc Put(v int) int { return v }\n\n// Limit caps what Put keeps.\nvar Limit = 10\n\nconst (\n\t// Small is a size.\n\tSmall = 1\n\tLarge = 2\n)\n",
				"store/put_test.go":  "package store\n\nimport \"testing\"\n\nfunc TestPut(t *testing.T) { Put(1) }\n",
				"revive.toml":        "[rule.exported]\nseverity = \"warning\"\n",
				"vendor/x/README.md": "# vendored\n", "store/testdata/fixture.md": "# fixture\n",
			},
			want:   []string{"the Go module example.com/m", "code roots: . (Go: 1 packages, 2 files", "content roots: .", "files: 3 Markdown", "skipped: 1 TOML files without [[node]] tables"},
			absent: []string{": error", "vendored"},
			nodes: []string{"index", "contributing", "store", "go:example.com/m/store.Put", "go:example.com/m/store.TestPut",
				"go:example.com/m/store.Limit", "go:example.com/m/store.Small", "go:example.com/m/store.Large"},
		},
		{
			// A repository whose module lives in a folder is a Go repository too.
			name:   "module in a folder",
			files:  map[string]string{"README.md": "# Repo\n", "server/go.mod": "module example.com/srv\n", "server/main.go": "package main\n\nfunc main() {}\n", "web/testdata/go.mod": "module example.com/fixture\n"},
			want:   []string{"the Go module example.com/srv", "code roots: . (Go: 1 packages, 1 files", "content roots: ."},
			absent: []string{": error"},
			nodes:  []string{"index", "go:example.com/srv.main"},
		},
		{
			name:      "code only",
			files:     map[string]string{"go.mod": "module example.com/c\n", "c.go": "package c\n\nfunc F() {}\n"},
			want:      []string{"code roots: . (Go: 1 packages, 1 files"},
			absent:    []string{"content roots"},
			nodes:     []string{"go:example.com/c.F", "go:example.com/c"},
			noContent: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			fixture.WriteTree(t, root, tc.files)
			out, stderr, code := docforge(t, root, "init")
			if code != 0 {
				t.Fatalf("init exit %d: %s\n%s", code, stderr, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("init output lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("init output has %q:\n%s", a, out)
				}
			}
			desc, _ := os.ReadFile(filepath.Join(root, "docforge.toml"))
			if !strings.Contains(string(desc), `code_roots = ["."]`) || !strings.Contains(string(desc), `"tested_by"`) {
				t.Errorf("descriptor does not switch code on:\n%s", desc)
			}
			if tc.noContent != strings.Contains(string(desc), "content_roots = []") {
				t.Errorf("content roots in the descriptor:\n%s", desc)
			}
			if out, e, code := docforge(t, root, "sync"); code != 0 {
				t.Fatalf("sync after init: %d %s %s", code, out, e)
			}
			for _, id := range tc.nodes {
				if out, e, code := docforge(t, root, "get", id); code != 0 {
					t.Errorf("get %s: %d %s %s", id, code, out, e)
				}
			}
			if _, _, code := docforge(t, root, "get", "vendor/x"); code == 0 {
				t.Errorf("a vendored README became a node")
			}
		})
	}
}

// What the CLI prints from project content cannot drive the terminal: an escape sequence in
// a page's body comes out as visible text in search results.
func TestCLIEscapesProjectContentForTheTerminal(t *testing.T) {
	root := fixture.Temp(t, filepath.Join("..", "..", "examples", "courier"))
	fixture.Append(t, filepath.Join(root, "docs/architecture/store.md"), "\nZanzibar \x1b[2K\rfake status \x1b]0;owned\x07 here.\n")
	out, errOut, code := docforge(t, root, "search", "zanzibar")
	if code != 0 || !strings.Contains(out, `\u001b[2K`) || !strings.Contains(out, `\u0007`) {
		t.Fatalf("exit %d: %q %s", code, out, errOut)
	}
	if strings.ContainsAny(out+errOut, "\x1b\r\x07") {
		t.Errorf("a raw control character reached the terminal: %q", out)
	}
}

// A count below 1 on the command line is a usage error naming the bound.
func TestCountFlagsBelowOneAreRefused(t *testing.T) {
	root := fixture.Temp(t, filepath.Join("..", "..", "examples", "courier"))
	for _, args := range [][]string{{"search", "store", "--limit", "0"}, {"impact", "arch.store", "--depth", "-1"}, {"search", "store", "--limit=-3"}} {
		_, errOut, code := docforge(t, root, args...)
		if code != 2 || !strings.Contains(errOut, "must be at least 1") {
			t.Errorf("docforge %v: exit %d, %q", args, code, errOut)
		}
	}
}

// init on a Hugo site takes its configured content folder (here a module mount, beside a
// go.mod without Go code, as Hugo modules have), resolves links as Hugo does, and declares a
// view per family, so render works at once; render --status with no views says so.
func TestInitAdoptsAHugoSite(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"hugo.toml":                   "title = \"Site\"\n[module]\n[[module.mounts]]\nsource = \"content/en\"\ntarget = \"content\"\n",
		"go.mod":                      "module example.com/site\n\ngo 1.22\n",
		"README.md":                   "# The site's repository\n",
		"content/en/_index.md":        "+++\ntitle = \"Home\"\n+++\nStart with {{< relref \"install\" >}}.\n",
		"content/en/guide/install.md": "+++\ntitle = \"Install\"\n+++\n{{% notice tip %}}\nRead [usage](/Guide/Usage/).\n{{% /notice %}}\n",
		"content/en/guide/usage.md":   "+++\ntitle = \"Usage\"\n+++\nSee [install]({{< ref \"guide/install.md\" >}}).\n",
	})
	out, stderr, code := docforge(t, root, "init")
	if code != 0 {
		t.Fatalf("init exit %d: %s %s", code, out, stderr)
	}
	for _, want := range []string{"existing hugo documentation tree", "content roots: content/en", "links: 3 found, 3 relations", "problems: 0 errors, 0 warnings"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	desc, _ := os.ReadFile(filepath.Join(root, "docforge.toml"))
	for _, want := range []string{`site = "hugo"`, "[[views]]\nid = \"guide\"", "code_roots"} {
		if strings.Contains(string(desc), want) != (want != "code_roots") {
			t.Errorf("descriptor: %q present %v:\n%s", want, !(want != "code_roots"), desc)
		}
	}
	out, stderr, code = docforge(t, root, "render")
	if code != 0 || !strings.Contains(out, "wrote site/guide.html") {
		t.Fatalf("render: %d %s %s", code, out, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(root, "site", "guide.html"))
	if !strings.Contains(string(page), `callout callout-tip`) || strings.Contains(string(page), "{{") {
		t.Errorf("the guide page keeps shortcodes or lost its callout")
	}
	if out, _, code := docforge(t, root, "render", "--status"); code != 0 || !strings.Contains(out, "current") {
		t.Errorf("render --status: %d %s", code, out)
	}

	noViews := fixture.Temp(t, "../../examples/testdata/adopt-docusaurus")
	docforge(t, noViews, "init")
	p := filepath.Join(noViews, "docforge.toml")
	d, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(string(d[:strings.Index(string(d), "\n# 'docforge render'")])+"\n"), 0o644)
	if out, _, code := docforge(t, noViews, "render", "--status"); code != 0 || !strings.Contains(out, "no views:") {
		t.Errorf("render --status with no views: %d %s", code, out)
	}
}

// sync says what it published with: the number of warnings by code and the first few, after
// a cold build and after an incremental one (the changed file's).
func TestSyncReportsWarnings(t *testing.T) {
	root := fixture.Temp(t, "../../examples/testdata/adopt-docusaurus")
	docforge(t, root, "init")
	var links strings.Builder
	for i := range 7 {
		fmt.Fprintf(&links, "[gone](gone-%d.md)\n", i)
	}
	fixture.WriteTree(t, root, map[string]string{"docs/broken.md": "# Broken\n\n" + links.String()})
	_, stderr, code := docforge(t, root, "sync")
	if code != 0 || !strings.Contains(stderr, "8 warnings (dangling_link 8); the first 5 below") || strings.Count(stderr, "warning dangling_link") != 5 {
		t.Fatalf("cold sync: exit %d\n%s", code, stderr)
	}
	fixture.WriteTree(t, root, map[string]string{"docs/broken.md": "# Broken\n\n[gone](gone-0.md)\n"})
	out, stderr, code := docforge(t, root, "sync")
	if code != 0 || !strings.Contains(out, "incremental") || !strings.Contains(stderr, "1 warning (dangling_link 1):\ndocs/broken.md:3:8: warning dangling_link") {
		t.Errorf("incremental sync: exit %d\n%s%s", code, out, stderr)
	}
}

// Without a worker, sync merges the deltas when a merge is due, as a worker would in the
// background: in a small project, after every edit.
func TestSyncMergesWhenDue(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no manager answers here
	if _, e, code := docforge(t, root, "sync"); code != 0 {
		t.Fatalf("cold sync: exit %d\n%s", code, e)
	}
	fixture.WriteTree(t, root, map[string]string{"docs/extra.md": "+++\nid = \"extra\"\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"Extra\"\n+++\nA component.\n"})
	out, e, code := docforge(t, root, "sync")
	if code != 0 || !strings.Contains(out, "incremental build") || !strings.Contains(out, "merged 1 delta into a new base") {
		t.Fatalf("sync after an edit: exit %d\n%s%s", code, out, e)
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	m, err := index.ReadManifest(publication.PathsFor(d, "").Index)
	if err != nil || m.Deltas() != 0 {
		t.Fatalf("after the sync: %v, %d deltas", err, m.Deltas())
	}
	if out, _, _ := docforge(t, root, "get", "extra"); !strings.Contains(out, "Extra") {
		t.Errorf("the merged generation lacks the edit: %s", out)
	}
}

// The CLI a newcomer meets: flags before or after the command, mistakes answered with the
// range or the closest declared name (exit 2), and plain output where there is nothing.
func TestFriendlyCLI(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no manager answers here
	for _, tc := range []struct {
		name        string
		args        []string
		code        int
		out, errOut string // substrings
	}{
		{"flags before the command", []string{"--project-root", root, "--json", "get", "arch.store"}, 0, `"id":"arch.store"`, ""},
		{"flags after the command", []string{"get", "arch.store", "--project-root", root}, 0, "arch.store  Shipment store", ""},
		{"help on stdout", []string{"--project-root", root, "impact", "--help"}, 0, "Example:\n  docforge impact arch.store --depth 2", ""},
		{"unknown command", []string{"serch", "x"}, 2, "", `unknown command "serch" (did you mean "search"?)`},
		{"unknown flag", []string{"search", "--project-root", root, "--limt", "3", "x"}, 2, "", `not defined: -limt (did you mean "limit"?)`},
		{"depth out of range", []string{"impact", "--project-root", root, "arch.store", "--depth", "99"}, 2, "", "--depth is 99; it must be from 1 to 10"},
		{"limit out of range", []string{"search", "--project-root", root, "x", "--limit", "-5"}, 2, "", "--limit is -5; it must be at least 1"},
		{"unknown family", []string{"filter", "--project-root", root, "--family", "requirement"}, 2, "", `(did you mean "requirements"?)`},
		{"unknown kind", []string{"filter", "--project-root", root, "--kind", "fnuc"}, 2, "", `(did you mean "func"?)`},
		{"focus named", []string{"task-context", "--project-root", root, "--kind", "change", "--focus", "arch.store", "x"}, 0, "1 focus on arch.store\n", ""},
		{"nothing found", []string{"context", "--project-root", root, "--query", "zzzqqq"}, 0, "no items\n", ""},
		{"stop without a viewer", []string{"view", "--project-root", root, "--stop"}, 0, "no viewer was running", ""},
		{"help format", []string{"help", "format"}, 0, "## docforge.toml", ""},
		{"help on a command", []string{"help", "impact"}, 0, "Example:\n  docforge impact arch.store --depth 2", ""},
		{"unknown help topic", []string{"help", "fromat"}, 2, "", `no help topic "fromat" (did you mean "format"?)`},
	} {
		out, errOut, code := docforge(t, root, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
			t.Errorf("%s: exit %d (want %d)\nstdout: %s\nstderr: %s", tc.name, code, tc.code, out, errOut)
		}
	}
	// A misspelt command gets the suggestion and a pointer to the help, not the whole help.
	if _, errOut, _ := docforge(t, root, "snyc"); strings.Contains(errOut, "Usage:") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("misspelt command printed more than one line:\n%s", errOut)
	}
	// A misspelt family in a source gets the same suggestion from validate.
	fixture.WriteTree(t, root, map[string]string{"docs/architecture/typo.md": "+++\nid = \"arch.typo\"\ntitle = \"Typo\"\nkind = \"component\"\nfamily = \"architecure\"\n+++\n"})
	if out, _, code := docforge(t, root, "validate"); code != 1 || !strings.Contains(out, `family "architecure" is not declared (did you mean "architecture"?)`) {
		t.Errorf("validate with a misspelt family: exit %d\n%s", code, out)
	}
}

// stamp --all never rewrites a document without front matter into one (GitHub would show the
// block): such files are left unstamped and counted; review of one says what to do.
func TestStampLeavesPlainMarkdownAlone(t *testing.T) {
	root := fixture.Temp(t, "../../examples/testdata/adopt-github")
	docforge(t, root, "init")
	fixture.WriteTree(t, root, map[string]string{"docs/storage/wal.md": "+++\ntitle = \"Write-ahead log\"\n+++\n## Recovery\n\nSee [Operations](../operations/README.md) and [the top](../README.md).\n"})
	readme := filepath.Join(root, "docs", "README.md")
	before, _ := os.ReadFile(readme)
	out, stderr, code := docforge(t, root, "stamp", "--all")
	if code != 0 || !strings.Contains(out, "left unstamped:") || !strings.Contains(out, "docs/README.md") || !strings.Contains(out, "stamped 2 relation targets in 1 nodes") {
		t.Fatalf("stamp --all: exit %d\n%s%s", code, out, stderr)
	}
	if after, _ := os.ReadFile(readme); !bytes.Equal(before, after) {
		t.Errorf("a README without front matter was rewritten:\n%s", after)
	}
	wal, _ := os.ReadFile(filepath.Join(root, "docs", "storage", "wal.md"))
	if !strings.Contains(string(wal), "[stamps]") {
		t.Errorf("the document with front matter was not stamped:\n%s", wal)
	}
	if _, stderr, code := docforge(t, root, "review", "index"); code != 2 || !strings.Contains(stderr, "has no front matter to hold review stamps") {
		t.Errorf("review of a plain document: exit %d %s", code, stderr)
	}
}

// TestFirstSyncErrorsSayNothingWasPublished checks that a failed sync says the previous index
// stays published only when there is one.
func TestFirstSyncErrorsSayNothingWasPublished(t *testing.T) {
	dir := t.TempDir()
	if _, e, code := docforge(t, dir, "init", "--id", "demo"); code != 0 {
		t.Fatalf("init: %d %s", code, e)
	}
	dup := func(id string) string {
		return fmt.Sprintf("+++\nid = %q\nkind = \"component\"\nfamily = \"architecture\"\ntitle = \"Dup\"\nstatus = \"draft\"\nauthority = \"informative\"\n+++\n# Dup\n", id)
	}
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/one.md", dup("dup"))
	write("docs/two.md", dup("dup"))
	_, errOut, code := docforge(t, dir, "sync")
	if code != 1 || !strings.Contains(errOut, "2 validation errors; no index is published until they are fixed") || strings.Contains(errOut, "stays") {
		t.Fatalf("first sync: exit %d:\n%s", code, errOut)
	}
	write("docs/two.md", dup("other"))
	if _, e, code := docforge(t, dir, "sync"); code != 0 {
		t.Fatalf("sync: %d %s", code, e)
	}
	write("docs/two.md", dup("dup"))
	_, errOut, code = docforge(t, dir, "sync")
	if code != 1 || !strings.Contains(errOut, "2 validation errors; the previous index stays published") {
		t.Fatalf("sync after a published one: exit %d:\n%s", code, errOut)
	}
}

// Every kind a code adapter registers is a kind filter accepts, in a project of any of the
// languages; a Python class and a TypeScript interface are found by kind; and a --limit above
// the project's max_results says the project caps it.
func TestFilterKindsComeFromTheAdapters(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"README.md":          "# Parcels\n\nThe store keeps scans.\n",
		"pkg/store.py":       "class Store:\n    \"\"\"Keeps scans.\"\"\"\n\n    def add(self, scan):\n        return scan\n\n\nclass Index:\n    pass\n",
		"web/src/feed.ts":    "export interface Feed {\n  next(): string;\n}\n\nexport class Poller implements Feed {\n  next(): string { return \"\"; }\n}\n",
		"web/package.json":   `{"name": "web", "version": "1.0.0"}`,
		"web/tsconfig.json":  `{"compilerOptions": {"strict": true}}`,
		"pkg/__init__.py":    "",
		"pkg/pyproject.toml": "[project]\nname = \"pkg\"\n",
	})
	if out, errOut, code := docforge(t, root, "init"); code != 0 {
		t.Fatalf("init: %d %s %s", code, out, errOut)
	}
	if out, errOut, code := docforge(t, root, "sync"); code != 0 {
		t.Fatalf("sync: %d %s %s", code, out, errOut)
	}
	for _, kind := range source.CodeKinds() {
		if out, errOut, code := docforge(t, root, "filter", "--kind", kind); code != 0 {
			t.Errorf("--kind %s: %d %s %s", kind, code, out, errOut)
		}
	}
	for kind, want := range map[string]string{"class": "Store", "interface": "Feed"} {
		if out, errOut, code := docforge(t, root, "filter", "--kind", kind); code != 0 || !strings.Contains(out, want) {
			t.Errorf("--kind %s: %d %s %s, want %s", kind, code, out, errOut, want)
		}
	}
	if _, errOut, code := docforge(t, root, "filter", "--kind", "clas"); code != 2 || !strings.Contains(errOut, `did you mean "class"`) {
		t.Errorf("a misspelt kind: %d %s", code, errOut)
	}
	fixture.Append(t, filepath.Join(root, "docforge.toml"), "")
	desc, err := os.ReadFile(filepath.Join(root, "docforge.toml"))
	if err != nil {
		t.Fatal(err)
	}
	capped := strings.Replace(string(desc), "[limits]", "[limits]\nmax_results = 2", 1)
	if capped == string(desc) {
		capped += "\n[limits]\nmax_results = 2\n"
	}
	if err := os.WriteFile(filepath.Join(root, "docforge.toml"), []byte(capped), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := docforge(t, root, "filter", "--family", "code", "--limit", "10000"); code != 0 || !strings.Contains(out, "--limit 10000 is above the project's cap of 2") {
		t.Errorf("a limit above the cap: %d %s %s", code, out, errOut)
	}
}

// A Rust workspace, a Cargo.toml per crate: init leaves other tools' TOML out of the
// descriptor it writes (by name, where no record file shares it), so no sync warns
// no_records about them, and says how many it skipped.
func TestInitLeavesOutOtherToolsSettings(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"Cargo.toml":             "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/lex/Cargo.toml":  "[package]\nname = \"lex\"\n",
		"crates/lex/src/lib.rs":  "pub fn lex() {}\n",
		"crates/cli/Cargo.toml":  "[package]\nname = \"cli\"\n",
		"crates/cli/src/main.rs": "fn main() {}\n",
		"typos.toml":             "[default]\nlocale = \"en-us\"\n",
		"README.md":              "# Workspace\n\nSee [the guide](GUIDE.md).\n",
		"GUIDE.md":               "# Guide\n\nThe lexer is in `crates/lex`.\n",
	})
	out, errOut, code := docforge(t, root, "init")
	if code != 0 || !strings.Contains(out, "skipped: 4 TOML files") {
		t.Fatalf("init: %d %s %s", code, out, errOut)
	}
	desc, err := os.ReadFile(filepath.Join(root, "docforge.toml"))
	if err != nil || !strings.Contains(string(desc), `"**/Cargo.toml"`) || !strings.Contains(string(desc), `"**/typos.toml"`) {
		t.Fatalf("descriptor: %v\n%s", err, desc)
	}
	out, errOut, code = docforge(t, root, "sync")
	if code != 0 || strings.Contains(out+errOut, "no_records") {
		t.Errorf("sync after init: %d %s %s", code, out, errOut)
	}
}

// init adopts a Rust workspace, a Maven multi-module project and a CMake project: it reports
// each language it found, switches the code on, and the first sync publishes their
// declarations.
func TestInitAdoptsOtherLanguages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		says  string
		node  string
		logic string
	}{
		{"rust workspace", map[string]string{
			"Cargo.toml":      "[workspace]\nmembers = [\"lex\", \"cli\"]\n",
			"lex/Cargo.toml":  "[package]\nname = \"lex\"\n",
			"lex/src/lib.rs":  "/// Splits a line.\npub fn split(s: &str) -> Vec<&str> { s.split(' ').collect() }\n",
			"cli/Cargo.toml":  "[package]\nname = \"cli\"\n",
			"cli/src/main.rs": "use lex::split;\n\nfn main() { split(\"a b\"); }\n",
			"README.md":       "# Tools\n",
		}, "build files: 3 Cargo.toml", "rs:lex/src/lib.rs/split", "return        s.split(' ').collect()"},
		{"maven modules", map[string]string{
			"pom.xml":      "<project><modules><module>core</module><module>app</module></modules></project>\n",
			"core/pom.xml": "<project/>\n",
			"core/src/main/java/shop/core/Store.java": "package shop.core;\n\n/** Keeps items. */\npublic class Store {\n    public void put() {}\n}\n",
			"app/pom.xml":                          "<project/>\n",
			"app/src/main/java/shop/app/Main.java": "package shop.app;\n\nimport shop.core.Store;\n\npublic class Main {\n    void run() { new Store(); }\n}\n",
			"README.md":                            "# Shop\n",
		}, "tests; build files: 3 pom.xml", "jv:core/src/main/java/shop/core/Store.java/Store.put", "exit"},
		{"cmake project", map[string]string{
			"CMakeLists.txt":  "project(store C)\nadd_library(store src/store.c)\n",
			"include/store.h": "int store_add(int n);\n",
			"src/store.c":     "#include \"store.h\"\n\n/** Adds. */\nint store_add(int n) { return n; }\n",
			"README.md":       "# Store\n",
		}, "c: 1 files, 1 declarations, 0 tests; build files: 1 CMakeLists.txt", "c:src/store.c/store_add", "return        return n;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			fixture.WriteTree(t, root, tc.files)
			out, errOut, code := docforge(t, root, "init")
			if code != 0 || !strings.Contains(out, tc.says) {
				t.Fatalf("init: %d %s %s, want %q", code, out, errOut, tc.says)
			}
			if out, errOut, code := docforge(t, root, "sync"); code != 0 {
				t.Fatalf("sync: %d %s %s", code, out, errOut)
			}
			if out, errOut, code := docforge(t, root, "get", tc.node); code != 0 {
				t.Errorf("get %s: %d %s %s", tc.node, code, out, errOut)
			}
			// Its Logic: entry, the function's own steps, exit.
			if out, errOut, code := docforge(t, root, "logic", tc.node); code != 0 || !strings.Contains(out, "entry") || !strings.Contains(out, tc.logic) {
				t.Errorf("logic %s: %d %s %s, want %q", tc.node, code, out, errOut, tc.logic)
			}
		})
	}
}
