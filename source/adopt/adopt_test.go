package adopt_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
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
