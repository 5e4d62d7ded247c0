package render

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata/golden")

// example copies the bundled example project, adding files (path -> content).
func example(t *testing.T, extra map[string]string) *project.Descriptor {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "courier")
	if out, err := exec.Command("cp", "-R", "../examples/courier", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, ".docforge"))
	os.RemoveAll(filepath.Join(dst, "site"))
	for p, content := range extra {
		if err := os.WriteFile(filepath.Join(dst, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return load(t, dst)
}

func load(t *testing.T, root string) *project.Descriptor {
	t.Helper()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load %s: %v %v", root, err, probs)
	}
	return d
}

func publish(t *testing.T, d *project.Descriptor, views ...string) []Published {
	t.Helper()
	pub, err := Publish(context.Background(), d, "", views, PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func status(t *testing.T, d *project.Descriptor, view string, deep bool) ViewStatus {
	t.Helper()
	rep, err := Status(context.Background(), d, "", StatusRequest{ViewID: view, Deep: deep})
	if err != nil || len(rep.Views) != 1 {
		t.Fatalf("status: %v %+v", err, rep)
	}
	return rep.Views[0]
}

// The example's views render to the committed golden pages, byte for byte. The golden files
// are the reviewed output: 'go test ./render -update' rewrites them after a deliberate change.
func TestGoldenPages(t *testing.T) {
	d := example(t, nil)
	for _, p := range publish(t, d) {
		got, err := os.ReadFile(filepath.Join(d.Root, p.Output))
		if err != nil {
			t.Fatal(err)
		}
		// The footer names the source hash, which covers the project's bytes; the copy has the
		// same bytes as the committed example, so the page is exactly reproducible.
		golden := filepath.Join("testdata", "golden", p.View+".html")
		if *update {
			os.WriteFile(golden, got, 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run 'go test ./render -update' to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s; if the change is intended, run 'go test ./render -update' and review the diff", p.Output, golden)
		}
	}
}

// Same sources, same bytes: whatever the parallelism, and across separate loads.
func TestDeterministic(t *testing.T) {
	d := example(t, nil)
	var pages [][]byte
	for _, workers := range []int{1, 3, 8} {
		g, err := Load(context.Background(), d, "")
		if err != nil {
			t.Fatal(err)
		}
		page, err := HTML.Render(d, g, "architecture", Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
	}
	for i := 1; i < len(pages); i++ {
		if !bytes.Equal(pages[0], pages[i]) {
			t.Errorf("render %d differs from render 0", i)
		}
	}
}

// A page shows each node's metadata, body, relations and backlinks; links stay on the page,
// cross to the other view's file, or name a code node's source position.
func TestPageContent(t *testing.T) {
	d := example(t, nil)
	publish(t, d)
	arch, _ := os.ReadFile(filepath.Join(d.Root, "site", "architecture.html"))
	for _, want := range []string{
		`<section class="node" id="arch.store">`,
		`<dt>Kind</dt><dd>component</dd>`, `<dt>Status</dt><dd>accepted</dd>`, `<dt>Authority</dt><dd>normative</dd>`, `<span class="tag">write-path</span>`,
		`<a href="#dec.event-sourcing" title="dec.event-sourcing">ADR 2: keep events as the record</a>`, // a [[wiki]] reference in a body
		`<span class="relation">owns</span> <a href="#data.shipments">Shipment projection</a>`,          // within the view
		`<a href="requirements.html#test.ingest-order">Late event ordering</a>`,                         // across views
		`<code>go:example.com/courier/store.Log</code> <span class="src">code/store/store.go:18</span>`, // a code node
		`<h3 id="arch.store--ordering">Ordering</h3>`,                                                   // body headings, unique on the page
		`<h3 class="rel">Backlinks</h3>`,
		`<li><a href="#arch.api">Tracking API</a>`, // the table of contents
	} {
		if !bytes.Contains(arch, []byte(want)) {
			t.Errorf("architecture page lacks %s", want)
		}
	}
	if bytes.Contains(arch, []byte(`<h2 id=`)) {
		t.Error("a body's leading title heading was not folded into its section heading")
	}
	if bytes.Contains(arch, []byte("<script")) || bytes.Contains(arch, []byte("http://")) || bytes.Contains(arch, []byte("https://")) {
		t.Error("the page is not self-contained (script or remote resource)")
	}
}

func TestSelects(t *testing.T) {
	n := &graph.Node{Record: graph.Record{Family: "architecture", Kind: "component", Tags: []string{"storage", "api"}}}
	for _, c := range []struct {
		v    project.View
		want bool
	}{
		{project.View{}, true},
		{project.View{Families: []string{"architecture"}}, true},
		{project.View{Families: []string{"requirements"}}, false},
		{project.View{Families: []string{"architecture"}, Kinds: []string{"decision"}}, false},
		{project.View{Kinds: []string{"decision", "component"}}, true},
		{project.View{Tags: []string{"api"}}, true},
		{project.View{Tags: []string{"ui"}}, false},
		{project.View{Families: []string{"architecture"}, Kinds: []string{"component"}, Tags: []string{"storage"}}, true},
	} {
		if got := Selects(c.v, n); got != c.want {
			t.Errorf("Selects(%+v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// An interrupted render leaves the previous page and receipt exactly as they were, and no
// temporary file.
func TestInterruptedRenderKeepsTheOldPage(t *testing.T) {
	d := example(t, nil)
	publish(t, d, "architecture")
	out := filepath.Join(d.Root, "site", "architecture.html")
	before, _ := os.ReadFile(out)
	receipt, _ := os.ReadFile(receiptPath(d, "architecture"))
	edit(t, d, "docs/architecture/store.md", "Appends events", "Appends every event")
	crash := errors.New("power cut")
	_, err := Publish(context.Background(), d, "", []string{"architecture"}, PublishOptions{Fault: func(step string) error { return crash }})
	if !errors.Is(err, crash) {
		t.Fatalf("publish with a fault: %v", err)
	}
	after, _ := os.ReadFile(out)
	receiptAfter, _ := os.ReadFile(receiptPath(d, "architecture"))
	if !bytes.Equal(before, after) || !bytes.Equal(receipt, receiptAfter) {
		t.Error("the interrupted render changed the page or its receipt")
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("files left in site/: %v", entries)
	}
	if s := status(t, d, "architecture", false); s.State != Stale {
		t.Errorf("after the interrupted render of an edit: %s %v, want stale", s.State, s.Reasons)
	}
}

func edit(t *testing.T, d *project.Descriptor, rel, old, new string) {
	t.Helper()
	p := filepath.Join(d.Root, rel)
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("edit %s: %v", rel, err)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The states of the cheap check, each from a real change on disk.
func TestStatusStates(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, d *project.Descriptor)
		want   string
		reason string
	}{
		{"fresh render", func(t *testing.T, d *project.Descriptor) {}, Current, ""},
		{"source edited", func(t *testing.T, d *project.Descriptor) {
			edit(t, d, "docs/architecture/api.md", "It never writes", "It never ever writes")
		}, Stale, "sources changed"},
		{"output edited", func(t *testing.T, d *project.Descriptor) {
			f, _ := os.OpenFile(filepath.Join(d.Root, "site", "architecture.html"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("<!-- edited -->")
			f.Close()
		}, Stale, "output file changed"},
		{"receipt corrupted", func(t *testing.T, d *project.Descriptor) {
			p := receiptPath(d, "architecture")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"nodes": 16`), []byte(`"nodes": 17`), 1), 0o644)
		}, Unverified, "corrupt"},
		{"receipt removed", func(t *testing.T, d *project.Descriptor) { os.Remove(receiptPath(d, "architecture")) }, Unverified, "no publication receipt"},
		{"output removed", func(t *testing.T, d *project.Descriptor) {
			os.Remove(filepath.Join(d.Root, "site", "architecture.html"))
		}, Missing, "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := example(t, nil)
			publish(t, d)
			c.change(t, d)
			s := status(t, d, "architecture", false)
			if s.State != c.want || !strings.Contains(strings.Join(s.Reasons, "; "), c.reason) {
				t.Errorf("state %s %v, want %s (%q)", s.State, s.Reasons, c.want, c.reason)
			}
			if other := status(t, d, "requirements", false); c.name != "source edited" && other.State != Current {
				t.Errorf("the other view: %s %v", other.State, other.Reasons)
			}
		})
	}
}

// The deep oracle catches an output edited behind the receipt's back (same size, mtime put
// back), which the cheap check cannot see, and it writes nothing.
func TestDeepOracle(t *testing.T) {
	d := example(t, nil)
	publish(t, d)
	out := filepath.Join(d.Root, "site", "architecture.html")
	st, _ := os.Stat(out)
	b, _ := os.ReadFile(out)
	f, _ := os.OpenFile(out, os.O_WRONLY, 0)
	f.WriteAt(bytes.Replace(b, []byte("Shipment store"), []byte("Shipment stork"), 1), 0)
	f.Close()
	os.Chtimes(out, st.ModTime(), st.ModTime())
	before := tree(t, d.Root)
	if s := status(t, d, "architecture", false); s.State != Current {
		t.Fatalf("cheap check after a same-size edit: %s, want current (it cannot see it)", s.State)
	}
	s := status(t, d, "architecture", true)
	if s.State != Stale || s.Deep == nil || s.Deep.Identical || !strings.Contains(strings.Join(s.Reasons, ";"), "differs from a fresh render") {
		t.Errorf("deep: %+v", s)
	}
	if ok := status(t, d, "requirements", true); ok.State != Current || !ok.Deep.Identical {
		t.Errorf("deep on the untouched view: %+v", ok)
	}
	if after := tree(t, d.Root); after != before {
		t.Errorf("deep status wrote something:\nbefore %s\nafter  %s", before, after)
	}
}

// tree lists every file under root with its size and mtime.
func tree(t *testing.T, root string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			b.WriteString(p + " " + info.ModTime().Format(time.RFC3339Nano) + " " + strconv.FormatInt(info.Size(), 10) + "\n")
		}
		return nil
	})
	return b.String()
}

const evil = `+++
id = "arch.evil"
kind = "component"
family = "architecture"
title = "Evil"
+++
# Evil

<script>alert("block")</script>

Inline <img src="x" onerror="alert('inline')"> and <b onclick="alert(1)">bold</b>.

[click](javascript:alert('link')) and [ok](https://example.org/page).

| a | b |
|---|---|
| 1 | 2 |

- [x] done
- [ ] open

Text with a note[^1].

[^1]: The note.
`

// Raw HTML in a body never becomes markup: an HTML parser finds no script element, no event
// handler attribute and no javascript: URL; the HTML is shown as text. GFM tables, task lists
// and footnotes render. With raw_html = true the descriptor opts in and the markup passes.
func TestRawHTMLIsEscapedUnlessOptedIn(t *testing.T) {
	d := example(t, map[string]string{"docs/architecture/evil.md": evil})
	publish(t, d, "architecture")
	page, _ := os.ReadFile(filepath.Join(d.Root, "site", "architecture.html"))
	scripts, handlers, jsURLs := scan(t, page)
	if scripts != 0 || handlers != 0 || jsURLs != 0 {
		t.Errorf("sanitising failed: %d script elements, %d on* attributes, %d javascript: URLs", scripts, handlers, jsURLs)
	}
	for _, want := range []string{"&lt;script&gt;alert(", "&lt;img src=", "<table>", `type="checkbox"`, `id="arch.evil--fn:1"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %s", want)
		}
	}

	toml := filepath.Join(d.Root, project.FileName)
	b, _ := os.ReadFile(toml)
	os.WriteFile(toml, append(b, []byte("\n[render]\nraw_html = true\n")...), 0o644)
	d = load(t, d.Root)
	if !d.Render.RawHTML {
		t.Fatal("raw_html was not read")
	}
	publish(t, d, "architecture")
	page, _ = os.ReadFile(filepath.Join(d.Root, "site", "architecture.html"))
	if scripts, _, _ := scan(t, page); scripts != 1 {
		t.Errorf("with raw_html = true: %d script elements, want the body's one", scripts)
	}
}

// scan parses a page and counts what would run.
func scan(t *testing.T, page []byte) (scripts, handlers, jsURLs int) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "script" {
				scripts++
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					handlers++
				}
				if (a.Key == "href" || a.Key == "src") && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					jsURLs++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return scripts, handlers, jsURLs
}

// An output whose directory is a symlink out of the project is refused, and nothing is written
// outside.
func TestOutputPathEscapeIsRefused(t *testing.T) {
	d := example(t, nil)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(d.Root, "site")); err != nil {
		t.Fatal(err)
	}
	_, err := Publish(context.Background(), d, "", nil, PublishOptions{})
	if problem.CodeOf(err) != problem.PathEscape {
		t.Fatalf("publish through a symlink out: %v, want path_escape", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the project: %v", entries)
	}
	if s := status(t, d, "architecture", false); s.State != Unverified {
		t.Errorf("status of an escaping output: %+v", s)
	}
}

// An invalid project renders nothing and says why.
func TestInvalidProjectIsNotRendered(t *testing.T) {
	d := example(t, map[string]string{"docs/architecture/bad.md": "+++\nid = \"arch.bad\"\nkind = \"nope\"\nfamily = \"architecture\"\n+++\nBad.\n"})
	_, err := Publish(context.Background(), d, "", nil, PublishOptions{})
	if problem.CodeOf(err) != problem.ProjectInvalid {
		t.Fatalf("publish an invalid project: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.Root, "site")); !os.IsNotExist(err) {
		t.Errorf("something was written: %v", err)
	}
	if _, err := Publish(context.Background(), d, "", []string{"nope"}, PublishOptions{}); problem.CodeOf(err) != problem.InvalidArgument {
		t.Errorf("unknown view: %v", err)
	}
}

// A view large enough to be rendered in parallel batches gives the same bytes with any number
// of goroutines, and the same as the buffered Render.
func TestParallelRenderIsIdentical(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, project.FileName), []byte(`schema_version = 1
[project]
id = "par"
name = "Parallel"
[sources]
content_roots = ["docs"]
[relations]
allowed = ["depends_on"]
[families.design]
kinds = ["component"]
[[views]]
id = "all"
output = "out/all.html"
`), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	for i := 0; i < 300; i++ {
		body := fmt.Sprintf("+++\nid = \"n.%03d\"\nkind = \"component\"\nfamily = \"design\"\ntitle = \"Node %d\"\n[relations]\ndepends_on = [\"n.%03d\"]\n+++\n# Node %d\n\nSee [[n.%03d]].\n\n## Part\n\nText[^a].\n\n[^a]: Note %d.\n",
			i, i, (i+1)%300, i, (i+7)%300, i)
		os.WriteFile(filepath.Join(root, "docs", fmt.Sprintf("n%03d.md", i)), []byte(body), 0o644)
	}
	d := load(t, root)
	g, err := Load(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, workers := range []int{1, 2, 3, 7} {
		var b bytes.Buffer
		if err := HTML.RenderTo(&b, d, g, "all", Options{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
			continue
		}
		if !bytes.Equal(first, b.Bytes()) {
			t.Errorf("%d goroutines render different bytes", workers)
		}
	}
	if page, _ := HTML.Render(d, g, "all", Options{}); !bytes.Equal(page, first) {
		t.Error("Render differs from RenderTo")
	}
	if n := bytes.Count(first, []byte(`<section class="node"`)); n != 300 {
		t.Errorf("%d sections, want 300", n)
	}
	if !bytes.Contains(first, []byte(`id="n.150--part"`)) || !bytes.Contains(first, []byte(`id="n.150--fn:1"`)) {
		t.Error("heading or footnote IDs are not per node")
	}
	publish(t, d)
	if s := status(t, d, "all", true); s.State != Current || !s.Deep.Identical {
		t.Errorf("deep status of a fresh parallel render: %+v", s)
	}
}

// A relation whose target changed since it was stamped carries a visible marker saying what
// changed; the others do not.
func TestSuspectRelationsAreMarked(t *testing.T) {
	d := example(t, nil)
	desk, err := changeset.NewDesk(d, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := desk.Confirm(context.Background(), nil, changeset.ConfirmOptions{}); err != nil {
		t.Fatal(err)
	}
	publish(t, d)
	arch, _ := os.ReadFile(filepath.Join(d.Root, "site", "architecture.html"))
	if bytes.Contains(arch, []byte(`class="suspect"`)) {
		t.Fatal("a freshly stamped project shows suspect markers")
	}
	edit(t, d, "code/normalize/normalize.go", "return store.Event{State: state, At: s.At.UTC()}", "return store.Event{State: state, At: s.At}")
	publish(t, d)
	arch, _ = os.ReadFile(filepath.Join(d.Root, "site", "architecture.html"))
	var marked []string
	for _, line := range strings.Split(string(arch), "\n") {
		if strings.Contains(line, `class="suspect"`) {
			marked = append(marked, line)
		}
	}
	if len(marked) != 1 || !strings.Contains(marked[0], `<code>go:example.com/courier/normalize.Normalize</code>`) ||
		!strings.Contains(marked[0], `>suspect: body changed</span>`) || !strings.Contains(marked[0], "docforge review arch.normalizer") {
		t.Errorf("want exactly the relation to Normalize marked, got %q", marked)
	}
}

// Warnings never make a project invalid: a tree with more warnings than render collects (200)
// renders.
// pagesDescriptor is a project of Markdown pages under docs/, their IDs from their paths, in
// one family with one view of it (site/docs.html); links is a [sources.links] table or "".
func pagesDescriptor(id, links string) string {
	return fmt.Sprintf(`schema_version = 1
[project]
id = %q
[sources]
content_roots = ["docs"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
%s[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
[[views]]
id = "docs"
title = "Docs"
families = ["docs"]
output = "site/docs.html"
`, id, links)
}

func TestManyWarningsStillRender(t *testing.T) {
	var body strings.Builder
	for i := range 250 {
		fmt.Fprintf(&body, "[gone %d](gone-%d.md)\n", i, i)
	}
	d := writeSite(t, pagesDescriptor("warned", "[sources.links]\ndangling = \"warning\"\n"), map[string]string{"docs/page.md": "# Page\n\n" + body.String()})
	if _, err := Load(context.Background(), d, ""); err != nil {
		t.Fatalf("load: %v", err)
	}
	if pub := publish(t, d); len(pub) != 1 {
		t.Errorf("published %d views", len(pub))
	}
}

// writeSite writes a project (descriptor and files, project-relative) and loads it.
func writeSite(t *testing.T, descriptor string, files map[string]string) *project.Descriptor {
	t.Helper()
	root := t.TempDir()
	files["docforge.toml"] = descriptor
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return load(t, root)
}

// A Hugo page renders as Hugo would show it: ref and relref are links to the target's
// section (on this page or another view's), notices and GitHub alerts are callouts, a
// {{< >}} block's input is code, other shortcodes are left out and counted; Markdown links
// to pages point at their sections (with the heading an anchor names), links to other files
// are relative to the page, and same-node anchors reach the prefixed heading IDs.
func TestHugoPagesRender(t *testing.T) {
	d := writeSite(t, `schema_version = 1
[project]
id = "site"
[sources]
content_roots = ["content"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
family_from_folder = true
foreign_fields = "ignore"
[sources.links]
site = "hugo"
[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
[families.decisions]
kinds = ["page"]
[[views]]
id = "docs"
title = "Docs"
families = ["docs"]
output = "site/docs.html"
[[views]]
id = "decisions"
title = "Decisions"
families = ["decisions"]
output = "site/decisions.html"
`, map[string]string{
		"README.md":                    "# Repo\n",
		"content/docs/api.md":          "+++\ntitle = \"API\"\n+++\nThe API.\n",
		"content/decisions/adr-001.md": "+++\ntitle = \"ADR 1\"\n+++\n## Context\n\nWhy.\n",
		"content/docs/guide.md": "+++\ntitle = \"Guide\"\n+++\n" + strings.Join([]string{
			`See [the API]({{< relref "api.md" >}}) and [the decision]({{% relref "/decisions/adr-001#context" %}}).`,
			`Also [api](api.md), [adr](../decisions/adr-001.md#context), [readme](../../README.md) and [below](#Usage).`,
			``,
			`{{% notice warning %}}`,
			`Mind the gap.`,
			`{{% /notice %}}`,
			``,
			`> [!TIP]`,
			`> A tip.`,
			``,
			`{{< figure src="x.png" >}}`,
			``,
			`{{< code-toggle file=hugo >}}`,
			`[[cascade]]`,
			`{{< /code-toggle >}}`,
			``,
			`## Usage`,
		}, "\n") + "\n",
	})
	pub, err := Publish(context.Background(), d, "", nil, PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(d.Root, "site", "docs.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		`<a href="#docs/api">the API</a>`,
		`<a href="decisions.html#decisions/adr-001--context">the decision</a>`,
		`<a href="#docs/api">api</a>`,
		`<a href="decisions.html#decisions/adr-001--context">adr</a>`,
		`<a href="../README.md">readme</a>`,
		`<a href="#docs/guide--usage">below</a>`,
		`id="docs/guide--usage"`,
		`<blockquote class="callout callout-warning">`,
		`<p class="callout-title">Warning</p>`,
		`<blockquote class="callout callout-tip">`,
		"<pre><code>[[cascade]]\n</code></pre>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, gone := range []string{"{{", ".md\"", "[!TIP]"} {
		if strings.Contains(strings.ReplaceAll(html, `"../README.md"`, ""), gone) {
			t.Errorf("the page still holds %q", gone)
		}
	}
	if got := pub[0].Shortcodes; pub[0].View != "docs" || got["figure"] != 1 || got["code-toggle"] != 1 || len(got) != 2 {
		t.Errorf("report of view %s: %v, want figure and code-toggle once each", pub[0].View, got)
	}
}

// MkDocs and Docusaurus admonitions render as callouts, their titles kept, their bodies
// Markdown; in fenced code, and without a closing :::, they stay text.
func TestAdmonitionsRenderAsCallouts(t *testing.T) {
	d := writeSite(t, pagesDescriptor("site", ""), map[string]string{
		"docs/mkdocs.md": strings.Join([]string{
			`# MkDocs`,
			`!!! warning "Mind the gap & more"`,
			`    The **first** line.`,
			``,
			`    The second paragraph.`,
			``,
			`??? tip`,
			`    Folded.`,
			``,
			"```",
			`!!! note "in code"`,
			"```",
			`After.`,
		}, "\n") + "\n",
		"docs/docusaurus.md": strings.Join([]string{
			`# Docusaurus`,
			`:::note[Before you start]`,
			`Install it *first*.`,
			`:::`,
			``,
			`:::danger Take care`,
			`Really.`,
			`:::`,
			``,
			`:::tipTo understand it better, see`,
			`[the visualization](https://example.com/raft).:::`,
			``,
			`:::note If ACL is on, the query returns only the`,
			`predicates you may read. :::`,
			``,
			`1. Generate a key:`,
			"   ```bash",
			`   openssl rand 32`,
			"   ```",
			`   :::note`,
			`   On macOS, set LC_CTYPE first.`,
			`   :::`,
			``,
			`2. Store it.`,
			``,
			`:::info unclosed`,
		}, "\n") + "\n",
	})
	if _, err := Publish(context.Background(), d, "", nil, PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(d.Root, "site", "docs.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		`<blockquote class="callout callout-warning">`,
		`<p class="callout-title">Mind the gap &amp; more</p>`,
		`<strong>first</strong>`,
		`<p>The second paragraph.</p>`,
		`<blockquote class="callout callout-tip">`,
		`<p class="callout-title">Tip</p>`,
		"<pre><code>!!! note &quot;in code&quot;\n</code></pre>",
		`<blockquote class="callout callout-note">`,
		`<p class="callout-title">Before you start</p>`,
		`<em>first</em>`,
		`<blockquote class="callout callout-danger">`,
		`<p class="callout-title">Take care</p>`,
		`<p>To understand it better, see`,
		`<p>If ACL is on, the query returns only the`,
		"<li>\n<p>Generate a key:</p>\n<pre><code class=\"language-bash\">openssl rand 32\n</code></pre>\n<blockquote class=\"callout callout-note\">",
		`<p>On macOS, set LC_CTYPE first.</p>`,
		`:::info unclosed`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Count(html, ":::") != 1 || strings.Contains(html, "[!") {
		t.Errorf("markers left in the page:\n%s", html)
	}
}
