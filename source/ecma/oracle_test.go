package ecma_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/ecma"
	"github.com/docforge/docforge/source/treesit"
)

// oracleDir holds the oracle's npm packages: TypeScript 5 and the MCP TypeScript SDK as npm
// ships it ('make test' installs them with npm ci).
const oracleDir = "testdata/oracle"

// maxOracleFile leaves out the few huge generated files (typescript.js is 9 MB): they add
// minutes and no construct the rest lacks.
const maxOracleFile = 512 << 10

// The declarations the adapter finds in real TypeScript and JavaScript (the MCP TypeScript
// SDK's published .js and .d.ts, TypeScript's own library declarations) are exactly those
// TypeScript's own parser finds, file by file: module-level functions, classes, interfaces,
// type aliases, enums and variables, through namespaces and declare blocks, and the members
// of classes and interfaces.
func TestDeclarationsMatchTypeScriptsParser(t *testing.T) {
	modules := filepath.Join(oracleDir, "node_modules")
	fixture.NeedFile(t, filepath.Join(modules, "typescript"), "the npm package typescript", "run 'npm ci' in source/ecma/"+oracleDir+" ('make test' does)")
	fixture.NeedCommand(t, "node", "nodejs")
	var files []string
	for _, dir := range []string{"@modelcontextprotocol/sdk/dist/esm", "typescript/lib"} {
		err := filepath.WalkDir(filepath.Join(modules, dir), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if info, err := e.Info(); err == nil && info.Size() <= maxOracleFile && (strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".js")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 200 {
		t.Fatalf("%d files to compare; the SDK alone ships hundreds", len(files))
	}
	oracle := declarations(t, files)
	var tally fixture.Oracle
	for _, o := range oracle {
		path, state, want := o.path, o.state, o.decls
		if state == "!error" {
			t.Errorf("%s: TypeScript reports a syntax error in a published file", path)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := ecma.Extract(context.Background(), path, src, false, 0, treesit.Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		if facts.Error != nil {
			// Valid TypeScript the grammar cannot parse (tree-sitter-typescript fails on a
			// mapped type over `keyof readonly any[]`): counted, and compared all the same.
			tally.Gaps = append(tally.Gaps, fmt.Sprintf("%s:%d:%d: %s", path, facts.Error.Line, facts.Error.Column, facts.Error.Message))
		}
		var got []string
		for _, d := range facts.Decls {
			got = append(got, d.Qual())
		}
		tally.Compare(t, path, want, got)
	}
	tally.Finish(t, 100, "TypeScript")
}

// oracleFile is what TypeScript's parser found in one file: its state ("!error" when it
// reports a syntax error) and its declarations' qualified names, sorted.
type oracleFile struct {
	path, state string
	decls       []string
}

// declarations runs the oracle (declarations.mjs, TypeScript's own parser) on files.
func declarations(t *testing.T, files []string) []oracleFile {
	t.Helper()
	fixture.NeedFile(t, filepath.Join(oracleDir, "node_modules", "typescript"), "the npm package typescript", "run 'npm ci' in source/ecma/"+oracleDir+" ('make test' does)")
	fixture.NeedCommand(t, "node", "nodejs")
	cmd := exec.Command("node", "declarations.mjs")
	cmd.Dir = oracleDir
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i], _ = filepath.Abs(f)
	}
	cmd.Stdin = strings.NewReader(strings.Join(abs, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	var found []oracleFile
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		found = append(found, oracleFile{fields[0], fields[1], slices.DeleteFunc(fields[2:], func(s string) bool { return s == "" })})
	}
	return found
}

// Valid TypeScript that the grammar cannot parse (syntax newer than tree-sitter-typescript,
// met in the MCP TypeScript SDK) is not the file's fault: TypeScript parses each of these,
// the declarations around the gap are found, and the file's problem is a parser_limitation
// note, never a warning that says to fix the syntax.
func TestGrammarGapsAreNotTheFilesFault(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"export-type-star.ts": "export type * from './types';\nexport function kept(): number { return 1; }\n",
		"import-type-array.ts": "export function read(): void {\n    let entries: import('node:fs').Dirent[];\n    entries = [];\n}\n" +
			"export class Reader {\n    list(): string[] { return []; }\n}\n",
		"as-import-type.test.ts": "export function sink(): unknown {\n    return { diagnostics: [] as import('../src/types').Diagnostic[] };\n}\n" +
			"export const after = 2;\n",
	}
	var paths []string
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	gaps := 0
	for _, o := range declarations(t, paths) {
		if o.state == "!error" {
			t.Errorf("%s: TypeScript reports a syntax error; the case is not a grammar gap", o.path)
			continue
		}
		src, err := os.ReadFile(o.path)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := ecma.Extract(context.Background(), filepath.Base(o.path), src, false, 0, treesit.Bounds{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range facts.Decls {
			got = append(got, d.Qual())
		}
		slices.Sort(got)
		if missing := fixture.Minus(o.decls, got); len(missing) > 0 {
			t.Errorf("%s: the declarations around the gap are missing: %v (found %v)", filepath.Base(o.path), missing, got)
		}
		if facts.Error == nil {
			continue // the grammar reads it now
		}
		gaps++
		frag := code.FileFragment(code.File{Path: filepath.Base(o.path), Language: "typescript", Facts: facts, Scope: &code.Scope{}})
		for _, p := range frag.Problems {
			if p.Code != problem.ParserLimitation || p.Severity != problem.SeverityInfo || strings.Contains(p.Remediation+p.Message, "fix the syntax at the reported") {
				t.Errorf("%s: %s %s %q (%s)", filepath.Base(o.path), p.Severity, p.Code, p.Message, p.Remediation)
			}
		}
	}
	t.Logf("%d of %d files are grammar gaps", gaps, len(files))
}
