// Package python is DocForge's built-in Python adapter. Extract turns one file into code
// facts with tree-sitter's Python grammar: the module docstring, imports, classes, functions,
// methods and module-level assignments with their docstrings and headers, the names each
// function calls (through self, cls, imported modules and locals of a known class), and
// pytest's tests. Layout knows what the project's packages make of a dotted module name, so
// Fragment can resolve the names a file uses to the files and declarations they may mean.
package python
