package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
)

const validDescriptor = `schema_version = 1
[project]
id = "courier"
name = "Courier"
[sources]
content_roots = ["docs", "docs/api"]
exclude = ["**/drafts/**"]
[relations]
allowed = ["depends_on", "relates_to"]
[families.architecture]
kinds = ["component", "decision"]
[limits]
max_results = 50
max_response_chars = 4096
[[views]]
id = "arch"
title = "Architecture"
families = ["architecture"]
output = "site/arch.html"
`

// newRoot makes a project root with the folders the descriptors below name.
func newRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"docs/api", "code"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A valid descriptor parses with its defaults filled in; each kind of mistake is reported
// with its code, its line and the key, and a misspelt relation or family elsewhere gets a
// suggestion from the declared names.
func TestParseDescriptor(t *testing.T) {
	root := newRoot(t)
	d, probs := Parse([]byte(validDescriptor), root)
	if d == nil || len(probs) != 0 {
		t.Fatalf("valid descriptor: %v", probs)
	}
	if d.Limits.MaxResults != 50 || d.Sources.Links.On() || !d.HasRelation("depends_on") || d.HasRelation("calls") ||
		!d.History.On() || d.History.MaxCommits != DefaultHistoryCommits || d.History.MaxAgeDays != DefaultHistoryDays {
		t.Errorf("parsed: %+v", d)
	}
	if r, ok := d.ContentRootOf("docs/api/x.md"); !ok || r != "docs/api" {
		t.Errorf("ContentRootOf picks the deepest root: %q %v", r, ok)
	}
	if _, ok := d.ContentRootOf("code/x.md"); ok {
		t.Errorf("code/x.md is in no content root")
	}
	for _, tc := range []struct {
		name, old, new string
		code           problem.Code
		line           int
	}{
		{"malformed", `id = "courier"`, `id = "courier`, problem.MalformedDescriptor, 3},
		{"schema version", "schema_version = 1", "schema_version = 7", problem.UnsupportedSchemaVersion, 1},
		{"missing root", `content_roots = ["docs", "docs/api"]`, `content_roots = ["nope"]`, problem.InvalidDescriptor, 6},
		{"root escapes", `content_roots = ["docs", "docs/api"]`, `content_roots = ["../elsewhere"]`, problem.PathEscape, 6},
		{"bad glob", `exclude = ["**/drafts/**"]`, `exclude = ["[x"]`, problem.InvalidDescriptor, 7},
		{"small response limit", "max_response_chars = 4096", "max_response_chars = 100", problem.InvalidDescriptor, 14},
		{"link site", "[limits]", "[sources.links]\nsite = \"jekyll\"\n[limits]", problem.InvalidDescriptor, 13},
		{"generated pages outside", "[limits]", "[sources.links]\ngenerated = [\"docs/api\", \"../site\"]\n[limits]", problem.PathEscape, 13},
		{"history window", "[limits]", "[history]\nmax_commits = 200000\n[limits]", problem.InvalidDescriptor, 13},
		{"history age", "[limits]", "[history]\nmax_age_days = -1\n[limits]", problem.InvalidDescriptor, 13},
		{"result limit", "max_results = 50", "max_results = 0x7fffffff", problem.InvalidDescriptor, 13},
	} {
		text := strings.Replace(validDescriptor, tc.old, tc.new, 1)
		d, probs := Parse([]byte(text), root)
		if d != nil || len(probs) == 0 || probs[0].Code != tc.code || probs[0].Line != tc.line {
			t.Errorf("%s: %v", tc.name, probs)
		}
	}
}

// Find walks up to the nearest docforge.toml; Load reads it from there.
func TestFindAndLoad(t *testing.T) {
	root := newRoot(t)
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(validDescriptor), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := Find(filepath.Join(root, "docs", "api"))
	if err != nil || found != root {
		t.Fatalf("Find: %q %v", found, err)
	}
	d, probs, err := Load(found)
	if err != nil || d == nil || len(probs) != 0 || d.Root != root || d.Hash == "" {
		t.Fatalf("Load: %v %v %+v", err, probs, d)
	}
	if _, err := Find(t.TempDir()); problem.CodeOf(err) != problem.DescriptorNotFound {
		t.Errorf("Find without a descriptor: %v", err)
	}
}

func TestGlobs(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"**/drafts/**", "docs/drafts/a.md", true},
		{"**/drafts/**", "drafts/a.md", true},
		{"**/drafts/**", "docs/draft/a.md", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/sub/a.md", false},
		{"docs/sub", "docs/sub/a.md", true}, // a directory excludes what is below it
		{"**", "anything/at/all", true},
	} {
		if got := MatchGlob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	if ValidGlob("[x") == nil || ValidGlob("**/a/*.md") != nil {
		t.Errorf("ValidGlob")
	}
}
