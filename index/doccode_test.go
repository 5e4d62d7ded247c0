package index_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// docCodeProject is a Go module with documents that link to its files and folders and name
// its declarations in backticks.
func docCodeProject(t *testing.T) (*project.Descriptor, string) {
	t.Helper()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("dc", true),
		"go.mod":        "module example.com/dc\n",
		"store/wal.go":  "package store\n\n// Builder builds.\ntype Builder struct{}\n\n// WithReadOnly sets read-only mode.\nfunc (b *Builder) WithReadOnly() *Builder { return b }\n\n// Open opens.\nfunc Open() {}\n",
		"net/conn.go":   "package net\n\n// Open dials.\nfunc Open() {}\n\nfunc Dial() { Open() }\n",
		"docs/design.md": "# Design\n\nThe log lives in [the WAL code](../store/wal.go) and the [store package](../store).\n" +
			"Call `Builder.WithReadOnly` for replicas, and `net.Dial()` to connect.\n" +
			"`Open` is ambiguous; a `plainword` in backticks is prose.\n\n```go\n`Dial` in a fence is not a mention\n```\n",
	})
	return load(t, root), root
}

// ambiguousMentions are the ambiguous_mention warnings of validating d, each its place and
// message.
func ambiguousMentions(t *testing.T, d *project.Descriptor) []string {
	t.Helper()
	v, err := source.Validate(context.Background(), d, golang.PolicyAST, 0)
	must(t, err)
	var ambiguous []string
	for _, w := range v.Problems {
		if w.Code == problem.AmbiguousMention {
			ambiguous = append(ambiguous, w.Location.String()+" "+w.Message)
		}
	}
	return ambiguous
}

// Links to Go files and folders and backticked names of one declaration are documents
// relations; a name of several declarations is reported and relates to none; impact and
// backlinks follow the relations from code back to the document.
func TestDocumentsToCode(t *testing.T) {
	ctx := context.Background()
	d, root := docCodeProject(t)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	ambiguous := ambiguousMentions(t, d)
	if len(ambiguous) != 1 || !strings.Contains(ambiguous[0], "docs/design.md:5:2") || !strings.Contains(ambiguous[0], "`Open` names 2 declarations") {
		t.Errorf("the ambiguous mention is reported at its place: %v", ambiguous)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	deps, err := snap.Dependencies(ctx, "design", 50)
	must(t, err)
	var got []string
	for _, l := range deps.Links {
		got = append(got, l.Relation+" "+l.NodeID)
	}
	want := []string{
		"documents go:example.com/dc/net.Dial",
		"documents go:example.com/dc/store",
		"documents go:example.com/dc/store.Builder.WithReadOnly",
		"documents go:example.com/dc/store/wal.go",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the document's relations:\n got %v\nwant %v", got, want)
	}
	// From the code, the document is one hop away: "which documents describe this function".
	imp, err := snap.Impact(ctx, "go:example.com/dc/store.Builder.WithReadOnly", index.ImpactOptions{Depth: 1})
	must(t, err)
	found := false
	for _, n := range imp.Nodes {
		found = found || n.ID == "design"
	}
	if !found {
		t.Errorf("impact of WithReadOnly does not reach the document that describes it: %+v", imp.Nodes)
	}
	back, err := snap.Backlinks(ctx, "go:example.com/dc/net.Dial", 10)
	must(t, err)
	if !slices.ContainsFunc(back.Links, func(l index.Link) bool { return l.NodeID == "design" && l.Relation == "documents" }) {
		t.Errorf("backlinks of net.Dial: %+v", back.Links)
	}

	// Renaming the declaration a mention names drops the relation, in a delta that reads the
	// documents again; the incremental index is the cold one.
	must(t, os.WriteFile(filepath.Join(root, "net", "conn.go"), []byte("package net\n\n// Open dials.\nfunc Open() {}\n\nfunc Connect() { Open() }\n"), 0o644))
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Errorf("a renamed declaration: build %s", res.Build)
	}
	inc := dump(t, d, "")
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	if cold := dump(t, d, ""); cold != inc {
		t.Fatalf("incremental and cold indexes differ:\n%s", firstDiff(inc, cold))
	}
	if strings.Contains(inc, "design|documents|go:example.com/dc/net.Dial|") || !strings.Contains(inc, "design|documents|go:example.com/dc/store.Builder.WithReadOnly|") {
		t.Errorf("after the rename:\n%s", inc)
	}
	// Editing the document alone resolves its mentions against the index, incrementally.
	must(t, os.WriteFile(filepath.Join(root, "docs", "design.md"), []byte("# Design\n\nUse `net.Connect`.\n"), 0o644))
	res, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Errorf("a document edit: build %s", res.Build)
	}
	inc = dump(t, d, "")
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	if cold := dump(t, d, ""); cold != inc || !strings.Contains(inc, "design|documents|go:example.com/dc/net.Connect|") {
		t.Fatalf("after a document edit:\n%s", firstDiff(inc, cold))
	}

	// Declarations, files and packages that come and go change what mentions and links
	// elsewhere name: an ambiguous name becomes one declaration's, a dangling one resolves, a
	// resolved one dangles, a link names a file or a folder that appeared or no longer does.
	// Each is one edit, published as a delta that equals a cold build and reads again only the
	// documents whose links look the change up.
	must(t, os.WriteFile(filepath.Join(root, "docs", "design.md"), []byte("# Design\n\nUse `net.Connect`, `Open` and `store.Close`; "+
		"see [extra](../net/extra.go), `Extra` and [the audit](../audit).\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "docs", "notes.md"), []byte("# Notes\n\nSee [the design](design.md) and `Builder`.\n"), 0o644))
	_, err = index.Sync(ctx, d, index.Options{})
	must(t, err)
	for _, step := range []struct {
		path, src   string // src "" removes the file
		parsed      int    // the files read: those changed (a package's file list among them), the design, and the notes when Builder goes
		has, hasNot string
	}{
		{"store/wal.go", "package store\n\n// Builder builds.\ntype Builder struct{}\n", 2, "design|documents|go:example.com/dc/net.Open|", "store.Close|"},
		{"store/wal.go", "package store\n\n// Builder builds.\ntype Builder struct{}\n\n// Close closes.\nfunc Close() {}\n", 2, "design|documents|go:example.com/dc/store.Close|", ""},
		{"store/wal.go", "package store\n\n// Open opens.\nfunc Open() {}\n", 3, "design|documents|go:example.com/dc/net.Connect|", "design|documents|go:example.com/dc/net.Open|"},
		{"net/extra.go", "package net\n\n// Extra helps.\nfunc Extra() {}\n", 3, "design|documents|go:example.com/dc/net/extra.go|", "design|documents|go:example.com/dc/audit|"},
		{"audit/log.go", "package audit\n\n// Log records.\nfunc Log() {}\n", 3, "design|documents|go:example.com/dc/audit|", ""},
		{"net/extra.go", "", 2, "design|documents|go:example.com/dc/audit|", "go:example.com/dc/net.Extra|"},
		{"audit/log.go", "", 1, "design|documents|go:example.com/dc/net.Connect|", "design|documents|go:example.com/dc/audit|"},
	} {
		file := filepath.Join(root, filepath.FromSlash(step.path))
		if step.src == "" {
			must(t, os.Remove(file))
		} else {
			must(t, os.MkdirAll(filepath.Dir(file), 0o755))
			must(t, os.WriteFile(file, []byte(step.src), 0o644))
		}
		res, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
		if res.Build != index.BuildIncremental || res.FilesParsed != step.parsed {
			t.Errorf("%s as %q: build %s parsing %d files; want an incremental build parsing %d",
				step.path, step.src, res.Build, res.FilesParsed, step.parsed)
		}
		inc := dump(t, d, "")
		_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
		must(t, err)
		if cold := dump(t, d, ""); cold != inc {
			t.Fatalf("%s as %q: incremental and cold indexes differ:\n%s", step.path, step.src, firstDiff(inc, cold))
		}
		if !strings.Contains(inc, step.has) || step.hasNot != "" && strings.Contains(inc, step.hasNot) {
			t.Errorf("%s as %q: want %q and not %q in\n%s", step.path, step.src, step.has, step.hasNot, inc)
		}
	}
}

// A backticked name several declarations share means the one in the project's own current
// code: not a test's, an example's or an old revision's, and an exported one over an
// unexported one. Ambiguity among the project's own exported code is still reported; a name
// only examples declare relates to none, quietly. Making the only exported declaration
// unexported changes what the mention means, in a delta as in a cold build.
func TestMentionsMeanTheProjectsOwnCode(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml":           fixture.GoModuleDescriptor("mm", true),
		"go.mod":                  "module example.com/mm\n",
		"store/store.go":          "package store\n\n// Open opens.\nfunc Open() {}\n\n// Close closes.\nfunc Close() {}\n",
		"net/net.go":              "package net\n\n// Close hangs up.\nfunc Close() {}\n",
		"examples/demo/demo.go":   "package demo\n\n// Open shows Open.\nfunc Open() {}\n\n// Run runs.\nfunc Run() {}\n",
		"examples/other/other.go": "package other\n\n// Run runs too.\nfunc Run() {}\n",
		"api/v2025-11-25/old.go":  "package old\n\n// Send sent.\nfunc Send() {}\n",
		"api/current/current.go":  "package current\n\n// Send sends.\nfunc Send() {}\n",
		"web/package.json":        `{"name": "web"}`,
		"web/src/types.ts":        "export interface Request { id: string }\n",
		"web/src/augment.ts":      "interface Request { extra: string }\nexport const x = 1;\n",
		"docs/guide.md":           "# Guide\n\nCall `Open`, then `Send` with a `Request`; `Run` is in the examples; `Close` is ambiguous.\n",
	})
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	ambiguous := ambiguousMentions(t, d)
	if len(ambiguous) != 1 || !strings.Contains(ambiguous[0], "`Close` names 2 declarations") {
		t.Errorf("ambiguous mentions: %v", ambiguous)
	}
	relations := func() []string {
		snap, err := index.Open(ctx, d)
		must(t, err)
		defer snap.Close()
		deps, err := snap.Dependencies(ctx, "guide", 50)
		must(t, err)
		var got []string
		for _, l := range deps.Links {
			got = append(got, l.NodeID)
		}
		slices.Sort(got)
		return got
	}
	want := []string{"go:example.com/mm/api/current.Send", "go:example.com/mm/store.Open", "ts:web/src/types.ts/Request"}
	if got := relations(); !slices.Equal(got, want) {
		t.Errorf("the guide's relations:\n got %v\nwant %v", got, want)
	}
	// The exported Request made unexported: two unexported declarations, neither meant.
	must(t, os.WriteFile(filepath.Join(root, "web", "src", "types.ts"), []byte("interface Request { id: string }\nexport const y = 2;\n"), 0o644))
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Errorf("an edit of types.ts: build %s", res.Build)
	}
	inc := dump(t, d, "")
	if got := relations(); slices.Contains(got, "ts:web/src/types.ts/Request") {
		t.Errorf("the unexported Request is still meant: %v", got)
	}
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	if cold := dump(t, d, ""); cold != inc {
		t.Fatalf("incremental and cold indexes differ:\n%s", firstDiff(inc, cold))
	}
}
