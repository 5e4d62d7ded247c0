// Package render will turn declared views of the graph into self-contained HTML with goldmark,
// written atomically with publication receipts. Nothing is implemented here yet.
package render
