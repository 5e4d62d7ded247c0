// Package adopt surveys a documentation tree written for another tool (Hugo, Docusaurus,
// MkDocs, plain GitHub Markdown) and proposes the descriptor that makes it a DocForge project
// without editing a document: the content roots, the front-matter style in use, a family per
// top-level folder, and defaults that derive identities from paths and relations from links.
//
// It reads directory listings and the first line of each Markdown file; it writes nothing.
package adopt
