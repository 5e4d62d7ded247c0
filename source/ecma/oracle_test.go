package ecma_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/docforge/docforge/source/treesit"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/ecma"
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
	cmd := exec.Command("node", "declarations.mjs")
	cmd.Dir = oracleDir
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i], _ = filepath.Abs(f)
	}
	cmd.Stdin = strings.NewReader(strings.Join(abs, "\n") + "\n")
	oracle, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	compared, differ := 0, 0
	var gaps []string
	sc := bufio.NewScanner(bytes.NewReader(oracle))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		path, state, want := fields[0], fields[1], slices.DeleteFunc(fields[2:], func(s string) bool { return s == "" })
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
			gaps = append(gaps, fmt.Sprintf("%s:%d:%d: %s", path, facts.Error.Line, facts.Error.Column, facts.Error.Message))
		}
		var got []string
		for _, d := range facts.Decls {
			got = append(got, d.Qual())
		}
		slices.Sort(got)
		got = slices.Compact(got)
		compared++
		if !slices.Equal(got, want) {
			differ++
			if differ <= 5 {
				t.Errorf("%s:\n missing %v\n extra %v", path, minus(want, got), minus(got, want))
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d files differ", differ, compared)
	}
	if len(gaps)*100 > compared {
		t.Errorf("%d of %d files do not parse with tree-sitter though TypeScript parses them: %v", len(gaps), compared, gaps)
	}
	for _, g := range gaps {
		t.Logf("grammar gap: %s", g)
	}
	t.Logf("%d files compared", compared)
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
