package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/adopt"
	"github.com/docforge/docforge/source/project"
)

const descriptorTemplate = `# DocForge project descriptor, schema version 1. See 'docforge help format'.
schema_version = 1

[project]
id = %q
name = %q

[sources]
content_roots = ["docs"]
exclude = ["**/testdata/**"]

[relations]
allowed = ["contains", "depends_on", "implements", "implemented_by", "tested_by", "documents",
           "governs", "verifies", "relates_to", "supersedes"]

[families.architecture]
kinds = ["component", "interface", "decision"]

[families.requirements]
kinds = ["requirement"]

[limits]
max_results = 200
max_response_chars = 65536
`

const sampleNode = `+++
id = "arch.overview"
kind = "component"
family = "architecture"
title = "Architecture overview"
status = "draft"
authority = "informative"
tags = ["overview"]
+++
# Architecture overview

Describe the system here. Refer to another node by writing its ID in double square
brackets, or declare typed relations in the front matter's [relations] table.
`

var nonID = regexp.MustCompile(`[^a-z0-9._-]+`)

func runInit(e *env) error {
	dir := "."
	if len(e.args) == 1 {
		dir = e.args[0]
	}
	if e.root != "" {
		dir = e.root
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	descPath := filepath.Join(abs, project.FileName)
	if _, err := os.Stat(descPath); err == nil {
		return problem.Errorf(problem.InvalidArgument, "%s already exists; init never overwrites a descriptor", descPath)
	}
	id := e.projectID
	if id == "" {
		id = strings.Trim(nonID.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "-"), "-._")
		if id == "" {
			id = "project"
		}
	}
	name := e.projectName
	if name == "" {
		name = filepath.Base(abs)
	}
	survey, err := adopt.Take(abs)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if len(survey.Roots) > 0 || survey.HasCode() {
		return adoptTree(e, abs, descPath, id, name, survey)
	}
	// Validate what we are about to write, so init never leaves a descriptor that fails.
	if err := os.MkdirAll(filepath.Join(abs, "docs"), 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	desc := fmt.Sprintf(descriptorTemplate, id, name)
	if _, probs := project.Parse([]byte(desc), abs); len(probs) > 0 {
		return problem.Errorf(problem.InvalidArgument, "project id %q is not usable: %s", id, probs[0].Message)
	}
	sample := filepath.Join(abs, "docs", "overview.md")
	var created []string
	if _, err := os.Stat(sample); errors.Is(err, fs.ErrNotExist) {
		if err := writeNew(sample, sampleNode); err != nil {
			return err
		}
		created = append(created, "docs/overview.md")
	}
	if err := writeNew(descPath, desc); err != nil {
		return err
	}
	created = append([]string{project.FileName}, created...)
	ignore, err := ignoreStateDir(abs)
	if err != nil {
		return err
	}
	created = ignore.files(created)
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"root": abs, "project_id": id, "created": created, "updated": ignore.updated()})
	}
	fmt.Fprintf(e.stdout, "initialised DocForge project %q in %s\n", id, abs)
	printWritten(e, created, ignore)
	fmt.Fprintln(e.stdout, "next: edit docforge.toml, then run 'docforge sync'")
	return nil
}

// writeNew writes a file that must not exist yet, atomically.
func writeNew(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if err := os.Link(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("init: create %s: %w", path, err)
	}
	return os.Remove(tmp)
}

// ignoreChange is what ignoreStateDir did to .gitignore.
type ignoreChange int

const (
	ignoreKept     ignoreChange = iota // it already listed the state directory
	ignoreCreated                      // there was none: it was written
	ignoreAppended                     // the state directory was added to the user's file
)

// files is created with .gitignore added when init wrote it new.
func (c ignoreChange) files(created []string) []string {
	if c == ignoreCreated {
		return append(created, ".gitignore")
	}
	return created
}

// updated lists the existing files init changed.
func (c ignoreChange) updated() []string {
	if c == ignoreAppended {
		return []string{".gitignore"}
	}
	return []string{}
}

// printWritten says which files init created and which of the user's it changed.
func printWritten(e *env, created []string, ignore ignoreChange) {
	for _, c := range created {
		if c == ".gitignore" {
			c += " (ignores " + project.StateDir + "/)"
		}
		fmt.Fprintf(e.stdout, "  created %s\n", c)
	}
	if ignore == ignoreAppended {
		fmt.Fprintf(e.stdout, "  appended %s/ to .gitignore\n", project.StateDir)
	}
}

// ignoreStateDir appends the state directory to .gitignore unless it is already listed,
// creating the file when there is none.
func ignoreStateDir(root string) (ignoreChange, error) {
	path := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ignoreKept, fmt.Errorf("init: read .gitignore: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if l := strings.TrimSpace(line); l == project.StateDir+"/" || l == project.StateDir || l == "/"+project.StateDir+"/" {
			return ignoreKept, nil
		}
	}
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += project.StateDir + "/\n"
	if err := safefile.WriteFile(path, []byte(text), 0o644); err != nil {
		return ignoreKept, fmt.Errorf("init: .gitignore: %w", err)
	}
	if existed {
		return ignoreAppended, nil
	}
	return ignoreCreated, nil
}

// printAdoption says what init adopted and what the first sync will find.
func printAdoption(e *env, abs, id string, s *adopt.Survey, counts source.Counts, found []problem.Problem, errs, skippedTOML int, created []string, ignore ignoreChange) {
	fmt.Fprintf(e.stdout, "initialised DocForge project %q in %s for %s\n", id, abs, adoptedLayout(s))
	if s.GoModule != "" {
		fmt.Fprintf(e.stdout, "  code roots: %s (Go: %d packages, %d files; calls, imports and tests become relations)\n", strings.Join(s.CodeRoots, ", "), s.GoPackages, s.GoFiles)
	}
	for _, lang := range slices.Sorted(maps.Keys(counts.Languages)) {
		c := counts.Languages[lang]
		fmt.Fprintf(e.stdout, "  %s: %d files, %d declarations, %d tests%s (calls, imports and tests become relations)\n", lang, c.Files, c.Declarations, c.Tests, buildsFound(s.Languages[lang]))
	}
	if len(s.Roots) > 0 {
		fmt.Fprintf(e.stdout, "  content roots: %s\n", strings.Join(s.Roots, ", "))
		fmt.Fprintf(e.stdout, "  files: %d Markdown (front matter: %d TOML, %d YAML, %d none)\n", s.Files, s.TOML, s.YAML, s.None)
		fmt.Fprintf(e.stdout, "  families: %s (one per top-level folder; kind page)\n", strings.Join(s.Families(), ", "))
	}
	if skippedTOML > 0 {
		fmt.Fprintf(e.stdout, "  skipped: %d TOML files without [[node]] tables (another tool's settings, not records)\n", skippedTOML)
	}
	fmt.Fprintf(e.stdout, "  nodes: %d; links: %d found, %d relations after resolving\n", counts.Nodes, counts.Links, counts.LinkEdges)
	fmt.Fprintf(e.stdout, "  problems: %s, %s\n", problem.Count(errs, "error"), problem.Count(len(found)-errs, "warning"))
	printProblemSummary(e.stdout, found)
	printWritten(e, created, ignore)
	if errs > 0 {
		fmt.Fprintln(e.stdout, "next: fix the errors above (the descriptor is written and correct), then run 'docforge sync'")
	} else {
		fmt.Fprintln(e.stdout, "next: run 'docforge sync', then 'docforge search TERM' or 'docforge view'")
	}
}

// buildsFound names the build manifests found of a language: "; build files: 3 Cargo.toml".
func buildsFound(c *adopt.LanguageFiles) string {
	if c == nil || len(c.Builds) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(c.Builds)) {
		parts = append(parts, fmt.Sprintf("%d %s", c.Builds[name], name))
	}
	return "; build files: " + strings.Join(parts, ", ")
}

// adoptedLayout names what init found: a Go module, a code tree in some languages or a
// documentation tree, and the docs generator beside code.
func adoptedLayout(s *adopt.Survey) string {
	docs := "documentation tree"
	if s.Generator != "" {
		docs = s.Generator + " documentation tree"
	}
	with := ""
	if s.Generator != "" {
		with = " (with a " + docs + ")"
	}
	switch langs := slices.Sorted(maps.Keys(s.Languages)); {
	case s.GoModule != "":
		return "the Go module " + s.GoModule + with
	case len(langs) > 0:
		return "a code tree in " + strings.Join(langs, ", ") + with
	}
	return "an existing " + docs
}

// settingsExclude are the exclude globs that leave out the TOML files at paths, which hold
// another tool's settings: **/NAME for a name no record file among files has, else each path.
func settingsExclude(paths []string, files []source.File) []string {
	skipped := map[string]bool{}
	for _, p := range paths {
		skipped[p] = true
	}
	records := map[string]bool{} // base names some record file has
	for _, f := range files {
		if strings.HasSuffix(f.Path, ".toml") && !skipped[f.Path] {
			records[path.Base(f.Path)] = true
		}
	}
	var globs []string
	for _, p := range paths {
		g := p
		if !records[path.Base(p)] {
			g = "**/" + path.Base(p)
		}
		if !slices.Contains(globs, g) {
			globs = append(globs, g)
		}
	}
	slices.Sort(globs)
	return globs
}

// adoptTree writes a descriptor that adopts an existing documentation tree as it is, then
// validates the project once and prints what the first sync will find. Problems in the
// documents do not undo the descriptor (it is correct); errors make init exit 1, saying what
// to fix before 'docforge sync'.
func adoptTree(e *env, abs, descPath, id, name string, s *adopt.Survey) error {
	desc := s.Descriptor(id, name)
	if _, probs := project.Parse([]byte(desc), abs); len(problem.Errors(probs)) > 0 {
		return problem.Errorf(problem.InvalidArgument, "the descriptor for this tree does not validate (%s); pass a usable --id", probs[0].Message)
	}
	if err := writeNew(descPath, desc); err != nil {
		return err
	}
	ignore, err := ignoreStateDir(abs)
	if err != nil {
		return err
	}
	created := ignore.files([]string{project.FileName})
	d, probs, err := project.Load(abs)
	if err != nil || d == nil {
		return fmt.Errorf("init: reload %s: %w (%v)", descPath, err, probs)
	}
	v, err := source.Validate(e.ctx, d, e.policy(), 0)
	if err != nil {
		return err
	}
	found, counts := v.Problems, v.Counts
	errs := problem.Errors(found)
	// Another tool's TOML under a content root (Cargo.toml, pyproject.toml) is no record file:
	// the descriptor leaves it out, so no sync warns about it; keep its notes out of the list.
	var settings []string
	found = slices.DeleteFunc(slices.Clone(found), func(p problem.Problem) bool {
		if p.Code == problem.NoRecords {
			settings = append(settings, p.Path)
			return true
		}
		return false
	})
	skippedTOML := len(settings)
	if skippedTOML > 0 {
		s.Settings = settingsExclude(settings, v.Inventory.Files)
		if err := safefile.WriteFile(descPath, []byte(s.Descriptor(id, name)), 0o644); err != nil {
			return fmt.Errorf("init: write %s: %w", descPath, err)
		}
	}
	if e.json {
		if err := e.writeJSON(e.stdout, map[string]any{"root": abs, "project_id": id, "created": created, "updated": ignore.updated(), "adopted": true,
			"generator": s.Generator, "content_roots": s.Roots, "front_matter": map[string]int{"toml": s.TOML, "yaml": s.YAML, "none": s.None},
			"families": s.Families(), "go_module": s.GoModule, "code_roots": s.CodeRoots, "go_packages": s.GoPackages, "go_files": s.GoFiles, "languages": s.Languages,
			"skipped_toml": skippedTOML, "counts": counts, "errors": len(errs), "warnings": len(found) - len(errs), "problems": found}); err != nil {
			return err
		}
	} else {
		printAdoption(e, abs, id, s, counts, found, len(errs), skippedTOML, created, ignore)
	}
	if len(errs) > 0 {
		return exitError(exitValidation)
	}
	return nil
}
