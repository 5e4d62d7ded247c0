package source_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/project"
)

// loadedGraph is a project's graph as a build sees it: every node, and the relations the
// adapters' candidates resolve to (both ends exist).
type loadedGraph struct {
	nodes map[string]graph.Node
	edges map[graph.Edge]bool
	work  *source.Work
}

func loadGraph(t *testing.T, files map[string]string, policy string) *loadedGraph {
	t.Helper()
	root := t.TempDir()
	files["docforge.toml"] = fixture.GoModuleDescriptor("langs", false)
	fixture.WriteTree(t, root, files)
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, probs)
	}
	inv, err := source.Scan(context.Background(), d)
	must(t, err)
	g := &loadedGraph{nodes: map[string]graph.Node{}, edges: map[graph.Edge]bool{}, work: &source.Work{}}
	var refs []graph.Edge
	err = source.NewLoader(d, policy).CountWork(g.work).WithFiles(inv.Files).Each(context.Background(), inv.Files, func(p source.Parsed) error {
		for _, pr := range p.Fragment.Problems {
			t.Errorf("problem: %s", pr)
		}
		for _, n := range p.Fragment.Nodes {
			if _, dup := g.nodes[n.ID]; dup {
				t.Errorf("duplicate node %s", n.ID)
			}
			g.nodes[n.ID] = n
		}
		refs = append(refs, p.Fragment.Refs...)
		return nil
	})
	must(t, err)
	for _, e := range graph.ResolveRefs(refs, func(id string) bool { _, ok := g.nodes[id]; return ok }, func(string) bool { return true }) {
		g.edges[e] = true
	}
	return g
}

func (g *loadedGraph) wantNode(t *testing.T, id, kind, title, doc string) {
	t.Helper()
	n, ok := g.nodes[id]
	if !ok {
		t.Errorf("no node %s; have %s", id, strings.Join(slices.Sorted(maps.Keys(g.nodes)), ", "))
		return
	}
	if n.Kind != kind || title != "" && n.Title != title || doc != "" && n.Body != doc {
		t.Errorf("node %s: kind %q title %q doc %q; want kind %q title %q doc %q", id, n.Kind, n.Title, n.Body, kind, title, doc)
	}
}

func (g *loadedGraph) wantEdge(t *testing.T, source, rel, target string, want bool) {
	t.Helper()
	if got := g.edges[graph.Edge{Source: source, Relation: rel, Target: target}]; got != want {
		t.Errorf("edge %s %s %s: %v, want %v", source, rel, target, got, want)
	}
}

// A Python project with every node kind and relation the adapter makes: a package with a
// relative import, an absolute package import through a re-exporting __init__.py, a
// module-level constant, variable and type alias, docstrings, methods called through self
// and through a local of a known class, an ambiguous call left out, and pytest's tests.
func TestPythonAdapterGraph(t *testing.T) {
	g := loadGraph(t, map[string]string{
		"src/shop/__init__.py": "from .orders import Order\n",
		"src/shop/orders.py": `"""Orders and their totals."""
from .money import add, Money

TAX_RATE = 0.2
registry = {}
Amount = int | float


class Order:
    """An order of lines."""

    def __init__(self, lines):
        self.lines = lines

    def total(self) -> Money:
        """Sum the lines."""
        return add(self.subtotal(), self.tax())

    def subtotal(self):
        return sum(self.lines)

    def tax(self):
        return self.subtotal() * TAX_RATE

    def ship(self, carrier):
        carrier.send(self)  # carrier's class is unknown: ambiguous, left out
`,
		"src/shop/money.py": "class Money(float):\n    pass\n\n\ndef add(a, b):\n    return Money(a + b)\n",
		"tests/test_orders.py": `from shop import Order, money
from shop.money import add


def test_total():
    order = Order([1, 2])
    assert order.total() == 3.6


class TestAdd:
    def test_add(self):
        assert add(1, 2) == 3


def test_money():
    assert money.add(1, 2) == 3
`,
	}, golang.PolicyAST)
	const orders = "py:src/shop/orders.py"
	g.wantNode(t, orders, "file", "orders.py", "Orders and their totals.")
	g.wantNode(t, orders+"/Order", "class", "class Order", "An order of lines.")
	g.wantNode(t, orders+"/Order.total", "method", "def total(self) -> Money", "Sum the lines.")
	g.wantNode(t, orders+"/TAX_RATE", "const", "", "")
	g.wantNode(t, orders+"/registry", "var", "", "")
	g.wantNode(t, orders+"/Amount", "var", "", "")
	g.wantNode(t, "py:src/shop/money.py/add", "func", "def add(a, b)", "")
	g.wantNode(t, "py:tests/test_orders.py/test_total", "func", "", "")
	g.wantNode(t, "py:tests/test_orders.py/TestAdd.test_add", "method", "", "")
	if caps := g.nodes["py:tests/test_orders.py/test_total"].Capabilities; !slices.Contains(caps, "test") {
		t.Errorf("test_total capabilities %v lack test", caps)
	}
	if caps := g.nodes[orders+"/Order.ship"].Capabilities; !slices.Contains(caps, "ambiguous_calls") {
		t.Errorf("Order.ship capabilities %v lack ambiguous_calls", caps)
	}
	g.wantEdge(t, orders, "defines", orders+"/Order.total", true)
	g.wantEdge(t, orders, "imports", "py:src/shop/money.py", true)                       // relative
	g.wantEdge(t, "py:tests/test_orders.py", "imports", "py:src/shop/__init__.py", true) // absolute, through src/
	g.wantEdge(t, orders+"/Order.total", "calls", "py:src/shop/money.py/add", true)      // an imported function
	g.wantEdge(t, orders+"/Order.total", "calls", orders+"/Order.subtotal", true)        // through self
	g.wantEdge(t, orders+"/Order.tax", "depends_on", orders+"/TAX_RATE", false)          // a use inside a body is no reference
	g.wantEdge(t, orders+"/Order.total", "depends_on", "py:src/shop/money.py/Money", true)
	// The test reaches Order through the package's re-export, and Order.total through a local.
	g.wantEdge(t, "py:tests/test_orders.py/test_total", "calls", orders+"/Order", true)
	g.wantEdge(t, orders+"/Order.total", "tested_by", "py:tests/test_orders.py/test_total", true)
	g.wantEdge(t, "py:src/shop/money.py/add", "tested_by", "py:tests/test_orders.py/TestAdd.test_add", true)
	// A submodule imported from its package: from shop import money; money.add().
	g.wantEdge(t, "py:tests/test_orders.py/test_money", "calls", "py:src/shop/money.py/add", true)
	for e := range g.edges {
		if e.Source == orders+"/Order.ship" && e.Relation == "calls" {
			t.Errorf("an ambiguous call was guessed: %v", e)
		}
	}
}

// A TypeScript workspace: a package imported by name through its package.json and its
// barrel's export *, a relative import written with .js, every declaration kind, JSDoc, and
// describe/it blocks of a test file.
func TestTypeScriptAdapterGraph(t *testing.T) {
	g := loadGraph(t, map[string]string{
		"packages/core/package.json": `{"name": "@acme/core", "exports": {".": {"import": "./dist/index.js", "types": "./dist/index.d.ts"}}}`,
		"packages/core/src/index.ts": "export * from './store.js';\nexport { helper as assist } from './util.js';\n",
		"packages/core/src/util.ts":  "export function helper(): number { return 1; }\n",
		"packages/core/src/store.ts": `import { helper } from './util.js';

/** Options of a store. */
export interface StoreOptions { capacity: number; open(): void }
export type Key = string;
export enum Mode { Read, Write }
export const DEFAULT_CAPACITY = 16;

/** A bounded store. */
export class Store {
  constructor(private options: StoreOptions) {}
  /** Put a value. */
  put(key: Key, value: unknown): void { this.evict(); helper(); }
  private evict(): void {}
  drop(other) { other.clear(); }
}

export const makeStore = (o: StoreOptions) => new Store(o);
`,
		"packages/app/src/main.tsx": `import { Store, assist } from '@acme/core';
export function App() { const s = new Store({capacity: 1, open() {}}); s.put('k', 1); assist(); return <div/>; }
`,
		"packages/core/test/store.test.ts": `import { Store } from '../src/store.js';
describe('Store', () => {
  it('puts', () => { const s = new Store({capacity: 1, open() {}}); s.put('a', 1); });
  it('puts', () => {});
});
`,
	}, golang.PolicyAST)
	const store = "ts:packages/core/src/store.ts"
	g.wantNode(t, store+"/StoreOptions", "interface", "", "Options of a store.")
	g.wantNode(t, store+"/StoreOptions.open", "method", "", "")
	g.wantNode(t, store+"/Key", "type", "", "")
	g.wantNode(t, store+"/Mode", "type", "", "")
	g.wantNode(t, store+"/DEFAULT_CAPACITY", "const", "", "")
	g.wantNode(t, store+"/Store", "class", "export class Store", "A bounded store.")
	g.wantNode(t, store+"/Store.put", "method", "put(key: Key, value: unknown): void", "Put a value.")
	g.wantNode(t, store+"/makeStore", "func", "", "")
	g.wantNode(t, "ts:packages/app/src/main.tsx/App", "func", "", "")
	g.wantNode(t, "ts:packages/core/test/store.test.ts/Store", "func", `describe("Store")`, "")
	g.wantNode(t, "ts:packages/core/test/store.test.ts/Store.puts", "func", `it("puts")`, "")
	g.wantNode(t, "ts:packages/core/test/store.test.ts/Store.puts_2", "func", `it("puts")`, "")
	g.wantEdge(t, store, "imports", "ts:packages/core/src/util.ts", true) // ./util.js is util.ts
	g.wantEdge(t, store+"/Store.put", "calls", store+"/Store.evict", true)
	g.wantEdge(t, store+"/Store.put", "calls", "ts:packages/core/src/util.ts/helper", true)
	g.wantEdge(t, store+"/makeStore", "calls", store+"/Store", true)
	g.wantEdge(t, store+"/Store.put", "depends_on", store+"/Key", true)
	// A package import through package.json's exports (dist mapped back to src) and the
	// barrel's export * and renamed export.
	g.wantEdge(t, "ts:packages/app/src/main.tsx", "imports", "ts:packages/core/src/index.ts", true)
	g.wantEdge(t, "ts:packages/app/src/main.tsx/App", "calls", store+"/Store.put", true)
	g.wantEdge(t, "ts:packages/app/src/main.tsx/App", "calls", "ts:packages/core/src/util.ts/helper", true)
	g.wantEdge(t, store+"/Store.put", "tested_by", "ts:packages/core/test/store.test.ts/Store.puts", true)
	if caps := g.nodes[store+"/Store.drop"].Capabilities; !slices.Contains(caps, "ambiguous_calls") {
		t.Errorf("Store.drop capabilities %v lack ambiguous_calls", caps)
	}
}

// JavaScript in its three module styles: CommonJS require and module.exports, ES modules,
// JSX, and a tap-style test under test/.
func TestJavaScriptAdapterGraph(t *testing.T) {
	g := loadGraph(t, map[string]string{
		"lib/parse.js":       "'use strict';\n/** Parse a line. */\nfunction parse(line) { return split(line); }\nfunction split(s) { return s.split(' '); }\nmodule.exports = { parse };\n",
		"lib/index.js":       "const { parse } = require('./parse');\nconst util = require('./util.cjs');\nexports.run = function (x) { return util.twice(parse(x)); };\n",
		"lib/util.cjs":       "exports.twice = function twice(x) { return [x, x]; };\n",
		"web/view.jsx":       "import { parse } from '../lib/parse.js';\nexport default function View({ line }) { return <p>{parse(line)}</p>; }\n",
		"test/parse.test.js": "const test = require('node:test');\nconst { parse } = require('../lib/parse');\ntest('parses a line', () => { parse('a b'); });\n",
	}, golang.PolicyAST)
	g.wantNode(t, "js:lib/parse.js/parse", "func", "", "Parse a line.")
	g.wantNode(t, "js:lib/index.js/run", "func", "", "")
	g.wantNode(t, "js:lib/util.cjs/twice", "func", "", "")
	g.wantNode(t, "js:web/view.jsx/View", "func", "", "")
	g.wantNode(t, "js:test/parse.test.js/parses_a_line", "func", `test("parses a line")`, "")
	g.wantEdge(t, "js:lib/parse.js/parse", "calls", "js:lib/parse.js/split", true)
	g.wantEdge(t, "js:lib/index.js/run", "calls", "js:lib/parse.js/parse", true)
	g.wantEdge(t, "js:lib/index.js/run", "calls", "js:lib/util.cjs/twice", true)
	g.wantEdge(t, "js:web/view.jsx", "imports", "js:lib/parse.js", true)
	g.wantEdge(t, "js:lib/parse.js/parse", "tested_by", "js:test/parse.test.js/parses_a_line", true)
}

// Under the no-AST policy no parser runs: a Python, TypeScript or JavaScript file, and one of
// every table-driven language, is one file node whose text is searchable, with no
// declaration and no Logic; text files are as under AST.
func TestNoASTReadsScriptsAsText(t *testing.T) {
	files := func() map[string]string {
		fs := map[string]string{
			"app.py":        "def handler():\n    return 1\n",
			"web/app.ts":    "export function handler(): number { return 1; }\n",
			"web/app.js":    "function handler() { return 1; }\n",
			"deploy/ci.yml": "steps:\n  - run: make test\n",
		}
		for _, l := range lang.Languages() {
			fs["langs/"+l.Name+"/handler"+l.Extensions[0]] = "// handler\n"
		}
		fs["langs/ruby/handler.rb"] = "# handler\n"
		fs["langs/python/handler.py"] = "# handler\n"
		fs["langs/php/handler.php"] = "<?php\n// handler\n"
		fs["langs/protobuf/handler.proto"] = "syntax = \"proto3\";\nmessage Handler {}\n"
		fs["langs/rust/handler.rs"] = "pub fn handler() -> u32 { if true { 1 } else { 2 } }\n"
		fs["langs/java/handler.java"] = "class App { int handler() { if (ok) return 1; return 2; } }\n"
		return fs
	}
	parsed := 3 + len(lang.Languages())
	ast := loadGraph(t, files(), golang.PolicyAST)
	if n := ast.work.TreeParses.Load(); n != int64(parsed) {
		t.Errorf("AST policy: %d parses, want %d", n, parsed)
	}
	if ast.nodes["rs:langs/rust/handler.rs/handler"].Logic == nil {
		t.Errorf("AST policy: no Logic for a Rust function")
	}
	g := loadGraph(t, files(), golang.PolicyNoAST)
	if n := g.work.TreeParses.Load(); n != 0 {
		t.Errorf("no-AST policy: %d tree-sitter parses", n)
	}
	want := []string{"file:deploy/ci.yml", "js:web/app.js", "py:app.py", "ts:web/app.ts"}
	for _, l := range lang.Languages() {
		want = append(want, l.Prefix+"langs/"+l.Name+"/handler"+l.Extensions[0])
	}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(g.nodes)); !slices.Equal(got, want) {
		t.Errorf("no-AST nodes %v, want %v", got, want)
	}
	for id, n := range g.nodes {
		if n.Logic != nil {
			t.Errorf("no-AST policy: %s has Logic", id)
		}
	}
	if terms := g.nodes["py:app.py"].CodeTerms; !strings.Contains(terms, "handler") {
		t.Errorf("no-AST py:app.py terms %q lack handler", terms)
	}
	if n := g.nodes["file:deploy/ci.yml"]; n.Language != "yaml" || !strings.Contains(n.CodeTerms, "make") || n.EndLine != 2 {
		t.Errorf("text node %+v", n.Record)
	}
}

// Text files under a code root: binary, oversized and lock files are skipped; testdata and
// _-prefixed folders, which the go tool ignores, are walked for text (their Go files too).
func TestTextFilesUnderCodeRoots(t *testing.T) {
	g := loadGraph(t, map[string]string{
		"go.mod":                    "module example.com/t\n",
		"t.go":                      "package t\n",
		"testdata/case.txtar":       "-- a.txt --\nhello\n",
		"testdata/fixture.go":       "package broken {\n",
		"Dockerfile":                "FROM scratch\n",
		"logo.bin":                  "\x00\x01\x02",
		"blob.txt":                  "a\x00b",
		"big.json":                  strings.Repeat("x", source.MaxTextFileBytes+1),
		"package-lock.json":         "{}",
		"node_modules/dep/index.js": "module.exports = 1;\n",
		"dist/bundle.js":            "var a = 1;\n",
	}, golang.PolicyAST)
	for _, id := range []string{"file:testdata/case.txtar", "file:testdata/fixture.go", "file:Dockerfile", "go:example.com/t/t.go"} {
		if _, ok := g.nodes[id]; !ok {
			t.Errorf("no node %s", id)
		}
	}
	for id := range g.nodes {
		for _, gone := range []string{"logo.bin", "blob.txt", "big.json", "package-lock.json", "node_modules", "dist/"} {
			if strings.Contains(id, gone) {
				t.Errorf("node %s should have been skipped", id)
			}
		}
	}
	if l := g.nodes["file:Dockerfile"].Language; l != "dockerfile" {
		t.Errorf("Dockerfile language %q", l)
	}
}

// A view's rendered page under a code root is no text file of the project: a render writes
// it from the graph, and reading it back would make every render a change of the sources.
func TestRenderedViewsAreNoSources(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("views", true) +
			"[[views]]\nid = \"docs\"\ntitle = \"Docs\"\nfamilies = [\"docs\"]\noutput = \"site/docs.html\"\n",
		"go.mod":         "module example.com/v\n",
		"docs/intro.md":  "# Intro\n",
		"site/docs.html": "<html>rendered</html>\n",
		"site/notes.txt": "kept\n",
	})
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, probs)
	}
	inv, err := source.Scan(context.Background(), d)
	must(t, err)
	var paths []string
	for _, f := range inv.Files {
		paths = append(paths, f.Path)
	}
	if slices.Contains(paths, "site/docs.html") || !slices.Contains(paths, "site/notes.txt") {
		t.Errorf("sources %v: want site/notes.txt and not the rendered site/docs.html", paths)
	}
}

// Documents relate to Python and TypeScript code as to Go code: a link to a file names its
// file node, a backticked name one declaration when only one has it.
func TestDocumentsRelateToScriptCode(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml":      fixture.GoModuleDescriptor("docs", true),
		"src/shop/orders.py": "class Order:\n    def total(self):\n        return 0\n",
		"web/cart.ts":        "export class Cart { checkout(): void {} }\n",
		"docs/orders.md":     "# Orders\nSee [the module](../src/shop/orders.py) and [the cart](../web/cart.ts); `Order.total` sums, `Cart.checkout` pays.\n",
	})
	_, got, _ := validGraph(t, root)
	for _, want := range []string{
		"orders documents py:src/shop/orders.py",
		"orders documents ts:web/cart.ts",
		"orders documents py:src/shop/orders.py/Order.total",
		"orders documents ts:web/cart.ts/Cart.checkout",
	} {
		if !got[want] {
			t.Errorf("no edge %s; have %v", want, slices.Sorted(maps.Keys(got)))
		}
	}
}

// Guides written for agents and contributors are in the graph, hidden folder or not, and
// relate to the code they name as a document does; what they name that is no node is no
// problem of the project.
func TestGuidesRelateToTheCodeTheyName(t *testing.T) {
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml":                   fixture.GoModuleDescriptor("guides", true),
		"docs/index.md":                   "# Docs\n",
		"src/shop/orders.py":              "class Order:\n    def total(self):\n        return 0\n\ndef place_order():\n    pass\n",
		"web/cart.ts":                     "export class Cart { checkout(): void {} }\n",
		"AGENTS.md":                       "# Agents\nOrders live in [orders](src/shop/orders.py); `Order.total` sums. See [the wiki](https://example.com) and [gone](missing.md), `Missing.thing`.\n",
		".github/copilot-instructions.md": "To add a step, extend `Cart.checkout` and call `place_order`; orders live in `src/shop/`, the cart in `web/cart.ts`, builds in `out/`.\n",
		".github/workflows/ci.yml":        "on: push\njobs: {}\n",
		".cursor/rules/style.mdc":         "Keep `Order.total` pure.\n",
		".venv/lib/site.py":               "x = 1\n",
		".idea/notes.md":                  "`Order.total`\n",
		"CONTRIBUTING.md":                 "Run the tests before a pull request.\n",
		".cursorrules":                    "Never change `Cart.checkout` without a test.\n",
	})
	nodes, got, probs := validGraph(t, root)
	for _, id := range []string{"file:AGENTS.md", "file:.github/copilot-instructions.md", "file:.github/workflows/ci.yml", "file:.cursor/rules/style.mdc", "file:CONTRIBUTING.md", "file:.cursorrules"} {
		if !nodes[id] {
			t.Errorf("no node %s", id)
		}
	}
	for id := range nodes {
		if strings.Contains(id, ".venv") || strings.Contains(id, ".idea") {
			t.Errorf("node %s of a hidden folder that is no agent's", id)
		}
	}
	for _, want := range []string{
		"file:AGENTS.md documents py:src/shop/orders.py",
		"file:AGENTS.md documents py:src/shop/orders.py/Order.total",
		"file:.github/copilot-instructions.md documents ts:web/cart.ts/Cart.checkout",
		"file:.github/copilot-instructions.md documents py:src/shop/orders.py/place_order",
		"file:.cursor/rules/style.mdc documents py:src/shop/orders.py/Order.total",
		"file:.cursorrules documents ts:web/cart.ts/Cart.checkout",
		"file:.github/copilot-instructions.md documents ts:web/cart.ts",
	} {
		if !got[want] {
			t.Errorf("no edge %s; have %v", want, slices.Sorted(maps.Keys(got)))
		}
	}
	for _, p := range probs {
		t.Errorf("a guide's link made a problem: %s", p)
	}
}

// validGraph loads the project at root, fails the test on a validation problem, and gives
// its node IDs, its edges ("source relation target") and the problems resolving links made.
func validGraph(t *testing.T, root string) (nodes, edges map[string]bool, probs []problem.Problem) {
	t.Helper()
	d, dprobs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, dprobs)
	}
	v, err := source.Validate(context.Background(), d, "", 0)
	must(t, err)
	for _, p := range v.Problems {
		t.Errorf("problem: %s", p)
	}
	check := source.NewChecker(d)
	nodes, edges = map[string]bool{}, map[string]bool{}
	must(t, source.NewLoader(d, "").WithFiles(v.Inventory.Files).Each(context.Background(), v.Inventory.Files, func(p source.Parsed) error {
		check.Add(p.Fragment)
		for _, n := range p.Fragment.Nodes {
			nodes[n.ID] = true
		}
		return nil
	}))
	for _, e := range check.Edges() {
		edges[e.Source+" "+e.Relation+" "+e.Target] = true
	}
	return nodes, edges, check.Problems()
}

// What .gitignore files leave out is no source under a code root: generated code, local
// files, a whole folder; a file included again with ! is one.
func TestGitignoredFilesStayOut(t *testing.T) {
	g := loadGraph(t, map[string]string{
		".gitignore":        "generated/\n*.local.py\n/scratch.txt\n",
		"app/.gitignore":    "cache.json\n!keep.local.py\n",
		"app/main.py":       "def main():\n    pass\n",
		"app/dev.local.py":  "def dev():\n    pass\n",
		"app/keep.local.py": "def keep():\n    pass\n",
		"app/cache.json":    "{}\n",
		"generated/api.ts":  "export function api(): void {}\n",
		"scratch.txt":       "notes\n",
		"docs/scratch.txt":  "kept: the pattern is anchored to the root\n",
	}, golang.PolicyAST)
	for _, id := range []string{"py:app/main.py", "py:app/keep.local.py", "file:docs/scratch.txt"} {
		if _, ok := g.nodes[id]; !ok {
			t.Errorf("no node %s", id)
		}
	}
	for id := range g.nodes {
		for _, gone := range []string{"dev.local.py", "cache.json", "generated/", "file:scratch.txt", "gitignore"} {
			if strings.Contains(id, gone) {
				t.Errorf("node %s should have been left out", id)
			}
		}
	}
}
