// Package shortcode reads the Hugo shortcode tags of a Markdown body: {{< name args >}},
// {{% name args %}} and their closing forms. The source scanner and the renderer both read
// bodies through it, so that they agree on what a page is: which lines are a shortcode's raw
// input rather than Markdown (no headings or links there), which tags are ref links, and which
// are callouts whose inner text stays Markdown.
//
// It is pure string work with no state beyond a per-body memo the caller owns.
package shortcode
