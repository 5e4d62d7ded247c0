// Package tomlpos finds where keys and string values stand in TOML text, so that semantic
// errors found after decoding (an unknown kind, a dangling relation target) can point at the
// exact line and column. The TOML decoder reports positions only for syntax errors.
//
// It is a line scanner for the shapes DocForge's files use (tables, arrays of tables, dotted
// and quoted keys, inline and multi-line arrays of strings); it never decides validity, and a
// position it cannot find falls back to the nearest enclosing table.
package tomlpos
