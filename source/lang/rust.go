package lang

import (
	"bytes"
	"path"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/treesit"
)

// Rust reads .rs files: modules, structs, enums, unions, traits, type aliases, functions,
// methods of impl blocks (Type.method, a trait's impl's too), consts, statics and macros by
// example; a struct's fields and an enum's variants. #[test] functions, and every function of
// a file under tests/, are tests.
func Rust() *Language {
	return &Language{
		Name: "rust", Prefix: graph.RustPrefix, Grammar: treesit.Rust, Extensions: []string{".rs"}, Builds: []string{"Cargo.toml"},
		Decls: map[string]Rule{
			"mod_item":                {Kind: code.KindModule, Name: "name", Body: "body"},
			"struct_item":             {Kind: code.KindStruct, Name: "name", Body: "body"},
			"union_item":              {Kind: code.KindStruct, Name: "name", Body: "body"},
			"enum_item":               {Kind: code.KindEnum, Name: "name", Body: "body"},
			"trait_item":              {Kind: code.KindInterface, Name: "name", Body: "body"},
			"impl_item":               {Owner: "type", Body: "body"},
			"type_item":               {Kind: code.KindType, Name: "name"},
			"function_item":           {Kind: code.KindFunc, Method: code.KindMethod, Name: "name", Body: "body"},
			"function_signature_item": {Kind: code.KindFunc, Method: code.KindMethod, Name: "name"},
			"const_item":              {Kind: code.KindConst, Name: "name"},
			"static_item":             {Kind: code.KindVar, Name: "name"},
			"macro_definition":        {Kind: code.KindMacro, Name: "name"},
			"field_declaration":       {Kind: code.KindField, Name: "name"},
			"enum_variant":            {Kind: code.KindConst, Name: "name"},
		},
		Calls: map[string]Call{
			"call_expression":  {Callee: "function"},
			"macro_invocation": {Callee: "macro"},
		},
		MacroArgs: "token_tree",
		Prepare:   rustPrepare,
		Comments:  []string{"line_comment", "block_comment"},
		Doc: func(text string) bool {
			return strings.HasPrefix(text, "///") && !strings.HasPrefix(text, "////") || strings.HasPrefix(text, "/**")
		},
		Exported: func(t *treesit.Tree, n *treesit.Node) bool {
			pub := false
			t.Children(n, func(c *treesit.Node) { pub = pub || c.Type() == "visibility_modifier" })
			return pub
		},
		Test: func(t *treesit.Tree, n *treesit.Node) bool {
			if n.Type() != "function_item" {
				return false
			}
			for p := t.PrevSibling(n); p != nil && p.Type() == "attribute_item"; p = t.PrevSibling(p) {
				if a := t.Text(p); strings.HasPrefix(a, "#[test") || strings.HasSuffix(strings.TrimSuffix(a, "]"), "::test") || strings.Contains(a, "test]") {
					return true
				}
			}
			return false
		},
		TestFile: func(rel string) bool { return underDir(rel, "tests", "benches") },
		Imports:  rustImports,
		Reexports: func(rel string) bool {
			switch path.Base(rel) {
			case "mod.rs", "lib.rs", "main.rs":
				return true
			}
			return false
		},
		Module:     rustModule,
		Submodules: rustSubmodules,
		Logic:      true,
		Kinds: []string{code.KindModule, code.KindStruct, code.KindEnum, code.KindInterface, code.KindType,
			code.KindFunc, code.KindMethod, code.KindConst, code.KindVar, code.KindMacro, code.KindField},
	}
}

// rustPrepare renames a macro called str (snapbox's str![[...]]), which the grammar reads as
// the primitive type str and fails on, to a name of the same length it reads as a macro.
func rustPrepare(src []byte) []byte {
	var out []byte
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte("str!"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + 4
		if at > 0 && isIdentByte(src[at-1]) || i >= len(src) || !bytes.ContainsRune([]byte("[({"), rune(src[i])) {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		copy(out[at:], "st_!")
	}
	if out == nil {
		return src
	}
	return out
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
