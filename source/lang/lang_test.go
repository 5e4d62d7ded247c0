package lang_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/treesit"
)

// decl is one expected declaration: "kind Qual" and its marks: exported (+), test (T), a doc
// comment's first words, the calls it makes.
type decl struct {
	kind, qual string
	exported   bool
	test       bool
	doc        string
	calls      []string
}

// fixtures are each language's fixture file under testdata/NAME/ and what it declares.
var fixtures = map[string]struct {
	file  string
	decls []decl
	// uses are what declarations extend or implement, by qualified name.
	uses map[string][]string
}{
	"python": {"testdata/python/shop/test_cart.py", []decl{
		{"const", "MAX_ITEMS", true, false, "The most items a cart holds.", nil},
		{"type", "Total", true, false, "", nil},
		{"type", "Quantity", true, false, "", nil},
		{"var", "default_cart", true, false, "", nil},
		{"class", "Cart", true, false, "A cart of items.", nil},
		{"method", "Cart.__init__", true, false, "", nil},
		{"method", "Cart.size", true, false, "How many items the cart holds.", []string{"len"}},
		{"method", "Cart.add", true, false, "", []string{"ValueError", "prices.lookup", "self.run"}},
		{"method", "Cart.empty", true, false, "", []string{"cls.make"}},
		{"method", "Cart._dump", false, false, "", []string{"json.dumps"}},
		{"func", "checkout", true, false, "Empties the cart", []string{"Cart", "Cart.add", "log.write"}},
		{"class", "TestCart", true, true, "", nil},
		{"method", "TestCart.test_adds", true, true, "", []string{"Cart", "Cart.add"}},
		{"method", "TestCart.helper", true, false, "", []string{"Cart", "checkout"}},
		{"func", "test_checkout", true, true, "", []string{"Cart", "checkout"}},
	}, map[string][]string{"Cart": {"Helper"}, "Total": {"TypeAlias", "int"}, "checkout": {"Total"}}},
	"rust": {"testdata/rust/src/parser.rs", []decl{
		{"module", "tests", false, false, "", nil},
		{"struct", "Parser", true, false, "A parser of command lines.", nil},
		{"field", "Parser.args", false, false, "", nil},
		{"enum", "Mode", true, false, "How the parser treats", nil},
		{"const", "Mode.Strict", false, false, "", nil},
		{"const", "Mode.Lenient", false, false, "", nil},
		{"interface", "Parse", true, false, "Something that parses.", nil},
		{"method", "Parse.parse", false, false, "", nil},
		{"method", "Parser.new", true, false, "Makes an empty parser.", []string{"Vec.new"}},
		{"method", "Parser.parse", false, false, "", []string{"Vec.extend", "self.check", "split"}},
		{"method", "Parser.check", false, false, "", []string{"Vec.iter", "is_number"}},
		{"func", "is_number", true, false, "Whether s reads as a number", nil},
		{"func", "split", false, false, "", nil},
		{"const", "MAX_ARGS", true, false, "The most arguments a parser takes.", nil},
		{"type", "Args", true, false, "The arguments, as parsed.", nil},
		{"macro", "arg", false, false, "", nil},
		{"func", "tests.parses_numbers", false, true, "", []string{"assert", "is_number"}},
	}, nil},
	"csharp": {"testdata/csharp/Shop/Cart.cs", []decl{
		{"module", "Shop.Core", false, false, "", nil},
		{"class", "Shop.Core.Cart", true, false, "A cart of items.", nil},
		{"const", "Shop.Core.Cart.Max", true, false, "", nil},
		{"field", "Shop.Core.Cart.count", false, false, "", nil},
		{"field", "Shop.Core.Cart.total", false, false, "", nil},
		{"field", "Shop.Core.Cart.Name", true, false, "The cart's name.", nil},
		{"constructor", "Shop.Core.Cart.Cart", true, false, "", []string{"this.Reset"}},
		{"method", "Shop.Core.Cart.Add", true, false, "", []string{"Helper.Run", "this.Reset"}},
		{"method", "Shop.Core.Cart.Reset", false, false, "", nil},
		{"enum", "Shop.Core.Cart.Mode", true, false, "", nil},
		{"const", "Shop.Core.Cart.Mode.Fast", false, false, "", nil},
		{"const", "Shop.Core.Cart.Mode.Slow", false, false, "", nil},
		{"interface", "Shop.Core.IStore", true, false, "", nil},
		{"method", "Shop.Core.IStore.Add", false, false, "", nil},
		{"struct", "Shop.Core.Point", true, false, "", nil},
		{"field", "Shop.Core.Point.X", true, false, "", nil},
		{"record", "Shop.Core.Item", true, false, "", nil},
		{"type", "Shop.Core.Changed", true, false, "", nil},
		{"class", "Shop.Core.CartTests", true, false, "", nil},
		{"method", "Shop.Core.CartTests.Adds", true, true, "", []string{"Cart", "Cart.Add", "Cart.Reset"}},
	}, map[string][]string{"Shop.Core.Cart": {"Base", "IStore"}}},
	"kotlin": {"testdata/kotlin/src/main/kotlin/shop/Cart.kt", []decl{
		{"class", "Cart", true, false, "A cart of items.", nil},
		{"field", "Cart.name", true, false, "", nil},
		{"field", "Cart.count", false, false, "", nil},
		{"field", "Cart.max", true, false, "", nil},
		{"method", "Cart.add", true, false, "", []string{"Helper.run", "this.reset"}},
		{"method", "Cart.reset", false, false, "", nil},
		{"const", "Cart.LIMIT", true, false, "", nil},
		{"method", "Cart.create", true, false, "", []string{"Cart"}},
		{"enum", "Cart.Mode", true, false, "", nil},
		{"const", "Cart.Mode.FAST", true, false, "", nil},
		{"const", "Cart.Mode.SLOW", true, false, "", nil},
		{"interface", "Store", true, false, "", nil},
		{"method", "Store.add", true, false, "", nil},
		{"class", "Registry", true, false, "", nil},
		{"method", "Registry.find", true, false, "", nil},
		{"class", "Item", true, false, "", nil},
		{"field", "Item.name", true, false, "", nil},
		{"type", "Carts", true, false, "", nil},
		{"func", "topLevel", true, false, "", nil},
		{"class", "CartTest", true, false, "", nil},
		{"method", "CartTest.adds", true, true, "", []string{"Cart", "Cart.add"}},
	}, map[string][]string{"Cart": {"Base", "Store"}}},
	"c": {"testdata/c/src/store.c", []decl{
		{"const", "MAX_ITEMS", true, false, "The most items.", nil},
		{"type", "item_t", true, false, "", nil},
		{"struct", "item", true, false, "", nil},
		{"field", "item.id", true, false, "", nil},
		{"struct", "store", true, false, "A store of items.", nil},
		{"field", "store.count", true, false, "", nil},
		{"field", "store.items", true, false, "", nil},
		{"enum", "mode", true, false, "", nil},
		{"const", "mode.FAST", true, false, "", nil},
		{"const", "mode.SLOW", true, false, "", nil},
		{"func", "helper", false, false, "", nil},
		{"func", "store_add", true, false, "Adds an item.", []string{"helper"}},
	}, nil},
	"cpp": {"testdata/cpp/src/cart.cpp", []decl{
		{"module", "shop", true, false, "", nil},
		{"class", "shop.Cart", true, false, "A cart.", nil},
		{"method", "shop.Cart.Cart", true, false, "", nil},
		{"field", "shop.Cart.count_", true, false, "", nil},
		{"method", "shop.Cart.reset", true, false, "", nil},
		// Declared in the class, defined outside it: one node, the definition's.
		{"method", "shop.Cart.add", true, false, "", []string{"Util.run", "helper", "reset"}},
		{"func", "shop.helper", true, false, "", nil},
		{"func", "shop.CartTest.Adds", true, true, "", nil},
	}, map[string][]string{"shop.Cart": {"Base"}}},
	"php": {"testdata/php/src/Cart.php", []decl{
		{"class", "Cart", true, false, "A cart of items.", nil},
		{"const", "Cart.MAX", true, false, "", nil},
		{"field", "Cart.count", false, false, "", nil},
		{"method", "Cart.add", true, false, "", []string{"Helper.run", "helper", "this.reset"}},
		{"method", "Cart.reset", false, false, "", nil},
		{"interface", "Store", true, false, "", nil},
		{"method", "Store.add", true, false, "", nil},
		{"enum", "Mode", true, false, "", nil},
		{"const", "Mode.Fast", true, false, "", nil},
		{"const", "Mode.Slow", true, false, "", nil},
		{"interface", "Logs", true, false, "", nil},
		{"method", "Logs.log", true, false, "", nil},
		{"func", "helper", true, false, "", nil},
	}, map[string][]string{"Cart": {"Base", "Store"}}},
	"ruby": {"testdata/ruby/lib/cart.rb", []decl{
		{"module", "Shop", true, false, "", nil},
		{"class", "Shop.Cart", true, false, "A cart of items.", nil},
		{"const", "Shop.Cart.MAX", true, false, "", nil},
		{"method", "Shop.Cart.add", true, false, "", []string{"Helper.run", "this.helper"}},
		{"method", "Shop.Cart.create", true, false, "", nil},
		{"method", "Shop.Cart.reset", true, false, "", nil},
		{"func", "helper", true, false, "", nil},
	}, map[string][]string{"Shop.Cart": {"Base"}}},
	"swift": {"testdata/swift/Sources/Shop/Cart.swift", []decl{
		{"class", "Cart", true, false, "A cart of items.", nil},
		{"field", "Cart.max", true, false, "", nil},
		{"field", "Cart.count", false, false, "", nil},
		{"method", "Cart.add", true, false, "", []string{"Helper.run", "this.reset"}},
		{"method", "Cart.reset", false, false, "", nil},
		{"interface", "Store", true, false, "", nil},
		{"method", "Store.add", true, false, "", nil},
		{"struct", "Point", true, false, "", nil},
		{"field", "Point.x", true, false, "", nil},
		{"enum", "Mode", true, false, "", nil},
		{"const", "Mode.fast", true, false, "", nil},
		{"const", "Mode.slow", true, false, "", nil},
		// An extension's method is the extended type's.
		{"method", "Cart.clear", true, false, "", nil},
		{"func", "helper", true, false, "", nil},
		{"class", "CartTests", true, false, "", nil},
		{"method", "CartTests.testAdds", true, false, "", []string{"Cart", "Cart.add"}},
	}, map[string][]string{"Cart": {"Base", "Store"}, "CartTests": {"XCTestCase"}}},
	"protobuf": {"testdata/protobuf/shop/v1/cart.proto", []decl{
		{"message", "Cart", true, false, "A cart of items.", nil},
		{"field", "Cart.id", true, false, "", nil},
		{"field", "Cart.items", true, false, "", nil},
		{"message", "Cart.Line", true, false, "", nil},
		{"field", "Cart.Line.n", true, false, "", nil},
		{"enum", "Mode", true, false, "", nil},
		{"const", "Mode.MODE_UNSPECIFIED", true, false, "", nil},
		{"const", "Mode.MODE_FAST", true, false, "", nil},
		{"service", "CartService", true, false, "Keeps carts.", nil},
		{"rpc", "CartService.Add", true, false, "Adds an item.", nil},
	}, map[string][]string{"CartService.Add": {"AddRequest", "Cart"}}},
	"java": {"testdata/java/src/main/java/com/example/JsonPointer.java", []decl{
		{"class", "JsonPointer", true, false, "A pointer into a JSON document.", nil},
		{"const", "JsonPointer.SEPARATOR", true, false, "The character between segments.", nil},
		{"field", "JsonPointer._head", true, false, "", nil},
		{"field", "JsonPointer._asString", false, false, "", nil},
		{"field", "JsonPointer._offset", false, false, "", nil},
		{"constructor", "JsonPointer.JsonPointer", true, false, "", nil},
		{"method", "JsonPointer.compile", true, false, "Parses an expression.", []string{"this._parse"}},
		{"method", "JsonPointer._parse", false, false, "", []string{"JsonPointer", "StringBuilder", "StringBuilder.append", "StringBuilder.toString"}},
		{"method", "JsonPointer.head", true, false, "", []string{"this._constructHead"}},
		{"method", "JsonPointer._constructHead", false, false, "", []string{"IOException.printStackTrace", "StringReader.read"}},
		{"enum", "JsonPointer.Feature", true, false, "Features of a pointer.", nil},
		{"const", "JsonPointer.Feature.ESCAPE_SLASHES", false, false, "", nil},
		{"field", "JsonPointer.Feature._default", false, false, "", nil},
		{"constructor", "JsonPointer.Feature.Feature", false, false, "", nil},
		{"method", "JsonPointer.Feature.enabledByDefault", true, false, "", nil},
		{"interface", "JsonPointer.Visitor", true, false, "", nil},
		{"method", "JsonPointer.Visitor.visit", false, false, "", nil},
		{"record", "JsonPointer.Segment", true, false, "", nil},
		{"field", "JsonPointer.Segment.name", true, false, "", nil},
		{"field", "JsonPointer.Segment.index", true, false, "", nil},
	}, map[string][]string{"JsonPointer": {"Serializable"}, "JsonPointer.Visitor": {"Comparable", "Serializable"}}},
}

// Every table-driven language has a fixture here: a language without one fails, so a new
// language cannot be registered untested.
func TestEveryLanguageHasAFixture(t *testing.T) {
	for _, l := range lang.Languages() {
		if _, ok := fixtures[l.Name]; !ok {
			t.Errorf("language %s has no fixture in lang_test.go", l.Name)
		}
		if !slices.Contains(graph.CodePrefixes(), l.Prefix) || !graph.IsCode(l.Prefix+"a") {
			t.Errorf("language %s: prefix %q is not one of graph.CodePrefixes", l.Name, l.Prefix)
		}
	}
}

// Each fixture yields exactly its declarations: kinds, qualified names (Type.method for a
// Rust impl's methods, Outer.Inner for nested Java types), visibility, tests by the
// language's convention, doc comments and the calls a body makes.
func TestFixtures(t *testing.T) {
	for name, fx := range fixtures {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(fx.file)
			if err != nil {
				t.Fatal(err)
			}
			l := lang.ByExtension(fx.file)
			if l == nil || l.Name != name {
				t.Fatalf("%s: language %v", fx.file, l)
			}
			facts, err := lang.Extract(context.Background(), l, src, l.TestFile(fx.file), 0, treesit.Bounds{})
			if err != nil || facts.Error != nil {
				t.Fatalf("extract: %v %+v", err, facts.Error)
			}
			var got, want []string
			byQual := map[string]code.Decl{}
			for _, d := range facts.Decls {
				got = append(got, d.Kind+" "+d.Qual())
				if _, dup := byQual[d.Qual()]; !dup {
					byQual[d.Qual()] = d
				}
			}
			for _, w := range fx.decls {
				want = append(want, w.kind+" "+w.qual)
				d := byQual[w.qual]
				if d.Exported != w.exported || d.Test != w.test || !strings.HasPrefix(d.Doc, w.doc) || w.doc == "" && d.Doc != "" ||
					!slices.Equal(d.Calls, w.calls) {
					t.Errorf("%s: exported %v test %v doc %q calls %v; want %v %v %q %v", w.qual, d.Exported, d.Test, d.Doc, d.Calls,
						w.exported, w.test, w.doc, w.calls)
				}
			}
			for qual, uses := range fx.uses {
				if got := byQual[qual].Uses; !slices.Equal(got, uses) {
					t.Errorf("%s uses %v, want %v", qual, got, uses)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("declarations:\n got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			frag := lang.Fragment(l, filepath.ToSlash(fx.file), facts, nil)
			if len(frag.Nodes) != 1+len(slices.CompactFunc(slices.Clone(facts.Decls), func(a, b code.Decl) bool { return a.Qual() == b.Qual() })) ||
				!strings.HasPrefix(frag.Nodes[0].ID, l.Prefix) {
				t.Errorf("fragment: %d nodes for %d declarations", len(frag.Nodes), len(facts.Decls))
			}
		})
	}
}

// Build manifests name the languages whose builds they describe, globs included.
func TestBuilds(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"Cargo.toml", []string{"rust"}},
		{"pom.xml", []string{"java", "kotlin"}},
		{"build.gradle.kts", []string{"java", "kotlin"}},
		{"Shop.Api.csproj", []string{"csharp"}},
		{"CMakeLists.txt", []string{"c", "cpp"}},
		{"buf.yaml", []string{"protobuf"}},
		{"shop.gemspec", []string{"ruby"}},
		{"README.md", nil},
	} {
		if got := lang.Builds(c.name); !slices.Equal(got, c.want) {
			t.Errorf("Builds(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// Rust's str![[...]] (snapbox's snapshot macro) is a macro call, which the grammar reads
// only once Prepare renames it: no parse note, the call's arguments read, the text unchanged.
func TestRustStrMacroParses(t *testing.T) {
	src := []byte("fn check() {\n    let want = str![[r#\"\nusage: prog\n\"#]];\n    assert(want);\n}\n")
	l := lang.Rust()
	facts, err := lang.Extract(context.Background(), l, src, false, 0, treesit.Bounds{})
	if err != nil || facts.Error != nil {
		t.Fatalf("extract: %v %+v", err, facts.Error)
	}
	if len(facts.Decls) != 1 || !slices.Equal(facts.Decls[0].Calls, []string{"assert", "str"}) {
		t.Errorf("declarations %+v", facts.Decls)
	}
	if got := string(l.Prepare([]byte("a.mystr!(x); str!(y); str ! z"))); got != "a.mystr!(x); st_!(y); str ! z" {
		t.Errorf("Prepare: %q", got)
	}
}

// ByExtension runs for every file a walk meets: a lookup, not a build of the tables
// (go test ./source/lang -run '^$' -bench ByExtension -benchmem).
func BenchmarkByExtension(b *testing.B) {
	for b.Loop() {
		lang.ByExtension("docs/readme.md")
	}
}
