package source_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/project"
)

const hugoDescriptor = `schema_version = 1
[project]
id = "site"
[sources]
content_roots = ["content"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
foreign_fields = "ignore"
[sources.links]
dangling = "warning"
%s
[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
`

// writeTree writes files (project-relative; a name ending in / is a folder) and the
// descriptor under root, and loads the project.
func writeTree(t *testing.T, root, descriptor string, files map[string]string) *project.Descriptor {
	t.Helper()
	must(t, os.MkdirAll(root, 0o755))
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(descriptor), 0o644))
	fixture.WriteTree(t, root, files)
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	return d
}

// Links resolve as Hugo resolves them (docs/project-format.md): a ref relative to the page,
// then from the content root, then by a unique page or bundle name; sections by _index.md;
// anchors kept; translations in the linking page's language; in a Hugo site (site = "hugo")
// route links the same way, case aside. What Hugo hands to a shortcode as it is, indented
// code, footnotes and shortcode destinations are not links; a callout's text is Markdown. Only a name that fits several
// pages, or none, is reported.
func TestHugoLinkResolution(t *testing.T) {
	page := func(title, body string) string { return "+++\ntitle = \"" + title + "\"\n+++\n" + body }
	files := map[string]string{
		"content/_index.md":           page("Home", ""),
		"content/docs/_index.md":      page("Docs", ""),
		"content/docs/install.md":     page("Install", "## Linux\n"),
		"content/docs/guide/index.md": page("Guide bundle", ""),
		"content/docs/Config.md":      page("Config", ""),
		"content/blog/install.md":     page("Installing the blog", ""),
		"content/blog/post.en.md":     page("Post", ""),
		"content/blog/post.fr.md":     page("Billet", ""),
		"content/blog/other.fr.md":    page("Autre", `{{< relref "post" >}}`+"\n"),
		"content/ref/unique-page.md":  page("Unique", `{{< relref "install" >}}`+"\n"),
		"content/blog/routes.en.md":   page("Routes", "[guide](docs/guide/) [cfg](/docs/config/#top)\n"),
		"content/docs/page.md": page("Page", strings.Join([]string{
			`1 {{< relref "install.md" >}}`,
			`2 {{< relref "docs/install" >}}`,
			`3 {{< relref "unique-page" >}}`,
			`4 {{< relref "guide" >}}`,
			`5 {{< ref "/docs" >}}`,
			`6 {{% relref "blog/install" %}}`,
			`7 {{< relref "install.md#linux" >}}`,
			`8 {{< relref "post" >}}`,
			`9 {{< relref "nothing-here" >}}`,
			``,
			`{{< code-toggle file=hugo >}}`,
			`[[cascade]]`,
			`[x](nowhere.md)`,
			`{{< /code-toggle >}}`,
			``,
			`    [[menu.main]]`,
			`    [y](nowhere.md)`,
			``,
			`Text.[^1]`,
			``,
			`[^1]: See the guide.`,
			`[z]: {{% eturl rss %}}`,
			``,
			`{{< notice warning >}}`,
			`Read [the config](Config.md) first.`,
			`{{< /notice >}}`,
		}, "\n")+"\n"),
	}
	// ignore: what the site's own render hook handles ([term](g) in Hugo's documentation).
	for _, site := range []string{`ignore = ["g"]`, "site = \"hugo\"\nignore = [\"g\"]"} {
		root := filepath.Join(t.TempDir(), "site")
		d := writeTree(t, root, strings.Replace(hugoDescriptor, "%s", site, 1), files)
		_, edges, probs := outcome(t, d)
		want := []string{
			"blog/other.fr>blog/post.fr#",
			"docs/page>blog/install#",
			"docs/page>blog/post.en#",
			"docs/page>docs#",
			"docs/page>docs/config#", // a callout's text is Markdown, as the renderer shows it
			"docs/page>docs/guide#",
			"docs/page>docs/install#",
			"docs/page>docs/install#linux",
			"docs/page>ref/unique-page#",
		}
		wantProbs := []string{
			"content/docs/page.md:12:15 warning dangling_link",      // nothing-here
			"content/ref/unique-page.md:4:13 warning dangling_link", // install: two pages
		}
		// A route is a URL, which site tools lower-case: /docs/config/ is Config.md either way.
		want = append(want, "blog/routes.en>docs/config#top")
		if strings.Contains(site, "hugo") {
			want = append(want, "blog/routes.en>docs/guide#")
		} else {
			// GitHub reads docs/guide/ relative to the page only.
			wantProbs = append(wantProbs, "content/blog/routes.en.md:4:9 warning dangling_link")
		}
		slices.Sort(want)
		slices.Sort(wantProbs)
		// The first link to a page gives the edge its anchor: docs/install has both forms.
		want = slices.DeleteFunc(want, func(e string) bool { return e == "docs/page>docs/install#linux" })
		if !slices.Equal(edges, want) {
			t.Errorf("%q: edges\n%q\nwant\n%q", site, edges, want)
		}
		if !slices.Equal(probs, wantProbs) {
			t.Errorf("%q: problems\n%q\nwant\n%q", site, probs, wantProbs)
		}
	}
}

// A root-relative link reads from the repository root, as GitHub does: /README.md and
// /LICENSE name files outside every content root, which are sound links but no relations;
// a root-relative link to nothing is still reported.
func TestRootRelativeLinksReadTheRepository(t *testing.T) {
	repo := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(repo, "LICENSE"), []byte("MIT\n"), 0o644))
	root := filepath.Join(repo, "proj")
	desc := strings.Replace(strings.Replace(hugoDescriptor, "%s", "", 1), `["content"]`, `["docs"]`, 1)
	d := writeTree(t, root, desc, map[string]string{
		"README.md": "# Project\n",
		"docs/a.md": "+++\ntitle = \"A\"\n+++\n[readme](/README.md) [licence](/LICENSE) [b](/docs/b.md) [gone](/GONE.md)\n",
		"docs/b.md": "+++\ntitle = \"B\"\n+++\n",
	})
	_, edges, probs := outcome(t, d)
	if want := []string{"a>b#"}; !slices.Equal(edges, want) {
		t.Errorf("edges %q, want %q", edges, want)
	}
	if want := []string{"docs/a.md:4:65 warning dangling_link"}; !slices.Equal(probs, want) {
		t.Errorf("problems %q, want %q", probs, want)
	}
}
