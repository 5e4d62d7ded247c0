package source_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// adoptDescriptor derives identities and resolves links; extra is appended.
const adoptDescriptor = `schema_version = 1
[project]
id = "t"
[sources]
content_roots = ["docs"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
family_from_folder = true
foreign_fields = "%s"
[sources.links]
dangling = "%s"
[relations]
allowed = ["relates_to", "depends_on"]
[families.docs]
kinds = ["page", "component"]
[families.storage]
kinds = ["page"]
`

// adoptProject writes a project with the adoption descriptor and the given docs/ files.
func adoptProject(t *testing.T, foreign, dangling string, files map[string]string) *project.Descriptor {
	t.Helper()
	docs := map[string]string{"docs/": ""}
	for name, content := range files {
		docs["docs/"+name] = content
	}
	return writeTree(t, t.TempDir(), fmt.Sprintf(adoptDescriptor, foreign, dangling), docs)
}

// outcome is the sorted nodes (id|title|family|kind), edges (with anchors) and problems.
func outcome(t *testing.T, d *project.Descriptor) (nodes, edges, probs []string) {
	t.Helper()
	inv, err := source.Scan(context.Background(), d)
	must(t, err)
	check := source.NewChecker(d)
	err = source.NewLoader(d, "").Each(context.Background(), inv.Files, func(p source.Parsed) error {
		check.Add(p.Fragment)
		for _, n := range p.Fragment.Nodes {
			nodes = append(nodes, n.ID+"|"+n.Title+"|"+n.Family+"|"+n.Kind)
		}
		for _, pr := range p.Fragment.Problems {
			probs = append(probs, fmt.Sprintf("%s %s %s", pr.Location, pr.Severity, pr.Code))
		}
		return nil
	})
	must(t, err)
	// The runs a cold build hashes are the edges, in order, declared and from links.
	if runs := slices.Concat(check.EdgeRuns()...); !slices.Equal(runs, check.Edges()) {
		t.Errorf("EdgeRuns joined are %v; Edges are %v", runs, check.Edges())
	}
	for _, e := range check.Edges() {
		edges = append(edges, e.Source+">"+e.Target+"#"+e.Anchor)
	}
	for _, pr := range check.Problems() {
		probs = append(probs, fmt.Sprintf("%s %s %s", pr.Location, pr.Severity, pr.Code))
	}
	slices.Sort(nodes)
	slices.Sort(edges)
	slices.Sort(probs)
	return nodes, edges, probs
}

func TestDerivedIdentity(t *testing.T) {
	d := adoptProject(t, "ignore", "warning", map[string]string{
		"_index.md":                 "No front matter, no heading.\n",
		"Storage/README.md":         "# Storage\n",
		"storage/Write Ahead.md":    "---\nweight: 4\n---\nText.\n",
		"guides/Getting-Started.md": "+++\ntitle = \"Start here\"\nid = \"start\"\nkind = \"component\"\n+++\n# Ignored heading\n",
	})
	nodes, _, probs := outcome(t, d)
	want := []string{
		"index|docs|docs|page",
		"start|Start here|docs|component",
		"storage/write-ahead|Write Ahead|storage|page",
		"storage|Storage|storage|page",
	}
	slices.Sort(want)
	if !slices.Equal(nodes, want) || len(probs) != 0 {
		t.Errorf("nodes %q\nwant  %q\nproblems %q", nodes, want, probs)
	}
}

func TestForeignFields(t *testing.T) {
	files := map[string]string{
		"a.md": "---\ntitle: A\nsidebar_position: 2\ntags: [Getting Started, ok, \"b@d\"]\n---\n",
		"b.md": "+++\ntitle = \"B\"\ndate = 2024-01-01\n[menu.main]\nweight = 1\n+++\n",
	}
	_, _, probs := outcome(t, adoptProject(t, "ignore", "warning", files))
	if want := []string{"docs/a.md:4:29 warning invalid_field"}; !slices.Equal(probs, want) {
		t.Errorf("ignore: %q, want %q", probs, want)
	}
	_, _, probs = outcome(t, adoptProject(t, "error", "warning", files))
	want := []string{"docs/a.md:3:1 error unknown_field", "docs/a.md:4:29 error invalid_field", "docs/a.md:4:8 error invalid_field",
		"docs/b.md:3:1 error unknown_field", "docs/b.md:4:1 error unknown_field", "docs/b.md:5:1 error unknown_field"}
	if !slices.Equal(probs, want) {
		t.Errorf("error: %q\nwant %q", probs, want)
	}
}

func TestLinksBecomeRelations(t *testing.T) {
	files := map[string]string{
		"index.md": "# Home\n\n[wal](storage/wal.md#segments) [again](./storage/wal) [[storage]]\n" +
			"[ext](https://x.org/a.md) [img](pic.png) ![alt](storage/wal.md) [self](#top) [up](../README.md)\n" +
			"`[code](storage/wal.md)` [ref]: /docs/storage/index.md\n" +
			"{{< relref \"storage/wal\" >}}\n",
		"storage/index.md": "# Storage\n\n[ref]: ../records.toml#r2\n\n[missing](nope.md) [[nobody]]\n",
		"storage/wal.md":   "# WAL\n\n## Segments\n[records](../records.toml)\n",
		"records.toml":     "[[node]]\nid = \"r1\"\nkind = \"page\"\nfamily = \"docs\"\n[[node]]\nid = \"r2\"\nkind = \"page\"\nfamily = \"docs\"\n",
	}
	for _, dangling := range []string{"warning", "error"} {
		_, edges, probs := outcome(t, adoptProject(t, "ignore", dangling, files))
		wantEdges := []string{"index>storage#", "index>storage/wal#segments", "storage>r2#r2"}
		if !slices.Equal(edges, wantEdges) {
			t.Errorf("%s: edges %q, want %q", dangling, edges, wantEdges)
		}
		// The reference definition on line 3 is not one (it does not start the line); a
		// record file of two nodes needs #ID; a missing file and an unknown wiki ID dangle.
		wantProbs := []string{
			"docs/storage/index.md:5:11 " + dangling + " dangling_link",
			"docs/storage/index.md:5:20 " + dangling + " dangling_link",
			"docs/storage/wal.md:4:11 " + dangling + " dangling_link",
		}
		if !slices.Equal(probs, wantProbs) {
			t.Errorf("%s: problems %q\nwant %q", dangling, probs, wantProbs)
		}
	}
}

// Without [sources.defaults] a file needs its front matter, and without [sources.links] a
// Markdown link is text.
func TestAdoptionIsOptIn(t *testing.T) {
	root := writeProject(t, map[string]string{
		"a.md": "# Plain\n",
		"b.md": node("b", "") + "[a link](c.md)\n",
	})
	got := render(validate(t, root))
	if want := []string{"docs/a.md:1:1 missing_front_matter"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestDerivedIDs(t *testing.T) {
	d := adoptProject(t, "ignore", "warning", nil)
	for rel, want := range map[string]string{
		"docs/_index.md":             "index",
		"docs/README.md":             "index",
		"docs/a/b/index.md":          "a/b",
		"docs/API Guide/Über uns.md": "api-guide/ber-uns",
		"docs/_drafts/_x.md":         "drafts/x",
		"docs/v1.2/notes.markdown":   "v1.2/notes",
	} {
		if got := source.DerivedID(d, rel); got != want {
			t.Errorf("DerivedID(%q) = %q, want %q", rel, got, want)
		}
	}
}
