// Package render turns a project's declared views into self-contained HTML pages and keeps
// their publication receipts. Its renderer registry is fixed and built in: docforge-html,
// versioned, which the CLI uses for declared output and the proposal preview uses for one
// view. Markdown goes through goldmark (GFM tables, task lists, strikethrough, footnotes,
// heading IDs); raw HTML in a body is shown as text unless the descriptor opts in.
//
// Rendering reads the canonical sources into memory (Load), never the index, so a render and
// the deep status oracle depend on nothing derived; the cheap status reads receipts and stats
// only.
package render
