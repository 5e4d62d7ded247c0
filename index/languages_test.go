package index_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// Edits in Python, TypeScript and JavaScript that make a call's target appear, move and go,
// add and remove tests, and change what a package exports again: after each, the index a sync
// publishes equals a cold build's, whether the sync built a delta or (for a layout file: an
// __init__.py, a package.json, an index file) a new base.
func TestScriptEditsIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml":           fixture.GoModuleDescriptor("scripts", false),
		"py/shop/__init__.py":     "from .orders import Order\n",
		"py/shop/orders.py":       "class Order:\n    def total(self):\n        return price()\n",
		"py/tests/test_orders.py": "from shop import Order\n\ndef test_total():\n    Order().total()\n",
		"ts/core/package.json":    `{"name": "core", "main": "src/index.ts"}`,
		"ts/core/src/index.ts":    "export * from './store.js';\n",
		"ts/core/src/store.ts":    "export class Store { put(): void { evict(); } }\n",
		"ts/app/main.ts":          "import { Store } from 'core';\nexport function run() { new Store().put(); }\n",
		"js/lib.js":               "function parse(s) { return s; }\nmodule.exports = { parse };\n",
		"js/test/lib.test.js":     "const { parse } = require('../lib');\ntest('parses', () => parse('x'));\n",
		"notes/ci.yml":            "steps: []\n",
	})
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	steps := []struct {
		name  string
		edit  func()
		build string
	}{
		{"define the Python function a method calls", func() {
			write(t, d, "py/shop/prices.py", "def price():\n    return 1\n")
			replaceIn(t, d, "py/shop/orders.py", "class Order:", "from .prices import price\n\n\nclass Order:")
		}, index.BuildIncremental},
		{"export it from the package", func() {
			write(t, d, "py/shop/__init__.py", "from .orders import Order\nfrom .prices import price\n")
		}, index.BuildCold},
		{"a second test", func() {
			write(t, d, "py/tests/test_prices.py", "from shop import price\n\nclass TestPrice:\n    def test_price(self):\n        price()\n")
		}, index.BuildIncremental},
		{"remove the module the method imports", func() { must(t, os.Remove(filepath.Join(root, "py/shop/prices.py"))) }, index.BuildCold},
		{"a name imported through a plain module", func() {
			write(t, d, "py/shop/base.py", "def helper():\n    pass\n")
			write(t, d, "py/shop/facade.py", "from .base import helper\n")
			write(t, d, "py/shop/use.py", "from .facade import helper\n\n\ndef run():\n    helper()\n")
		}, index.BuildIncremental},
		{"the plain module defines the name itself", func() {
			// Only a package's __init__.py re-exports: were facade.py's imports followed,
			// use.py's call would still reach base.py here, where a cold build does not.
			write(t, d, "py/shop/facade.py", "def helper():\n    pass\n")
		}, index.BuildIncremental},
		{"define the TypeScript function a method calls", func() {
			write(t, d, "ts/core/src/evict.ts", "export function evict(): void {}\n")
			replaceIn(t, d, "ts/core/src/store.ts", "export class", "import { evict } from './evict.js';\nexport class")
		}, index.BuildIncremental},
		{"rename the class the app imports", func() {
			replaceIn(t, d, "ts/core/src/store.ts", "class Store", "class Shelf")
		}, index.BuildIncremental},
		{"export a second module from the barrel", func() {
			write(t, d, "ts/core/src/shelf.ts", "export class Store { put(): void {} }\n")
			write(t, d, "ts/core/src/index.ts", "export * from './store.js';\nexport * from './shelf.js';\n")
		}, index.BuildCold},
		{"remove a TypeScript module an import chose", func() {
			must(t, os.Remove(filepath.Join(root, "ts/core/src/evict.ts")))
		}, index.BuildCold},
		{"a JavaScript test of a new function", func() {
			replaceIn(t, d, "js/lib.js", "module.exports = { parse };", "function split(s) { return [s]; }\nmodule.exports = { parse, split };")
			write(t, d, "js/test/split.test.js", "const { split } = require('../lib');\ndescribe('split', () => { it('splits', () => split('a')); });\n")
		}, index.BuildIncremental},
		{"edit a text file", func() { write(t, d, "notes/ci.yml", "steps:\n  - run: make\n") }, index.BuildIncremental},
		{"ignore a folder in .gitignore", func() { write(t, d, ".gitignore", "notes/\n") }, index.BuildCold},
		{"include it again", func() { write(t, d, ".gitignore", "# nothing\n") }, index.BuildCold},
	}
	for _, step := range steps {
		step.edit()
		syncMatchesCold(t, d, step.name, step.build)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	for _, e := range []struct {
		src, rel, dst string
		want          bool
	}{
		{"py:py/shop/orders.py/Order.total", "tested_by", "py:py/tests/test_orders.py/test_total", true},
		{"ts:ts/app/main.ts/run", "calls", "ts:ts/core/src/shelf.ts/Store.put", true},
		{"ts:ts/core/src/store.ts/Shelf.put", "calls", "ts:ts/core/src/evict.ts/evict", false},
		{"js:js/lib.js/split", "tested_by", "js:js/test/split.test.js/split.splits", true},
	} {
		if got := hasEdge(t, snap, e.src, e.rel, e.dst); got != e.want {
			t.Errorf("edge %s %s %s = %v, want %v", e.src, e.rel, e.dst, got, e.want)
		}
	}
}

// A guide's relations to the code it names follow edits of the guide and of the code, as a
// cold build finds them.
func TestGuideEditsIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml":     fixture.GoModuleDescriptor("guides", true),
		"docs/index.md":     "# Docs\n",
		"py/shop/orders.py": "class Order:\n    def total(self):\n        return 0\n",
		"py/shop/cart.py":   "def check_out():\n    pass\n",
	})
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	const (
		agents  = "file:AGENTS.md"
		copilot = "file:.github/copilot-instructions.md"
		total   = "py:py/shop/orders.py/Order.total"
		sum     = "py:py/shop/orders.py/Order.sum"
	)
	steps := []struct {
		name     string
		edit     func()
		has, not [][2]string // documents edges, source and target
	}{
		{"a guide names a method", func() { write(t, d, "AGENTS.md", "# Agents\nChange `Order.total` with care.\n") },
			[][2]string{{agents, total}}, nil},
		{"the method is renamed", func() { replaceIn(t, d, "py/shop/orders.py", "def total", "def sum") },
			nil, [][2]string{{agents, total}, {agents, sum}}},
		{"the guide names the new name", func() { write(t, d, "AGENTS.md", "# Agents\nChange `Order.sum` with care.\n") },
			[][2]string{{agents, sum}}, nil},
		{"a hidden folder's guide links a file", func() {
			write(t, d, ".github/copilot-instructions.md", "Checkout is in [cart](../py/shop/cart.py): `check_out`.\n")
		}, [][2]string{{agents, sum}, {copilot, "py:py/shop/cart.py"}, {copilot, "py:py/shop/cart.py/check_out"}}, nil},
		{"the guide goes", func() { must(t, os.Remove(filepath.Join(root, "AGENTS.md"))) },
			[][2]string{{copilot, "py:py/shop/cart.py"}}, nil},
	}
	for _, step := range steps {
		step.edit()
		syncMatchesCold(t, d, step.name, index.BuildIncremental)
		snap, err := index.Open(ctx, d)
		must(t, err)
		for _, e := range step.has {
			if !hasEdge(t, snap, e[0], "documents", e[1]) {
				t.Errorf("%s: no edge %s documents %s", step.name, e[0], e[1])
			}
		}
		for _, e := range step.not {
			if hasEdge(t, snap, e[0], "documents", e[1]) {
				t.Errorf("%s: edge %s documents %s", step.name, e[0], e[1])
			}
		}
		snap.Close()
	}
}

// syncMatchesCold syncs after an edit, checks the kind of build it made, and that the index it
// published equals a cold build's.
func syncMatchesCold(t *testing.T, d *project.Descriptor, step, build string) {
	t.Helper()
	ctx := context.Background()
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != build {
		t.Errorf("%s: build %s, want %s", step, res.Build, build)
	}
	inc := dump(t, d, "")
	_, err = index.Sync(ctx, d, index.Options{Rebuild: true})
	must(t, err)
	if cold := dump(t, d, ""); cold != inc {
		t.Fatalf("%s: the published and cold indexes differ:\n%s", step, firstDiff(inc, cold))
	}
}

// Edits in the table-driven languages (Rust, Java): a method appears, is called, is renamed,
// and its file goes, and a Rust module's re-export moves; after each the published index
// equals a cold build's, and the calls and tests within a file, through imports and
// re-exports, and through values of declared types are relations.
func TestTableLanguageEditsIncrementalMatchesCold(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("langs", false),
		"crate/src/shelf.rs": "pub struct Store;\n\nimpl Store {\n    pub fn put(&self) { self.evict(); }\n    fn evict(&self) {}\n}\n\n" +
			"#[cfg(test)]\nmod tests {\n    #[test]\n    fn puts() { helper(); }\n    fn helper() {}\n}\n",
		"app/src/main/java/a/Shelf.java": "package a;\n\npublic class Shelf {\n    public void put() { evict(); }\n    void evict() {}\n}\n",
		"app/src/main/java/b/Use.java":   "package b;\n\nimport a.*;\n\nclass Use {\n    void go() { Shelf.make(); }\n}\n",
		"crate/src/app.rs":               "use crate::store::Store;\n\npub fn run() {\n    Store::open();\n}\n",
		"crate/src/store.rs":             "pub struct Store;\n\nimpl Store {\n    pub fn open() {}\n}\n",
		// A module that re-exports its child's type, and calls through a field and a
		// parameter of that type.
		// Kotlin's import and C#'s using, to a type in another package's file.
		"kt/src/main/kotlin/shop/util/Helper.kt": "package shop.util\n\nobject Helper {\n    fun run(n: Int) {}\n}\n",
		"kt/src/main/kotlin/shop/core/Cart.kt":   "package shop.core\n\nimport shop.util.Helper\n\nclass Cart {\n    fun add() { Helper.run(1) }\n}\n",
		"cs/Shop/Util/Helper.cs":                 "namespace Shop.Util\n{\n    public static class Helper\n    {\n        public static void Run(int n) { }\n    }\n}\n",
		"cs/Shop/Core/Cart.cs":                   "using Shop.Util;\n\nnamespace Shop.Core\n{\n    public class Cart\n    {\n        public void Add() { Helper.Run(1); }\n    }\n}\n",
		// PHP's use, through the PSR-4 roots composer.json declares.
		"php/composer.json":       `{"autoload": {"psr-4": {"Shop\\Core\\": "core/src/", "Shop\\Util\\": ["util/src/"]}}}`,
		"php/util/src/Helper.php": "<?php\nnamespace Shop\\Util;\n\nclass Helper\n{\n    public static function run(int $n): void {}\n}\n",
		"php/core/src/Cart.php":   "<?php\nnamespace Shop\\Core;\n\nuse Shop\\Util\\Helper;\n\nclass Cart\n{\n    public function add(): void { Helper::run(1); }\n}\n",
		"crate/src/shop/mod.rs":   "mod cart;\npub use self::cart::Cart;\n",
		"crate/src/shop/cart.rs":  "pub struct Cart;\n\nimpl Cart {\n    pub fn add(&mut self) {}\n}\n",
		"crate/src/till.rs": "use crate::shop::Cart;\n\npub struct Till {\n    cart: Cart,\n}\n\nimpl Till {\n" +
			"    pub fn ring(&mut self) {\n        self.cart\n            .add();\n    }\n}\n\npub fn fill(c: &mut Cart) {\n    c.add();\n}\n",
	})
	d := load(t, root)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	type edge struct{ src, rel, dst string }
	for _, step := range []struct {
		name          string
		edit          func()
		build         string
		edges, absent []edge // after the step
	}{
		{"a Rust method calls a new one", func() {
			replaceIn(t, d, "crate/src/shelf.rs", "fn evict(&self) {}", "fn evict(&self) { self.trim(); }\n    fn trim(&self) {}")
		}, index.BuildIncremental, nil, nil},
		{"a Java method renamed", func() {
			write(t, d, "app/src/main/java/a/Shelf.java", "package a;\n\npublic class Shelf {\n    public void put() { drop(); }\n    void drop() {}\n    public static void make() {}\n}\n")
		}, index.BuildIncremental, nil, nil},
		{"a second Java file", func() {
			write(t, d, "app/src/test/java/a/ShelfTest.java", "package a;\n\nclass ShelfTest {\n    @Test\n    void puts() { new Shelf().put(); }\n}\n")
		}, index.BuildIncremental, []edge{
			{"rs:crate/src/shelf.rs/Store.evict", "calls", "rs:crate/src/shelf.rs/Store.trim"},
			{"rs:crate/src/shelf.rs/Store.put", "calls", "rs:crate/src/shelf.rs/Store.evict"},
			{"rs:crate/src/shelf.rs/tests.helper", "tested_by", "rs:crate/src/shelf.rs/tests.puts"},
			{"jv:app/src/main/java/a/Shelf.java/Shelf.put", "calls", "jv:app/src/main/java/a/Shelf.java/Shelf.drop"},
			// Across files: a Rust use, a Java type of the same package from the test root.
			{"rs:crate/src/app.rs/run", "calls", "rs:crate/src/store.rs/Store.open"},
			{"rs:crate/src/app.rs", "imports", "rs:crate/src/store.rs"},
			// Through a module's re-export, by a field's and a parameter's declared type.
			{"rs:crate/src/till.rs/Till.ring", "calls", "rs:crate/src/shop/cart.rs/Cart.add"},
			{"rs:crate/src/till.rs/fill", "calls", "rs:crate/src/shop/cart.rs/Cart.add"},
			{"rs:crate/src/till.rs/Till.cart", "depends_on", "rs:crate/src/shop/cart.rs/Cart"},
			{"kt:kt/src/main/kotlin/shop/core/Cart.kt/Cart.add", "calls", "kt:kt/src/main/kotlin/shop/util/Helper.kt/Helper.run"},
			{"kt:kt/src/main/kotlin/shop/core/Cart.kt", "imports", "kt:kt/src/main/kotlin/shop/util/Helper.kt"},
			{"cs:cs/Shop/Core/Cart.cs/Shop.Core.Cart.Add", "calls", "cs:cs/Shop/Util/Helper.cs/Shop.Util.Helper.Run"},
			{"php:php/core/src/Cart.php/Cart.add", "calls", "php:php/util/src/Helper.php/Helper.run"},
			{"php:php/core/src/Cart.php", "imports", "php:php/util/src/Helper.php"},
			{"jv:app/src/test/java/a/ShelfTest.java/ShelfTest.puts", "calls", "jv:app/src/main/java/a/Shelf.java/Shelf"},
			{"jv:app/src/main/java/b/Use.java/Use.go", "calls", "jv:app/src/main/java/a/Shelf.java/Shelf.make"}, // import a.*
		}, []edge{
			// A type of the file's own package needs no import statement, so it is none.
			{"jv:app/src/test/java/a/ShelfTest.java", "imports", "jv:app/src/main/java/a/Shelf.java"},
		}},
		{"the Rust file goes", func() { must(t, os.Remove(filepath.Join(root, "crate/src/shelf.rs"))) }, index.BuildIncremental, nil, nil},
		{"composer.json maps the namespace elsewhere", func() {
			write(t, d, "php/composer.json", `{"autoload": {"psr-4": {"Shop\\Util\\": "helpers/"}}}`)
			write(t, d, "php/helpers/Helper.php", "<?php\nnamespace Shop\\Util;\n\nclass Helper\n{\n    public static function run(int $n): void {}\n}\n")
		}, index.BuildCold, // what every file's names resolve through changed
			[]edge{{"php:php/core/src/Cart.php/Cart.add", "calls", "php:php/helpers/Helper.php/Helper.run"}},
			[]edge{{"php:php/core/src/Cart.php/Cart.add", "calls", "php:php/util/src/Helper.php/Helper.run"}}},
		{"Rust functions called through their modules' paths", func() {
			write(t, d, "crate/tests/common.rs", "pub fn setup() {}\n")
			write(t, d, "crate/tests/cli.rs", "mod common;\n\n#[test]\nfn runs() {\n    common::setup();\n}\n")
			write(t, d, "crate/tests/suite/helpers.rs", "pub fn build() {}\n")
			write(t, d, "crate/tests/suite/checks.rs", "use crate::helpers;\n\n#[test]\nfn checks() {\n    helpers::build();\n}\n")
			write(t, d, "crate/tests/suite/main.rs", "mod checks;\nmod helpers;\n")
		}, index.BuildCold, // a main.rs came: what it declares is how names resolve
			[]edge{
				{"rs:crate/tests/cli.rs/runs", "calls", "rs:crate/tests/common.rs/setup"},
				{"rs:crate/tests/suite/checks.rs/checks", "calls", "rs:crate/tests/suite/helpers.rs/build"},
			}, nil},
		{"Ruby files required", func() {
			// Helper inside module Shop is Shop::Helper; a spec's describe and it blocks test.
			write(t, d, "rb/lib/shop/helper.rb", "module Shop\n  class Helper\n    def self.run(n)\n    end\n  end\nend\n")
			write(t, d, "rb/lib/shop/cart.rb", "require_relative \"helper\"\n\nmodule Shop\n  class Cart\n    def self.build\n      Helper.run(1)\n    end\n  end\nend\n")
			write(t, d, "rb/test/cart_test.rb", "require \"shop/cart\"\n\nclass CartTest\n  def test_build\n    Shop::Cart.build\n  end\nend\n")
			write(t, d, "rb/spec/cart_spec.rb", "require \"shop/cart\"\n\ndescribe Shop::Cart do\n  context \"when empty\" do\n    it \"builds\" do\n      Shop::Cart.build\n    end\n  end\nend\n")
		}, index.BuildIncremental, []edge{
			{"rb:rb/lib/shop/cart.rb/Shop.Cart.build", "calls", "rb:rb/lib/shop/helper.rb/Shop.Helper.run"},
			{"rb:rb/lib/shop/cart.rb", "imports", "rb:rb/lib/shop/helper.rb"},
			{"rb:rb/lib/shop/cart.rb/Shop.Cart.build", "tested_by", "rb:rb/test/cart_test.rb/CartTest.test_build"},
			{"rb:rb/lib/shop/cart.rb/Shop.Cart.build", "tested_by", "rb:rb/spec/cart_spec.rb/Shop_Cart.when_empty.builds"},
		}, nil},
		{"Swift types of the module and an imported one", func() {
			write(t, d, "sw/Sources/Shop/Model/Helper.swift", "struct Helper {\n    static func run(_ n: Int) {}\n}\n")
			write(t, d, "sw/Sources/Shop/Cart.swift", "public class Cart {\n    public func add() { Helper.run(1) }\n}\n")
			write(t, d, "sw/Tests/ShopTests/CartTests.swift", "import XCTest\n@testable import Shop\n\nfinal class CartTests: XCTestCase {\n    func testAdd() { Cart().add() }\n}\n")
		}, index.BuildCold, // Swift files came: names resolve by file names
			[]edge{
				{"sw:sw/Sources/Shop/Cart.swift/Cart.add", "calls", "sw:sw/Sources/Shop/Model/Helper.swift/Helper.run"},
				{"sw:sw/Sources/Shop/Cart.swift/Cart.add", "tested_by", "sw:sw/Tests/ShopTests/CartTests.swift/CartTests.testAdd"},
			}, nil},
		{"a Swift method edited", func() {
			write(t, d, "sw/Sources/Shop/Cart.swift", "public class Cart {\n    public func add() { Helper.run(2); Helper.stop() }\n}\n")
			write(t, d, "sw/Sources/Shop/Model/Helper.swift", "struct Helper {\n    static func run(_ n: Int) {}\n    static func stop() {}\n}\n")
		}, index.BuildIncremental, []edge{{"sw:sw/Sources/Shop/Cart.swift/Cart.add", "calls", "sw:sw/Sources/Shop/Model/Helper.swift/Helper.stop"}}, nil},
		{"a Swift type moves to a file of its own name", func() {
			write(t, d, "sw/Sources/Shop/Model/Helper+Run.swift", "extension Helper {\n    static func go() {}\n}\n")
			write(t, d, "sw/Sources/Shop/Cart.swift", "public class Cart {\n    public func add() { Helper.go() }\n}\n")
		}, index.BuildCold, []edge{{"sw:sw/Sources/Shop/Cart.swift/Cart.add", "calls", "sw:sw/Sources/Shop/Model/Helper+Run.swift/Helper.go"}}, nil},
		{"a re-export moves", func() {
			write(t, d, "crate/src/shop/basket.rs", "pub struct Cart;\n\nimpl Cart {\n    pub fn add(&mut self) {}\n}\n")
			write(t, d, "crate/src/shop/mod.rs", "mod basket;\npub use self::basket::Cart;\n")
			must(t, os.Remove(filepath.Join(root, "crate/src/shop/cart.rs")))
		}, index.BuildCold,
			[]edge{{"rs:crate/src/till.rs/fill", "calls", "rs:crate/src/shop/basket.rs/Cart.add"}},
			[]edge{{"rs:crate/src/till.rs/fill", "calls", "rs:crate/src/shop/cart.rs/Cart.add"}}},
	} {
		step.edit()
		syncMatchesCold(t, d, step.name, step.build)
		snap, err := index.Open(ctx, d)
		must(t, err)
		for _, e := range step.edges {
			if !hasEdge(t, snap, e.src, e.rel, e.dst) {
				t.Errorf("%s: no edge %s %s %s", step.name, e.src, e.rel, e.dst)
			}
		}
		for _, e := range step.absent {
			if hasEdge(t, snap, e.src, e.rel, e.dst) {
				t.Errorf("%s: an edge %s %s %s", step.name, e.src, e.rel, e.dst)
			}
		}
		snap.Close()
	}
}
