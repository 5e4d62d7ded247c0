package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Ruby reads .rb files: modules, classes with their superclass, methods (self.name ones too),
// and constants. test_* methods of test files (minitest) are tests. require_relative names a
// file beside the requiring one, require one under the load path's lib/ folder; either makes
// every constant and method of the file the requirer's to call (Ruby's are global).
func Ruby() *Language {
	return &Language{
		Name: "ruby", Prefix: graph.RubyPrefix, Grammar: treesit.Ruby, Extensions: []string{".rb"}, Builds: []string{"Gemfile", "*.gemspec"},
		Decls: map[string]Rule{
			"module":           {Kind: code.KindModule, Name: "name", Body: "body"},
			"class":            {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"superclass"}},
			"method":           {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"singleton_method": {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"assignment":       {Kind: code.KindConst, NameOf: rubyConstant},
			// RSpec's and minitest/spec's blocks: describe and context group, it tests.
			"call": {KindOf: rubySpecKind, NameOf: rubySpecName, Body: "block", Transparent: true},
		},
		Calls:        map[string]Call{"call": {Receiver: "receiver", Method: "method"}},
		ImplicitThis: true,
		Nested:       true,
		ModuleCalls:  true,
		Constructor:  "new",
		TypeNames:    []string{"constant"},
		Comments:     []string{"comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "#") && !strings.HasPrefix(text, "#!") },
		Exported:     func(*treesit.Tree, *treesit.Node) bool { return true },
		Test:         func(t *treesit.Tree, n *treesit.Node) bool { return n.Type() == "call" && rubySpecKind(t, n) != "" },
		TestFile: func(rel string) bool {
			base := path.Base(rel)
			return underDir(rel, "test", "spec") || strings.HasSuffix(base, "_test.rb") || strings.HasSuffix(base, "_spec.rb")
		},
		Imports: rubyRequires,
		Module:  rubyModule,
		Kinds:   []string{code.KindModule, code.KindClass, code.KindMethod, code.KindFunc, code.KindConst},
	}
}

// rubySpecKind is the kind of a spec block: a module for describe and context, a function
// for it; "" for any other call.
func rubySpecKind(t *treesit.Tree, n *treesit.Node) string {
	if n.ChildByFieldName("block") == nil {
		return ""
	}
	if r := n.ChildByFieldName("receiver"); r != nil && t.Text(r) != "RSpec" {
		return ""
	}
	switch t.Text(n.ChildByFieldName("method")) {
	case "describe", "context", "feature", "shared_examples":
		return code.KindModule
	case "it", "specify", "example", "scenario", "test":
		return code.KindFunc
	}
	return ""
}

// rubySpecName names a spec block by its first argument, a title or a constant: "parses a
// header" is parses_a_header, Rack::Lint is Rack_Lint.
func rubySpecName(t *treesit.Tree, n *treesit.Node) (string, string) {
	args := n.ChildByFieldName("arguments")
	if args == nil || args.NamedChildCount() == 0 {
		return "", "test"
	}
	return "", code.TestName(t.Text(args.NamedChild(0)))
}

// rubyConstant is the name an assignment to a constant (MAX = 3) declares; other assignments
// declare nothing.
func rubyConstant(t *treesit.Tree, n *treesit.Node) (string, string) {
	if left := n.ChildByFieldName("left"); left != nil && left.Type() == "constant" {
		return "", t.Text(left)
	}
	return "", ""
}

// rubyRequires are a file's require_relative and require calls, each binding every name of
// the file it loads; a relative one's module starts with ./ or ../.
func rubyRequires(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	t.Walk(root, func(c, _ *treesit.Node) bool {
		if c.Type() != "call" || c.ChildByFieldName("receiver") != nil {
			return true
		}
		method := t.Text(c.ChildByFieldName("method"))
		if method != "require_relative" && method != "require" {
			return true
		}
		args := c.ChildByFieldName("arguments")
		if args == nil || args.NamedChildCount() != 1 || args.NamedChild(0).Type() != "string" {
			return false // a computed path: nothing to resolve
		}
		spec := strings.Trim(t.Text(args.NamedChild(0)), `"'`)
		if method == "require_relative" && !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
			spec = "./" + spec
		}
		f.Imports = append(f.Imports, code.Import{Module: spec, Name: "*", Line: treesit.Line(c)})
		return false
	})
}

// rubyModule is the file a require names: beside the requiring file for a relative one, else
// under a lib/ folder of the requiring file's folder or one above it (a gem's lib/, from its
// lib/ or test/ files alike).
func rubyModule(rel string, _ *code.Facts, spec string) []string {
	if !strings.HasSuffix(spec, ".rb") {
		spec += ".rb"
	}
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		return within([]string{path.Join(path.Dir(rel), spec)})
	}
	var out []string
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		if path.Base(dir) != "lib" {
			out = append(out, path.Join(dir, "lib", spec))
		}
		if dir == "." {
			break
		}
	}
	if i := strings.LastIndex("/"+rel, "/lib/"); i >= 0 {
		out = append(out, path.Join(rel[:i], "lib", spec))
	}
	return within(out)
}
