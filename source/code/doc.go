// Package code is what DocForge's tree-sitter adapters (Python, TypeScript, JavaScript) share:
// the facts one source file contributes, computed from its bytes alone; the scope that turns
// a name used in the file into the node IDs it may mean, given the project's layout; and the
// fragment those make. Node IDs are a language prefix, the file's project-relative path, and
// for a declaration a slash and its qualified name: py:src/pkg/mod.py/Class.method. A name
// that may mean several declarations yields one candidate each; a candidate that names no
// node is no relation (graph.Fragment.Refs), so nothing is guessed.
package code
