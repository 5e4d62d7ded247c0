package lang

import (
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Ruby reads .rb files: modules, classes with their superclass, methods (self.name ones too),
// and constants. test_* methods of test files (minitest) are tests; require_relative names
// a file beside the requiring one.
func Ruby() *Language {
	return &Language{
		Name: "ruby", Prefix: graph.RubyPrefix, Grammar: treesit.Ruby, Extensions: []string{".rb"}, Builds: []string{"Gemfile", "*.gemspec"},
		Decls: map[string]Rule{
			"module":           {Kind: code.KindModule, Name: "name", Body: "body"},
			"class":            {Kind: code.KindClass, Name: "name", Body: "body", Bases: []string{"superclass"}},
			"method":           {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"singleton_method": {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"assignment":       {Kind: code.KindConst, NameOf: rubyConstant},
		},
		Calls:        map[string]Call{"call": {Receiver: "receiver", Method: "method"}},
		ImplicitThis: true,
		TypeNames:    []string{"constant"},
		Comments:     []string{"comment"},
		Doc:          func(text string) bool { return strings.HasPrefix(text, "#") && !strings.HasPrefix(text, "#!") },
		Exported:     func(*treesit.Tree, *treesit.Node) bool { return true },
		TestFile: func(rel string) bool {
			base := path.Base(rel)
			return underDir(rel, "test", "spec") || strings.HasSuffix(base, "_test.rb") || strings.HasSuffix(base, "_spec.rb")
		},
		Imports: rubyRequires,
		Module: func(rel string, _ *code.Facts, spec string) []string {
			if !strings.HasSuffix(spec, ".rb") {
				spec += ".rb"
			}
			return within([]string{path.Join(path.Dir(rel), spec)})
		},
		Kinds: []string{code.KindModule, code.KindClass, code.KindMethod, code.KindFunc, code.KindConst},
	}
}

// rubyConstant is the name an assignment to a constant (MAX = 3) declares; other assignments
// declare nothing.
func rubyConstant(t *treesit.Tree, n *treesit.Node) (string, string) {
	if left := n.ChildByFieldName("left"); left != nil && left.Type() == "constant" {
		return "", t.Text(left)
	}
	return "", ""
}

// rubyRequires are a file's require_relative calls.
func rubyRequires(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
	t.Walk(root, func(c, _ *treesit.Node) bool {
		if c.Type() == "call" && t.Text(c.ChildByFieldName("method")) == "require_relative" && c.ChildByFieldName("receiver") == nil {
			if args := c.ChildByFieldName("arguments"); args != nil {
				spec := strings.Trim(strings.TrimSpace(strings.Trim(t.Text(args), "()")), `"'`)
				f.Imports = append(f.Imports, code.Import{Module: spec, Line: treesit.Line(c)})
			}
			return false
		}
		return true
	})
}
