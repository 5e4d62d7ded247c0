package golang

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
)

func declNames(f *Facts) []string {
	var out []string
	for _, d := range f.Decls {
		name := d.Kind + " " + d.Name
		if d.Recv != "" {
			name = d.Kind + " " + d.Recv + "." + d.Name
		}
		out = append(out, name)
	}
	return out
}

func TestExtract(t *testing.T) {
	cases := []struct {
		name, file, src string
		decls           []string
		calls           map[string][]Callee // decl name -> calls
		docs            map[string]string   // decl name -> doc comment
		refs            map[string][]Callee // decl name -> references
		ignored         bool
		errLine         int
	}{
		{
			name: "declarations_and_receivers", file: "a.go",
			src:   "package a\n\ntype (\n\tT struct{}\n\tU[K comparable] map[K]int\n)\n\n// F does things.\nfunc F() {}\n\nfunc (t *T) M() {}\n\nfunc (u U[K]) N() {}\n\nfunc _() {}\n",
			decls: []string{"type T", "type U", "func F", "method T.M", "method U.N"},
		},
		{
			name: "calls_same_package_imported_and_through_the_receiver", file: "b.go",
			src:   "package b\n\nimport (\n\tstr \"strings\"\n\t\"example.com/x/v2\"\n)\n\ntype T struct{}\n\nfunc (t T) M() {\n\thelper()\n\tt.N()\n\t_ = str.ToUpper(\"a\")\n\tx.Do[int](1)\n\t_ = len(\"builtin\")\n\tgo func() { later() }()\n}\n\nfunc helper() {}\n",
			decls: []string{"type T", "method T.M", "func helper"},
			calls: map[string][]Callee{"M": {{Name: "helper"}, {Name: "later"}, {Recv: "T", Name: "N"}, {Pkg: "example.com/x/v2", Name: "Do"}, {Pkg: "strings", Name: "ToUpper"}}},
		},
		{
			// Package-level variables and constants are nodes, a spec of several names one node
			// each, grouped or not; blank names and locals are not.
			name: "vars_and_consts", file: "v.go",
			src: "package v\n\n// Aliases maps old names to new ones.\nvar Aliases = map[string]string{\"a\": \"b\"}\n\nconst (\n\t// Debug is the lowest level.\n\tDebug = iota\n\tInfo\n\t_\n)\n\nvar x, y int = 1, 2\n\n" +
				"var (\n\tmu sync.Mutex\n\tfn = func() { var local int; _ = local }\n)\n\nfunc F() { const inner = 1 }\n",
			decls: []string{"var Aliases", "const Debug", "const Info", "var x", "var y", "var mu", "var fn", "func F"},
			docs:  map[string]string{"Aliases": "Aliases maps old names to new ones.", "Debug": "Debug is the lowest level."},
		},
		{
			// Names used without a call are references: types in signatures and fields, variables
			// and constants read, imported members; locals, parameters, field names, composite
			// literal keys, calls and predeclared names are not.
			name: "references", file: "r.go",
			src: "package r\n\nimport \"example.com/x\"\n\nconst delay = 10\n\ntype Opts struct {\n\tD x.Duration\n\tM Middleware\n}\n\ntype Middleware func(int) error\n\n" +
				"type Server struct{ opts *Opts }\n\nfunc New(o *Opts, n int) *Server {\n\td := delay + n\n\ts := &Server{opts: o}\n\t_ = d\n\thelper(x.Now())\n\treturn s\n}\n\nfunc (s *Server) run() { var v Middleware; _ = v; _ = s.opts }\n\nfunc helper(any) {}\n",
			decls: []string{"const delay", "type Opts", "type Middleware", "type Server", "func New", "method Server.run", "func helper"},
			refs: map[string][]Callee{
				"Opts": {{Name: "Middleware"}, {Pkg: "example.com/x", Name: "Duration"}}, "Middleware": nil, "Server": {{Name: "Opts"}},
				"New": {{Name: "Opts"}, {Name: "Server"}, {Name: "delay"}}, "run": {{Name: "Middleware"}, {Name: "Server"}}, "helper": nil,
			},
		},
		{
			// A type literal in a signature is not the body: both extractors digest it alike.
			name: "struct_literal_in_a_result", file: "s.go",
			src:   "package s\n\ntype c struct{}\n\nfunc (c) Done() <-chan struct{} { return nil }\n",
			decls: []string{"type c", "method c.Done"},
		},
		{
			// A method called on a parameter or a local of an evident type resolves to that
			// type's method; on anything else it does not.
			name: "method_calls_on_typed_locals", file: "m.go",
			src: "package m\n\nimport \"example.com/srv\"\n\ntype T struct{}\n\nfunc (T) Run() {}\n\n" +
				"func F(s *srv.Server, t T, n int) {\n\ts.AddTool()\n\tt.Run()\n\tvar u T\n\tu.Stop()\n\tv := &srv.Client{}\n\tv.Call()\n\tw := new(T)\n\tw.Run()\n\tunknown.Do()\n\tn.String()\n}\n",
			decls: []string{"type T", "method T.Run", "func F"},
			calls: map[string][]Callee{"F": {{Recv: "T", Name: "Run"}, {Recv: "T", Name: "Stop"}, {Pkg: "example.com/srv", Recv: "Client", Name: "Call"}, {Pkg: "example.com/srv", Recv: "Server", Name: "AddTool"}}},
		},
		{
			name: "build_ignored_file", file: "c.go",
			src:     "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
			ignored: true,
		},
		{
			name: "other_platform_file_suffix", file: "d_plan9.go",
			src:     "package d\n\nfunc F() {}\n",
			ignored: true,
		},
		{
			name: "syntax_error", file: "e.go",
			src:     "package e\n\nfunc F( {\n",
			errLine: 3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := Extract(c.file, []byte(c.src), DefaultLogicLimit)
			if f.Ignored != c.ignored {
				t.Fatalf("ignored = %v, want %v", f.Ignored, c.ignored)
			}
			if c.errLine != 0 {
				if f.Error == nil || f.Error.Line != c.errLine {
					t.Fatalf("error = %+v, want one on line %d", f.Error, c.errLine)
				}
				return
			}
			if got := declNames(f); !slices.Equal(got, c.decls) {
				t.Errorf("decls = %v, want %v", got, c.decls)
			}
			for _, d := range f.Decls {
				if want, ok := c.calls[d.Name]; ok && !slices.Equal(d.Calls, want) {
					t.Errorf("%s calls %v, want %v", d.Name, d.Calls, want)
				}
				if want, ok := c.refs[d.Name]; ok && !slices.Equal(d.Refs, want) {
					t.Errorf("%s references %v, want %v", d.Name, d.Refs, want)
				}
				if want, ok := c.docs[d.Name]; ok && d.Doc != want {
					t.Errorf("%s doc %q, want %q", d.Name, d.Doc, want)
				}
			}
			// The lexical scanner finds the same declarations with the same digests.
			lex := Scan(c.file, []byte(c.src))
			if got := declNames(lex); !slices.Equal(got, declNames(f)) {
				t.Errorf("the scanner finds %v, go/ast %v", got, declNames(f))
			}
			for i := range min(len(lex.Decls), len(f.Decls)) {
				if lex.Decls[i].End != f.Decls[i].End {
					t.Errorf("%s: ends on line %d under go/ast, %d under the scanner", f.Decls[i].Name, f.Decls[i].End, lex.Decls[i].End)
				}
				if lex.Decls[i].Signature != f.Decls[i].Signature || lex.Decls[i].Implementation != f.Decls[i].Implementation {
					t.Errorf("%s: digests differ between the scanner and go/ast", f.Decls[i].Name)
				}
			}
		})
	}
}

func TestFileFragmentIDsAndTestEvidence(t *testing.T) {
	src := "package p_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/p\"\n)\n\nfunc TestRun(t *testing.T) { p.Run() }\n\nfunc init() {}\n\nfunc init() {}\n"
	frag := FileFragment("p/p_test.go", "example.com/m/p", Extract("p_test.go", []byte(src), 0))
	var ids []string
	for _, n := range frag.Nodes {
		ids = append(ids, n.ID)
	}
	want := []string{"go:example.com/m/p/p_test.go", "go:example.com/m/p_test.TestRun", "go:example.com/m/p_test.init.p_test.1", "go:example.com/m/p_test.init.p_test.2"}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	found := false
	for _, r := range frag.Refs {
		if r.Source == "go:example.com/m/p.Run" && r.Relation == RelTestedBy && r.Target == "go:example.com/m/p_test.TestRun" {
			found = true
		}
	}
	if !found {
		t.Errorf("no tested_by evidence in %v", frag.Refs)
	}
}

func TestLogicTruncated(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc long(x int) {\n")
	for i := 0; i < 50; i++ {
		b.WriteString("\tif x > 0 {\n\t\tx--\n\t}\n")
	}
	b.WriteString("}\n")
	f := Extract("p.go", []byte(b.String()), 20)
	l := f.Decls[0].Logic
	if !l.Truncated || len(l.Steps) != 20 {
		t.Fatalf("truncated = %v with %d steps, want true with 20", l.Truncated, len(l.Steps))
	}
	if l.Steps[18].Kind != StepTruncated || l.Steps[19].Kind != StepExit {
		t.Errorf("last steps = %v, want truncated then exit", l.Steps[18:])
	}
}

// The lexical scanner must find exactly the declarations go/ast finds, with the same
// signature and implementation digests, on real code: every Go file of this repository.
func TestScanMatchesExtractOnThisRepository(t *testing.T) {
	n := 0
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "testdata" || (strings.HasPrefix(e.Name(), ".") && e.Name() != ".." && e.Name() != ".")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		ast, lex := Extract(filepath.Base(p), src, 0), Scan(filepath.Base(p), src)
		if !slices.Equal(declNames(ast), declNames(lex)) {
			t.Errorf("%s: go/ast finds %v\nthe scanner finds %v", p, declNames(ast), declNames(lex))
		}
		// A code node's content hash is the same under either policy: the digests agree, and
		// every declaration has them.
		if len(ast.Decls) == len(lex.Decls) {
			for i, d := range ast.Decls {
				l := lex.Decls[i]
				if d.End < d.Line || d.End != l.End {
					t.Errorf("%s: %s ends on line %d under go/ast, %d under the scanner", p, declNames(ast)[i], d.End, l.End)
				}
				if d.Signature == "" || d.Signature != l.Signature || d.Implementation != l.Implementation {
					t.Errorf("%s: %s digests differ: go/ast %s/%s, the scanner %s/%s", p, declNames(ast)[i], d.Signature, d.Implementation, l.Signature, l.Implementation)
				}
			}
		}
		if ast.Package != lex.Package || len(ast.Imports) != len(lex.Imports) {
			t.Errorf("%s: package/imports differ: %s %v vs %s %v", p, ast.Package, ast.Imports, lex.Package, lex.Imports)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d files checked", n)
	}
}

func TestDefaultImportName(t *testing.T) {
	for path, want := range map[string]string{
		"fmt": "fmt", "net/http": "http", "example.com/x/v2": "x", "gopkg.in/yaml.v3": "yaml",
		"github.com/mattn/go-sqlite3": "sqlite3", "zombiezen.com/go/sqlite/sqlitex": "sqlitex",
	} {
		if got := DefaultImportName(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

func TestModulesImportPath(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"go.mod":         "// the main module\nmodule example.com/main // trailing\n",
		"tools/go.mod":   "module \"example.com/tools\"\n",
		"std/go.mod":     "module std\n",
		"nomod/x/y.go":   "package x\n",
		"tools/a/b/c.go": "package b\n",
	})
	m := NewModules(root, "proj")
	for dir, want := range map[string]string{
		".": "example.com/main", "pkg/sub": "example.com/main/pkg/sub", "tools": "example.com/tools",
		"tools/a/b": "example.com/tools/a/b", "std/fmt": "fmt", "std": "std",
	} {
		if got := m.ImportPath(dir); got != want {
			t.Errorf("%s: %s, want %s", dir, got, want)
		}
	}
	if got := NewModules(filepath.Join(root, "nomod"), "proj").ImportPath("x"); got != "proj/x" {
		t.Errorf("no go.mod: %s, want proj/x", got)
	}
}
