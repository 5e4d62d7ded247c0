// Package golang is DocForge's built-in Go adapter. It turns one Go source file into Facts:
// its package clause, imports, declarations (types, functions, methods) with their doc
// comments, candidate call relations, test evidence, and the Logic of every function. Facts
// depend on the file's bytes alone, so they can be cached by content hash; Assemble turns them
// into graph nodes and candidate relations once the file's import path is known.
//
// Two extractors exist. Extract uses go/parser and go/ast. Scan, used under the no-AST
// policy, is a lexical declaration scanner: it finds the same declarations from the token
// stream alone, and produces no calls, no test evidence and no Logic.
package golang
