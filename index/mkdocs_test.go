package index_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
)

// mkdocsDescriptor adopts an MkDocs site's docs folder, as init writes it.
const mkdocsDescriptor = `schema_version = 1
[project]
id = "site"
[sources]
content_roots = ["docs"]
[sources.defaults]
id = "path"
kind = "page"
family = "docs"
[sources.links]
site = "mkdocs"
[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
`

// An MkDocs site's pages are titled as the built site titles them (nav entry, front matter,
// first H1, file name), and a link written as a URL resolves against the page's URL as the
// built site does; a change of the nav is a change of the project.
func TestMkDocsSite(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": mkdocsDescriptor,
		"mkdocs.yml": "site_name: Site\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n" +
			"nav:\n  - Introduction: index.md\n  - Advanced:\n      - Authentication: advanced/auth.md\n      - advanced/transports.md\n",
		"docs/index.md":               "## Features\n\nSee [transports](advanced/transports.md).\n",
		"docs/advanced/auth.md":       "## Basic authentication\n\nRead [the async guide](../async/).\n",
		"docs/advanced/transports.md": "# Transports\n\n## ASGI transport\n",
		"docs/async.md":               "---\ntitle: Async support\n---\n\nUse [the ASGI transport](../advanced/transports#asgi-transport).\n",
		"docs/logging.md":             "## Enabling logging\n",
	})
	d := load(t, root)
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	title := func(id string) string {
		t.Helper()
		snap, err := index.Open(ctx, d)
		must(t, err)
		defer snap.Close()
		n, err := snap.Get(ctx, id)
		must(t, err)
		return n.Title
	}
	for id, want := range map[string]string{
		"index":               "Introduction",   // the nav entry, not the first (H2) heading
		"advanced/auth":       "Authentication", // likewise
		"advanced/transports": "Transports",     // a bare nav entry: its H1
		"async":               "Async support",  // front matter
		"logging":             "logging",        // no H1: the file name
	} {
		if got := title(id); got != want {
			t.Errorf("%s: title %q, want %q", id, got, want)
		}
	}
	v, err := source.Validate(ctx, d, golang.PolicyAST, 0)
	must(t, err)
	for _, p := range v.Problems {
		if p.Code == problem.DanglingLink {
			t.Errorf("a link the built site resolves is dangling: %s", p)
		}
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	deps, err := snap.Dependencies(ctx, "async", 10)
	must(t, err)
	snap.Close()
	if !slices.ContainsFunc(deps.Links, func(l index.Link) bool { return l.NodeID == "advanced/transports" }) {
		t.Errorf("async's links: %+v", deps.Links)
	}

	// A new nav title: the project is stale, and the next sync titles the page anew.
	cfg := filepath.Join(root, "mkdocs.yml")
	src, err := os.ReadFile(cfg)
	must(t, err)
	must(t, os.WriteFile(cfg, []byte(string(src)+"  - Logging: logging.md\n"), 0o644))
	d = load(t, root)
	st, err := index.CheckStatus(ctx, d, golang.PolicyAST, "")
	must(t, err)
	if st.State != publication.Stale {
		t.Errorf("after a nav edit: %s (%s)", st.State, st.Reason)
	}
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := title("logging"); got != "Logging" {
		t.Errorf("after a nav edit, logging is titled %q", got)
	}

	// Without directory URLs a page is served at a/b.html: its links resolve from its folder,
	// where ../advanced/transports climbs out of the site.
	must(t, os.WriteFile(cfg, []byte(string(src)+"use_directory_urls: false\n"), 0o644))
	d = load(t, root)
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	snap, err = index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	deps, err = snap.Dependencies(ctx, "async", 10)
	must(t, err)
	if len(deps.Links) != 0 {
		t.Errorf("without directory URLs, async's links: %+v", deps.Links)
	}
}
