// Package treesit is DocForge's one tree-sitter runtime: it parses a file in one of the
// grammars the built-in adapters read (Python, TypeScript, TSX, JavaScript) and offers the
// few walks they share. It is the only package that links the grammars (cgo), so the bridge
// and the manager, which never parse code, link none of it.
package treesit
