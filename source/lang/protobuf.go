package lang

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Protobuf reads .proto files: messages (nested ones as Outer.Inner) and their fields,
// enums and their values, services and their rpcs, which use their request and response
// messages; an import names a file from the project root or beside the importing one.
func Protobuf() *Language {
	return &Language{
		Name: "protobuf", Prefix: graph.ProtoPrefix, Grammar: treesit.Protobuf, Extensions: []string{".proto"}, Builds: []string{"buf.yaml", "buf.work.yaml"},
		Decls: map[string]Rule{
			"message":     {Kind: code.KindMessage, Name: "message_name", Body: "message_body"},
			"field":       {Kind: code.KindField, Name: "identifier"},
			"map_field":   {Kind: code.KindField, Name: "identifier"},
			"oneof_field": {Kind: code.KindField, Name: "identifier"},
			"enum":        {Kind: code.KindEnum, Name: "enum_name", Body: "enum_body"},
			"enum_field":  {Kind: code.KindConst, Name: "identifier"},
			"service":     {Kind: code.KindService, Name: "service_name", Body: "."},
			"rpc":         {Kind: code.KindRPC, Name: "rpc_name", Bases: []string{"message_or_enum_type"}},
		},
		Prepare:   protoPrepare,
		TypeNames: []string{"identifier"},
		Comments:  []string{"comment"},
		Doc:       func(text string) bool { return strings.HasPrefix(text, "//") || strings.HasPrefix(text, "/*") },
		Exported:  func(*treesit.Tree, *treesit.Node) bool { return true },
		TestFile:  func(string) bool { return false },
		Imports: func(t *treesit.Tree, root *treesit.Node, f *code.Facts) {
			t.Children(root, func(c *treesit.Node) {
				switch c.Type() {
				case "package":
					f.Package = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(t.Text(c), "package")), ";")
				case "import":
					if p := c.ChildByFieldName("path"); p != nil {
						f.Imports = append(f.Imports, code.Import{Module: strings.Trim(t.Text(p), `"'`), Line: treesit.Line(c)})
					}
				}
			})
		},
		Module: func(rel string, _ *code.Facts, spec string) []string {
			return within([]string{path.Clean(spec), path.Join(path.Dir(rel), spec)})
		},
		Kinds: []string{code.KindMessage, code.KindField, code.KindEnum, code.KindConst, code.KindService, code.KindRPC},
	}
}

// reservedStatement is a reserved statement on a line of its own.
var reservedStatement = regexp.MustCompile(`(?m)^[ \t]*reserved\b[^;\n]*;`)

// protoPrepare blanks reserved statements, which declare nothing and which the grammar
// cannot read in an enum (reserved 2;): the same bytes as spaces.
func protoPrepare(src []byte) []byte {
	locs := reservedStatement.FindAllIndex(src, -1)
	if len(locs) == 0 {
		return src
	}
	out := bytes.Clone(src)
	for _, l := range locs {
		for i := l[0]; i < l[1]; i++ {
			out[i] = ' '
		}
	}
	return out
}
