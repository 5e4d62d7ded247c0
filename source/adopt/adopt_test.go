package adopt_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/adopt"
	"github.com/docforge/docforge/source/project"
)

// graphOf lists a project's nodes, edges (with their anchors) and problems in the form of a
// fixture's expected.txt.
func graphOf(t *testing.T, d *project.Descriptor) []string {
	t.Helper()
	inv, err := source.Scan(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	check := source.NewChecker(d)
	var lines []string
	var probs []problem.Problem
	probs = append(probs, inv.Problems...)
	err = source.NewLoader(d, "").Each(context.Background(), inv.Files, func(p source.Parsed) error {
		check.Add(p.Fragment)
		probs = append(probs, p.Fragment.Problems...)
		for _, n := range p.Fragment.Nodes {
			lines = append(lines, fmt.Sprintf("node %s | %s | %s", n.ID, n.Title, n.Family))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range check.Edges() {
		line := fmt.Sprintf("edge %s %s %s", e.Source, e.Relation, e.Target)
		if e.Anchor != "" {
			line += " #" + e.Anchor
		}
		lines = append(lines, line)
	}
	for _, p := range append(probs, check.Problems()...) {
		lines = append(lines, fmt.Sprintf("problem %s: %s %s", p.Location, p.Severity, p.Code))
	}
	slices.Sort(lines)
	return lines
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// Each fixture, written in one tool's style, becomes the expected graph through the
// descriptor the survey proposes, without a document being edited.
func TestFixturesAdoptWithoutEdits(t *testing.T) {
	cases := []struct {
		fixture, generator string
		roots              []string
		toml, yaml, none   int
	}{
		{"adopt-hugo", "hugo", []string{"content"}, 5, 0, 0},
		{"adopt-docusaurus", "docusaurus", []string{"docs"}, 0, 4, 0},
		{"adopt-github", "", []string{"docs"}, 0, 0, 5},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			root := fixture.Temp(t, filepath.Join("../../examples/testdata", c.fixture))
			s, err := adopt.Take(root)
			if err != nil {
				t.Fatal(err)
			}
			if s.Generator != c.generator || !slices.Equal(s.Roots, c.roots) || s.TOML != c.toml || s.YAML != c.yaml || s.None != c.none {
				t.Fatalf("survey: %+v", s)
			}
			if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(s.Descriptor("courier", "Courier")), 0o644); err != nil {
				t.Fatal(err)
			}
			d, probs, err := project.Load(root)
			if err != nil || d == nil {
				t.Fatalf("descriptor: %v %v\n%s", err, probs, s.Descriptor("courier", "Courier"))
			}
			got := graphOf(t, d)
			want := readLines(t, filepath.Join(root, "expected.txt"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("graph:\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestTreeWithoutMarkdownHasNoRoots(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := adopt.Take(dir)
	if err != nil || len(s.Roots) != 0 || s.Files != 0 {
		t.Fatalf("survey %+v, %v", s, err)
	}
}

func TestFolderFamilies(t *testing.T) {
	for folder, want := range map[string]string{"storage": "storage", "getting-started": "getting_started", "01-intro": "", "code": "", "API": "api"} {
		if got := adopt.Family(folder); got != want {
			t.Errorf("Family(%q) = %q, want %q", folder, got, want)
		}
	}
}

// A Hugo theme's repository (theme.toml, layouts, an example site) is a Hugo tree, and its
// archetypes, page templates whose front matter holds template actions, are left out: the
// tree adopts without an error.
func TestHugoThemeAdopts(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"theme.toml":                                 "name = \"Learn\"\n",
		"layouts/_default/single.html":               "{{ .Content }}\n",
		"archetypes/chapter.md":                      "+++\ntitle = \"{{ replace .Name \"-\" \" \" | title }}\"\ndate = {{ .Date }}\n+++\n",
		"README.md":                                  "# Learn\n\nA theme. See the [basics](exampleSite/content/basics/_index.md).\n",
		"exampleSite/config.toml":                    "baseURL = \"/\"\ntheme = \"learn\"\n",
		"exampleSite/content/_index.md":              "+++\ntitle = \"Learn\"\n+++\n# Learn\n",
		"exampleSite/content/basics/_index.md":       "+++\ntitle = \"Basics\"\n+++\nStart with the [requirements](requirements).\n",
		"exampleSite/content/basics/requirements.md": "+++\ntitle = \"Requirements\"\n+++\nHugo.\n",
	})
	s, err := adopt.Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Generator != "hugo" {
		t.Fatalf("survey: %+v", s)
	}
	text := s.Descriptor("learn", "Learn")
	if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v\n%s", err, probs, text)
	}
	got := strings.Join(graphOf(t, d), "\n")
	if strings.Contains(got, "archetypes") || strings.Contains(got, ": error ") || strings.Contains(text, "archetypes]") ||
		!strings.Contains(got, "edge examplesite/content/basics relates_to examplesite/content/basics/requirements") {
		t.Errorf("graph:\n%s\ndescriptor:\n%s", got, text)
	}
}

// Three code layouts as their ecosystems lay them out: a Python package under src/ with tests
// beside it, a TypeScript monorepo of npm workspaces, a CommonJS library. init finds each
// language, declares the code root, and the graph it proposes relates the code across files
// and packages, without a file being edited.
func TestCodeLayoutsAdopt(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		langs map[string]adopt.LanguageFiles
		edges []string
	}{
		{"python src layout", map[string]string{
			"pyproject.toml":           "[project]\nname = \"tally\"\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\n",
			"README.md":                "# Tally\nCounts things with `Counter.add`.\n",
			"src/tally/__init__.py":    "\"\"\"Tally counts.\"\"\"\nfrom tally.counter import Counter\n",
			"src/tally/counter.py":     "class Counter:\n    def add(self, n):\n        self.total = _clamp(n)\n\n\ndef _clamp(n):\n    return max(n, 0)\n",
			"tests/conftest.py":        "import pytest\n",
			"tests/test_counter.py":    "from tally import Counter\n\n\ndef test_add():\n    c = Counter()\n    c.add(1)\n",
			"docs/index.md":            "# Docs\n",
			"scripts/release.sh":       "#!/bin/sh\necho release\n",
			"src/tally/py.typed":       "",
			"src/tally/data/table.csv": "a,b\n1,2\n",
		}, map[string]adopt.LanguageFiles{"python": {Files: 4, Tests: 2, Builds: map[string]int{"pyproject.toml": 1}}}, []string{
			"py:src/tally/counter.py/Counter.add calls py:src/tally/counter.py/_clamp",
			"py:src/tally/counter.py/Counter.add tested_by py:tests/test_counter.py/test_add",
			"py:tests/test_counter.py imports py:src/tally/__init__.py",
		}},
		{"typescript workspaces", map[string]string{
			"package.json":                       `{"private": true, "workspaces": ["packages/*"]}`,
			"tsconfig.json":                      `{"compilerOptions": {"strict": true}}`,
			"packages/proto/package.json":        `{"name": "@w/proto", "type": "module", "exports": {".": "./dist/index.js"}}`,
			"packages/proto/src/index.ts":        "export * from './frame.js';\n",
			"packages/proto/src/frame.ts":        "/** A frame. */\nexport interface Frame { id: number }\nexport function encode(f: Frame): string { return String(f.id); }\n",
			"packages/client/package.json":       `{"name": "@w/client", "main": "./dist/client.js"}`,
			"packages/client/src/client.ts":      "import { encode, type Frame } from '@w/proto';\nexport class Client { send(f: Frame) { return encode(f); } }\n",
			"packages/client/src/client.spec.ts": "import { Client } from './client.js';\ndescribe('Client', () => { it('sends', () => { new Client().send({ id: 1 }); }); });\n",
		}, map[string]adopt.LanguageFiles{"typescript": {Files: 4, Tests: 1}}, []string{
			"ts:packages/client/src/client.ts imports ts:packages/proto/src/index.ts",
			"ts:packages/client/src/client.ts/Client.send calls ts:packages/proto/src/frame.ts/encode",
			"ts:packages/client/src/client.ts/Client.send depends_on ts:packages/proto/src/frame.ts/Frame",
			"ts:packages/client/src/client.ts/Client.send tested_by ts:packages/client/src/client.spec.ts/Client.sends",
		}},
		{"commonjs library", map[string]string{
			"package.json":             `{"name": "left", "main": "index.js", "scripts": {"test": "tap"}}`,
			"index.js":                 "'use strict';\nconst pad = require('./lib/pad');\nmodule.exports = function left(s, n) { return pad(s, n, ' '); };\n",
			"lib/pad.js":               "/** Pad s to n with c. */\nfunction pad(s, n, c) { return c.repeat(n) + s; }\nmodule.exports = pad;\n",
			"test/left.test.js":        "const t = require('tap');\nconst left = require('..');\nt.test('pads', (t) => { left('a', 2); t.end(); });\n",
			".github/workflows/ci.yml": "on: push\n",
		}, map[string]adopt.LanguageFiles{"javascript": {Files: 3, Tests: 1}}, []string{
			"js:index.js imports js:lib/pad.js",
			"js:index.js/default calls js:lib/pad.js/default",
			"js:lib/pad.js/default depends_on js:lib/pad.js/pad",
			"js:test/left.test.js imports js:index.js", // require('..'): the folder's index
			"js:index.js/default tested_by js:test/left.test.js/pads",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			fixture.WriteTree(t, root, c.files)
			s, err := adopt.Take(root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.CodeRoots, []string{"."}) || len(s.Languages) != len(c.langs) {
				t.Fatalf("survey: code roots %v, languages %v", s.CodeRoots, s.Languages)
			}
			for lang, want := range c.langs {
				if got := s.Languages[lang]; got == nil || !reflect.DeepEqual(*got, want) {
					t.Errorf("%s: %+v, want %+v", lang, got, want)
				}
			}
			desc := s.Descriptor("layout", "Layout")
			if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(desc), 0o644); err != nil {
				t.Fatal(err)
			}
			d, probs, err := project.Load(root)
			if err != nil || d == nil {
				t.Fatalf("descriptor: %v %v\n%s", err, probs, desc)
			}
			v, err := source.Validate(context.Background(), d, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if errs := problem.Errors(v.Problems); len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			nodes := map[string]bool{}
			var refs []graph.Edge
			err = source.NewLoader(d, "").WithFiles(v.Inventory.Files).Each(context.Background(), v.Inventory.Files, func(p source.Parsed) error {
				for _, n := range p.Fragment.Nodes {
					nodes[n.ID] = true
				}
				refs = append(refs, p.Fragment.Refs...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range graph.ResolveRefs(refs, func(id string) bool { return nodes[id] }, d.HasRelation) {
				got[e.Source+" "+e.Relation+" "+e.Target] = true
			}
			for _, e := range c.edges {
				if !got[e] {
					t.Errorf("no edge %s", e)
				}
			}
		})
	}
}

// An MkDocs site is adopted as MkDocs reads it: the pages under its docs_dir, and the pages
// its nav names that the tree does not hold (an API reference its build generates) declared
// generated, so that a link to one is no dangling link, while a link to a page that is
// neither in the tree nor generated still dangles.
func TestMkDocsSiteAdopts(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"mkdocs.yml": "site_name: Shop\ndocs_dir: handbook\nnav:\n  - Home: index.md\n  - Guide:\n      - guide/orders.md\n      - Changelog: changelog.md\n  - API Reference: api/\n  - Source: https://example.com/shop\n" +
			"markdown_extensions:\n  - pymdownx.emoji:\n      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n",
		"handbook/index.md":        "# Shop\nSee [orders](guide/orders.md), [the API](api/shop/index.md) and [the changelog](changelog.md).\n",
		"handbook/guide/orders.md": "# Orders\nBack [home](../index.md); [gone](../missing.md).\n",
		"docs/old.md":              "# An older tree MkDocs does not read\n",
	})
	s, err := adopt.Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Generator != "mkdocs" || !slices.Equal(s.Roots, []string{"handbook"}) || !slices.Equal(s.Generated, []string{"handbook/changelog.md", "handbook/api"}) {
		t.Fatalf("survey: roots %v, generated %v (%s)", s.Roots, s.Generated, s.Generator)
	}
	if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(s.Descriptor("shop", "Shop")), 0o644); err != nil {
		t.Fatal(err)
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	var dangling []string
	for _, line := range graphOf(t, d) {
		if strings.HasPrefix(line, "problem ") {
			dangling = append(dangling, line)
		}
	}
	if want := []string{"problem handbook/guide/orders.md:2:34: warning dangling_link"}; !slices.Equal(dangling, want) {
		t.Errorf("problems %v, want %v", dangling, want)
	}
}

// A Docusaurus site in a folder of its own is adopted as Docusaurus serves it: its current
// docs only (versioned copies, translations and React pages left out, so a doc's copies are no
// duplicate IDs), .mdx pages as Markdown, root-relative links found through each docs
// plugin's routeBasePath, pages named by their URLs (number prefixes dropped, a front matter
// id or slug taken), and links written as URLs relative to the page's URL.
func TestDocusaurusLinkResolution(t *testing.T) {
	root := t.TempDir()
	page := func(id, body string) string { return "---\nid: " + id + "\ntitle: " + id + "\n---\n" + body }
	fixture.WriteTree(t, root, map[string]string{
		"README.md": "# The repository\n",
		"web-docs/docusaurus.config.ts": `const config = {
  plugins: [
    ['@docusaurus/plugin-content-docs', {id: 'docs', path: 'docs', routeBasePath: '', versions: {'v2': {path: ''}}}],
    ['@docusaurus/plugin-content-docs', {id: 'graphql', path: 'docs-graphql', routeBasePath: 'graphql'}],
  ],
};
export default config;
`,
		"web-docs/docs/overview.md": page("overview", "See [the quick start](/quick-start), [backups](/admin/backups#full), [schema](/graphql/schema/) and [directives](../docs-graphql/schema/directives.md).\n"+
			"Then [access control](/admin/enable-acl), [running](/running), [tuning](guides/tuning) and [the release](/2024-01-release).\n"+
			"A slip: [running](/running]).\n"),
		"web-docs/docs/admin/acl.md":                                          page("enable-acl", "Access control.\n"),
		"web-docs/docs/guides/run.md":                                         "---\nslug: /running\n---\n# Running\n",
		"web-docs/docs/guides/tune.md":                                        "---\nslug: tuning\n---\n# Tuning\n",
		"web-docs/docs/2024-01-release.md":                                    "# Release\n",
		"web-docs/docs-graphql/01-basics/02-queries.md":                       "# Queries\n\nNext: [mutations](mutations), then [the overview](../../overview).\n",
		"web-docs/docs-graphql/01-basics/03-mutations.md":                     "# Mutations\n",
		"web-docs/docs/quick-start.mdx":                                       "---\nid: quick-start\n---\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n# Quick start\n\n<Tabs>\n<TabItem value=\"docker\">\nRun it, then read [the overview](overview.md).\n</TabItem>\n</Tabs>\n\n:::note\nMind the ports.\n:::\n",
		"web-docs/docs/admin/backups.md":                                      page("backups", "## Full\n\nBack to [the start](/).\n"),
		"web-docs/docs/index.md":                                              page("home", "Welcome.\n"),
		"web-docs/docs-graphql/schema/index.md":                               page("schema", "The schema; [directives](directives), [queries](../basics/queries), [backups](../../admin/backups).\n"),
		"web-docs/docs-graphql/schema/directives.md":                          page("directives", "Back to [the overview](/overview).\n"),
		"web-docs/versioned_docs/version-v1/overview.md":                      page("overview", "An older copy.\n"),
		"web-docs/i18n/fr/docusaurus-plugin-content-docs/current/overview.md": page("overview", "Aperçu.\n"),
		"web-docs/src/pages/about.md":                                         "# About\n",
	})
	s, err := adopt.Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Generator != "docusaurus" || !slices.Equal(s.Roots, []string{"web-docs"}) || s.Routes["/graphql"] != "web-docs/docs-graphql" || s.Routes["/"] != "web-docs/docs" {
		t.Fatalf("survey: generator %q, roots %v, routes %v", s.Generator, s.Roots, s.Routes)
	}
	if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(s.Descriptor("site", "Site")), 0o644); err != nil {
		t.Fatal(err)
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	got := graphOf(t, d)
	// A front matter id names the page within its folder, as Docusaurus reads it.
	for _, want := range []string{
		"edge docs/overview relates_to docs/quick-start",
		"edge docs/overview relates_to docs/admin/backups #full",
		"edge docs/overview relates_to docs-graphql/schema/schema",
		"edge docs/overview relates_to docs-graphql/schema/directives",
		"edge docs/quick-start relates_to docs/overview",
		"edge docs/admin/backups relates_to docs/home",
		"edge docs-graphql/schema/schema relates_to docs-graphql/schema/directives",
		"edge docs-graphql/schema/directives relates_to docs/overview",
		"node docs/quick-start | Quick start | docs",
		// Pages named as Docusaurus serves them, found by the URLs written.
		"edge docs/overview relates_to docs/admin/enable-acl",
		"edge docs/overview relates_to docs/running",
		"edge docs/overview relates_to docs/guides/tuning",
		"edge docs/overview relates_to docs/2024-01-release",
		"edge docs-graphql/schema/schema relates_to docs-graphql/basics/queries",
		"edge docs-graphql/basics/queries relates_to docs-graphql/basics/mutations",
		// From /graphql/schema (an index page's URL is its folder's), ../../admin/backups
		// climbs to /admin/backups, a page of the other docs plugin; from
		// /graphql/basics/queries, ../../overview is /overview.
		"edge docs-graphql/schema/schema relates_to docs/admin/backups",
		"edge docs-graphql/basics/queries relates_to docs/overview",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("graph lacks %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	// A URL with a character no ID holds names no page, though an ID would spell it.
	const slip = "problem web-docs/docs/overview.md:7:19: warning dangling_link"
	if !slices.Contains(got, slip) {
		t.Errorf("graph lacks %q", slip)
	}
	for _, line := range got {
		if line != slip && (strings.HasPrefix(line, "problem") || strings.Contains(line, "versioned") || strings.Contains(line, "i18n") || strings.Contains(line, "about")) {
			t.Errorf("unexpected %s", line)
		}
	}

	// With the other versions included, their copies are nodes of their own: the same front
	// matter id names a page in each version's folder, no duplicate.
	desc := strings.Replace(s.Descriptor("site", "Site"), `, "web-docs/*versioned_docs/**"`, "", 1)
	if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	d, probs, err = project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor with versions: %v %v", err, probs)
	}
	got = graphOf(t, d)
	if !slices.Contains(got, "node versioned_docs/version-v1/overview | overview | versioned_docs") && !slices.Contains(got, "node versioned_docs/version-v1/overview | overview | docs") {
		t.Errorf("the versioned copy is no node of its own:\n%s", strings.Join(got, "\n"))
	}
	for _, line := range got {
		if line != slip && strings.HasPrefix(line, "problem") {
			t.Errorf("with versions: %s", line)
		}
	}
}
