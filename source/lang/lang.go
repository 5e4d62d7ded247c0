package lang

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Language is one table-driven code adapter: a grammar and what its syntax tree's nodes mean.
// Adding a language is adding one Language to Languages, a grammar to treesit, its ID prefix
// to graph.CodePrefixes and a fixture (TestEveryLanguageHasAFixture).
type Language struct {
	// Name is the language of its nodes ("rust"); Prefix starts their IDs ("rs:").
	Name, Prefix string
	Grammar      treesit.Grammar
	// Extensions are the file name extensions it reads, with the dot.
	Extensions []string
	// Builds are the names of its build tools' manifests (Cargo.toml, *.csproj): init
	// reports those it finds beside the language's files.
	Builds []string
	// Prepare, when set, rewrites what the grammar cannot read into what it can, byte for
	// byte the same length (positions and text stay the source's): Rust's str![...] macro,
	// whose name the grammar takes for the type str.
	Prepare func(src []byte) []byte
	// Decls says which syntax nodes are declarations, by node type.
	Decls map[string]Rule
	// Calls are the call expressions' node types, each with the field holding the callee;
	// a method call's receiver and name fields are Receiver and Method.
	Calls map[string]Call
	// ImplicitThis says a method call without a receiver, in a type, calls a method of that
	// type (Java); else it names a function in scope (Rust).
	ImplicitThis bool
	// UpperIsType says a bare call of a capitalized name creates an object (Kotlin's Cart()),
	// so implies no this.
	UpperIsType bool
	// TypeNames are the node types of a type's name in a base list (default type_identifier).
	TypeNames []string
	// MacroArgs is the node type of a macro invocation's arguments (Rust's token_tree), in
	// which name(...) is read as a call.
	MacroArgs string
	// Callee, when set, reads a called expression's dotted name from its node instead of its
	// text: "" for an expression that names nothing (Python's Generic[T]() calls Generic).
	Callee func(t *treesit.Tree, n *treesit.Node) string
	// ModuleCalls says a call through a name the function does not bind (json.dumps) may
	// be a module's function: it is kept as written, for the file's scope to resolve (Python).
	// Else such a call is through a value of unknown type, and ambiguous.
	ModuleCalls bool
	// Constructor is the class method that makes an object (Ruby's new): Cart.new calls Cart.
	Constructor string
	// Nested says a name resolves through the namespaces enclosing its use (Ruby's Utils
	// inside module Rack is Rack::Utils).
	Nested bool
	// Selves are the names besides self, this and Self that stand for the enclosing type in
	// a call (Python's cls).
	Selves []string
	// Comments are the comment node types; Doc reports whether a comment's text is a doc
	// comment of the declaration after it.
	Comments []string
	Doc      func(text string) bool
	// FileDoc, when set, reads a file's doc instead of its leading inner doc comments (a
	// Python module's docstring).
	FileDoc func(t *treesit.Tree, root *treesit.Node) string
	// TitleEnds are what a declaration's title drops at its end (default "{", ";", "=").
	TitleEnds []string
	// Digests is the domain of its declarations' digests (default docforge.code): review
	// stamps bind to them, so a language's never changes.
	Digests string
	// DeclaredType, when set, reads the type a parameter's or local's type node declares
	// (Python's Optional[Foo] is Foo) instead of the type's text (declaredType).
	DeclaredType func(t *treesit.Tree, typ *treesit.Node) string
	// Exported reports whether a declaration node is visible outside its file's module or
	// package (pub, public).
	Exported func(t *treesit.Tree, n *treesit.Node) bool
	// Test reports whether a declaration node is a test by the language's conventions (an
	// attribute or annotation); TestFile whether a file is a test source by its path.
	Test     func(t *treesit.Tree, n *treesit.Node) bool
	TestFile func(rel string) bool
	// TestNamed, when set, says which declarations of a test file are tests by their names
	// (pytest's test_* functions in Test* classes); by default a function or method whose
	// name starts with test in any case.
	TestNamed func(kind, name, parent string) bool
	// Logic says its functions' bodies are statements the Logic builder reads
	// (treesit.Tree.Logic): the C family's, Rust's and Kotlin's.
	Logic bool
	// Kinds are the node kinds it makes, beside file.
	Kinds []string
	// Imports, when set, reads the file's package and imports into its facts, once its
	// declarations are read; Module resolves an import's module (as Imports wrote it) from
	// the file at rel to the candidate files that may declare it.
	Imports func(t *treesit.Tree, root *treesit.Node, f *code.Facts)
	Module  func(rel string, f *code.Facts, module string) []string
	// ModuleIn, when set, resolves as Module does with the project's layout at hand (PHP's
	// composer.json PSR-4 roots); Manifests are the file names that layout reads, whose
	// change rebuilds the index.
	ModuleIn  func(y *Layout, rel string, f *code.Facts, module string) []string
	Manifests []string
	// Reexports, when set, says which files offer again the names they import (Rust's
	// mod.rs, lib.rs, main.rs), so that a name imported from such a file's module resolves
	// through its imports (Layout); a change to one rebuilds the index.
	Reexports func(rel string) bool
	// Submodules, when set, are the files a module's file offers name from as a submodule
	// (a Python package's __init__.py: from pkg import sub).
	Submodules func(rel, name string) []string
	// FileNames says a name resolves to the files named after it that exist (Swift's
	// Cart.swift): adding or removing such a file rebuilds the index.
	FileNames bool
	// Candidates says an import resolves to the file that exists among its candidates
	// (Module), so removing a file may change what others import: it rebuilds the index.
	Candidates bool
}

// Rule is what one declaration node type makes.
type Rule struct {
	// Kind is the node kind; a function inside a type is a method (Method when set).
	Kind, Method string
	// Name is the path of fields to the name ("name", or "declarator/name"); Names, when
	// set, is a child node type each of whose Name is one more declaration (a field
	// declaration of several variables).
	Name  string
	Names string
	// Body is the field holding the members, which the declaration's qualified name
	// prefixes; Members makes the members' parent the type Owner names instead and no node
	// of its own (a Rust impl block: its methods are Type.method).
	Body  string
	Owner string
	// NameOf, when set, finds the name instead of Name: C's function name is inside nested
	// declarators; a qualified name (Cart::add) gives the parent too.
	NameOf func(t *treesit.Tree, n *treesit.Node) (parent, name string)
	// Components is the path to a type's component list in its header (a Java record's
	// parameters, a Kotlin primary constructor's): each component that declares a property
	// (Component) is a field of the type.
	Components string
	Component  func(t *treesit.Tree, n *treesit.Node) bool
	// Inner says the declarations inside the node are its siblings, not its members (the
	// struct a C typedef names).
	Inner bool
	// KindOf, when set, decides the kind from the node (Kotlin's class_declaration is an
	// interface or an enum by a keyword); "" makes no node, and the members the named type's
	// (Swift's extension).
	KindOf func(t *treesit.Tree, n *treesit.Node) string
	// Wraps is the field holding the declaration this node wraps (Python's decorators around
	// a definition): the wrapped declaration's lines start with the wrapper's.
	Wraps string
	// TopLevel says the node declares only at a module's top level (a Python assignment; in
	// a class it is an attribute).
	TopLevel bool
	// DocOf, when set, reads the declaration's doc instead of the doc comment before it (a
	// Python docstring, the first statement of body).
	DocOf func(t *treesit.Tree, n, body *treesit.Node) string
	// UsesOf, when set, reads the names the declaration uses instead of its bases' and its
	// header's type names.
	UsesOf func(t *treesit.Tree, n *treesit.Node) []string
	// Transparent says a node KindOf makes no declaration of is read as any other node: its
	// children may declare (Ruby's calls: a describe block is a declaration, attr_reader none).
	Transparent bool
	// Bases are the fields naming the types it extends or implements: the type names in
	// them are what it uses (depends_on).
	Bases []string
	// Const names the kind when the declaration is a constant by its modifiers (a static
	// final Java field).
	Const func(t *treesit.Tree, n *treesit.Node) bool
}

// Call is how one call expression names what it calls.
type Call struct {
	Callee           string // the field holding the called expression (a path, a field access)
	Receiver, Method string // or the fields of a method call's receiver and name
	// New marks an object creation: its callee is a type, never a member of this one.
	New bool
}

// Languages are the table-driven languages. The tables are built once and shared: read them,
// never change them.
func Languages() []*Language { return slices.Clone(registered().all) }

// registry is the languages and their lookup by file name extension.
type registry struct {
	all   []*Language
	byExt map[string]*Language
}

// registered is the one registry, built on first use: every file of a walk asks which
// language reads it, and building the tables costs 25 µs and 33 KB (220 allocations).
var registered = sync.OnceValue(func() registry {
	r := registry{
		all:   []*Language{Python(), Rust(), Java(), CSharp(), Kotlin(), C(), CPP(), PHP(), Ruby(), Swift(), Protobuf()},
		byExt: map[string]*Language{},
	}
	for _, l := range r.all {
		for _, ext := range l.Extensions {
			r.byExt[ext] = l
		}
	}
	return r
})

// ByExtension returns the language that reads files named so, or nil.
func ByExtension(name string) *Language { return registered().byExt[path.Ext(name)] }

// Builds returns the languages whose build manifests are named name (pom.xml: Java and
// Kotlin), by Name.
func Builds(name string) []string {
	var out []string
	for _, l := range registered().all {
		for _, b := range l.Builds {
			if ok, _ := path.Match(b, name); ok {
				out = append(out, l.Name)
				break
			}
		}
	}
	return out
}

// underDir reports whether rel has a folder named one of dirs.
func underDir(rel string, dirs ...string) bool {
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if slices.Contains(dirs, seg) {
			return true
		}
	}
	return false
}

func (l *Language) typeNames() []string {
	if len(l.TypeNames) > 0 {
		return l.TypeNames
	}
	return []string{"type_identifier"}
}

func (l *Language) titleEnds() []string {
	if len(l.TitleEnds) > 0 {
		return l.TitleEnds
	}
	return []string{"{", ";", "="}
}

// testNamed reports whether a declaration of a test file is a test by its name.
func (l *Language) testNamed(kind, name, parent string) bool {
	if l.TestNamed != nil {
		return l.TestNamed(kind, name, parent)
	}
	return (kind == code.KindFunc || kind == code.KindMethod) && strings.HasPrefix(strings.ToLower(name), "test")
}

// self reports whether a call's receiver stands for the enclosing type.
func (l *Language) self(head string) bool {
	return head == "self" || head == "this" || head == "Self" || slices.Contains(l.Selves, head)
}
