// Package ecma is DocForge's built-in TypeScript and JavaScript adapter. Extract turns one
// file into code facts with tree-sitter's TypeScript, TSX or JavaScript grammar: imports
// (ES modules and CommonJS require), exports again (export ... from), classes, interfaces,
// type aliases, enums, functions, methods and module-level constants with their JSDoc and
// headers, the names each function calls, and the describe/it/test blocks of test files.
// Layout knows the project's workspace packages and tsconfig paths, so Fragment can resolve
// a bare import to the package's files.
package ecma
