package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/jsonenc"
	"github.com/docforge/docforge/base/problem"
)

// CodePrefix starts the ID of every node the Go adapter extracts. The other built-in
// adapters have their own prefixes (CodePrefixes); IsCode tells any of them.
const CodePrefix = "go:"

// The prefixes of the other built-in adapters' node IDs: Python, TypeScript, JavaScript, the
// table-driven languages (source/lang), and the text files no language adapter reads.
const (
	PythonPrefix     = "py:"
	TypeScriptPrefix = "ts:"
	JavaScriptPrefix = "js:"
	RustPrefix       = "rs:"
	JavaPrefix       = "jv:"
	CSharpPrefix     = "cs:"
	KotlinPrefix     = "kt:"
	CPrefix          = "c:"
	CPPPrefix        = "cpp:"
	PHPPrefix        = "php:"
	RubyPrefix       = "rb:"
	SwiftPrefix      = "sw:"
	ProtoPrefix      = "pb:"
	TextPrefix       = "file:"
)

// CodePrefixes are the ID prefixes of every node a built-in adapter makes, sorted.
func CodePrefixes() []string {
	return []string{CPrefix, CPPPrefix, CSharpPrefix, TextPrefix, CodePrefix, JavaScriptPrefix, JavaPrefix, KotlinPrefix, ProtoPrefix, PHPPrefix, PythonPrefix, RubyPrefix, RustPrefix, SwiftPrefix, TypeScriptPrefix}
}

// IsCode reports whether id is a node a built-in code adapter made (from code or from a text
// file under a code root) rather than one a document or record declares.
func IsCode(id string) bool {
	i := strings.IndexByte(id, ':')
	if i <= 0 || i > 4 || i == len(id)-1 {
		return false
	}
	switch id[:i+1] {
	case CodePrefix, PythonPrefix, TypeScriptPrefix, JavaScriptPrefix, RustPrefix, JavaPrefix, CSharpPrefix, KotlinPrefix,
		CPrefix, CPPPrefix, PHPPrefix, RubyPrefix, SwiftPrefix, ProtoPrefix, TextPrefix:
		return true
	}
	return false
}

// Node is one node of the primary graph: its core fields (Record) plus what the index stores
// beside them but the generation diff does not compare.
type Node struct {
	Record
	Line int `json:"line"`
	// EndLine is a code declaration's last line (0 for other nodes): evidence quotes
	// Line..EndLine of its source.
	EndLine int `json:"-"`
	// CodeTerms are a declaration's source terms, searched but never shown.
	CodeTerms string    `json:"-"`
	Body      string    `json:"-"`
	Headings  []Heading `json:"headings,omitempty"`
	// Logic is a code node's control paths, stored apart from the graph (never searched,
	// filtered or traversed); nil for every other node.
	Logic *Logic `json:"-"`
	// Parts are digests of the two halves of the content, so that a review stamp can say
	// what changed; Stamps are the review stamps this node declares on its relations.
	Parts  Parts   `json:"-"`
	Stamps []Stamp `json:"-"`
}

// Heading is a Markdown heading inside a node body and the anchor it becomes.
type Heading struct {
	Level  int    `json:"level"`
	Text   string `json:"text"`
	Anchor string `json:"anchor"`
	Line   int    `json:"line"`
}

// Edge is one typed relation, identified exactly by its triple.
type Edge struct {
	Source   string `json:"source_id"`
	Relation string `json:"relation"`
	Target   string `json:"target_id"`
}

// Compare orders edges by source, relation, then target.
func (e Edge) Compare(o Edge) int {
	if c := strings.Compare(e.Source, o.Source); c != 0 {
		return c
	}
	if c := strings.Compare(e.Relation, o.Relation); c != 0 {
		return c
	}
	return strings.Compare(e.Target, o.Target)
}

// EdgeAt is an edge with the position of its target in the source, for error reports, and
// for an edge made from a link, the anchor the link named in its target.
type EdgeAt struct {
	Edge
	At     problem.Location
	Anchor string
}

// Fragment is everything one source file contributes: its nodes, their outgoing edges, and
// the problems found in the file itself. Cross-file checks (duplicates, dangling targets)
// happen later, over all fragments.
type Fragment struct {
	Path  string
	Nodes []Node
	Edges []EdgeAt
	// Refs are relations an adapter derived (calls, imports, ...). Unlike declared relations
	// they are candidates: one exists as an edge exactly when both its ends exist as nodes, and
	// a missing end is never a problem.
	Refs []Edge
	// Links are the file's Markdown links to other content files, resolved to edges only once
	// every file's nodes are known (see source.ResolveLinks).
	Links    []Link
	Problems []problem.Problem
}

// Link is one Markdown link, wiki link or shortcode from a node to another content file (or,
// for a wiki link, to a node ID). Its target is unknown until the files it may name are
// matched against the nodes they hold.
type Link struct {
	Source string
	// Paths are the project-relative files the link may name, the preferred first; a wiki
	// link has none and names ID instead.
	Paths []string
	ID    string
	// Anchor is the fragment after '#', kept on the edge.
	Anchor string
	// Dest is the destination as written, for messages.
	Dest string
	At   problem.Location
	// Mention is a backticked Go name (pkg.Name, Type.Method, Name) that relates the node to
	// the one declaration it names; a link with a mention has no Paths and no ID.
	Mention string
	// Routes are the Paths as site routes (lower-case, no extension, an index file standing
	// for its folder), tried when no path is a node file as written: set for a link written
	// as a route (no extension) and for a Hugo ref. Hugo lower-cases URLs, so
	// /methods/site/language/ is content/methods/site/Language.md.
	Routes []string
	// Unique, for a Hugo ref, is the route the one page it names may end with anywhere in the
	// site: Hugo's last resort is a unique page or bundle name.
	Unique string
	// RouteIDs, for a link written as a route on a Docusaurus site, are the node IDs the
	// route spells, tried after Paths: Docusaurus serves a page at a URL made from its doc
	// ID (number prefixes dropped, a front matter id or slug taken), not its file name.
	RouteIDs []string
	// Optional marks a link of a file the project does not own as a document (an agent's
	// guide): it becomes a relation when it resolves, and is no problem when it does not.
	Optional bool
}

// ContentHash computes a node's content hash from its content, the relations it declares,
// and its body, and sets n.Parts. Location (source path, anchor, line) is excluded, so moving
// a node does not change its content hash.
func ContentHash(n *Node, edges []Edge) string {
	return contentHash(n, edges, Parts{})
}

// CodeContentHash is ContentHash for a declaration: its signature and implementation digests
// (see Digest) take the place of the relations it derives from them, so that the hash follows
// the code itself and not where it sits. It sets n.Parts to those digests.
func CodeContentHash(n *Node, signature, implementation string) string {
	return contentHash(n, nil, Parts{Head: signature, Body: implementation})
}

func contentHash(n *Node, edges []Edge, code Parts) string {
	rels := make([]Edge, len(edges))
	copy(rels, edges)
	slices.SortFunc(rels, Edge.Compare)
	rels = slices.Compact(rels)
	// The encoding is json.Marshal's of the struct {id, kind, family, title, status,
	// authority, tags, language, capabilities, relations (pairs of relation and target),
	// body, signature and code (these two omitted when empty)}, written without reflection.
	head := func(body string) []byte {
		o := jsonenc.NewObject(make([]byte, 0, 256+len(body)+len(body)/8))
		n.Record.appendDescription(&o, true)
		o.Value("relations", func(b []byte) []byte {
			b = append(b, '[')
			for i, e := range rels {
				if i > 0 {
					b = append(b, ',')
				}
				b = jsonenc.Strings(b, []string{e.Relation, e.Target})
			}
			return append(b, ']')
		})
		o.Str("body", body)
		if code.Head != "" {
			o.Str("signature", code.Head)
		}
		if code.Body != "" {
			o.Str("code", code.Body)
		}
		return o.End()
	}
	if code != (Parts{}) {
		n.Parts = code
		return hashBytes("docforge.node.content.v1", head(n.Body))
	}
	// A document's head is everything but its body. The head is encoded with an empty body,
	// which ends it `"body":""}` (signature and code are empty, so left out), and the body
	// once on its own; the whole is the one spliced into the other, where encoding the whole
	// again made the hash of a 2 KB document half as slow again (docs/benchmarks.md).
	h, bodyJSON := head(""), jsonenc.String(make([]byte, 0, len(n.Body)+len(n.Body)/8+2), n.Body)
	n.Parts = Parts{Head: digestBytes("docforge.node.head.v1", h), Body: digestBytes("docforge.node.body.v1", bodyJSON)}
	// The whole is hashed in its three pieces rather than joined: joining copied every body
	// once more, 43% of what hashing a 2 KB document allocated (docs/benchmarks.md).
	return hashBytes("docforge.node.content.v1", h[:len(h)-len(`""}`)], bodyJSON, []byte{'}'})
}

// Parts are short digests of the two halves of a node's content. Head is a code node's
// signature, or a document's fields and relations; Body is the implementation of a code
// node, or a document's body.
type Parts struct {
	Head string `json:"head"`
	Body string `json:"body"`
}

// Digest returns the short digest of a part: 16 hex digits of its SHA-256. Parts only explain
// a change the full content hash has already detected, so 64 bits is plenty.
func Digest(domain, text string) string {
	d := NewDigester(domain)
	d.WriteString(text)
	return d.Sum()
}

// Digester computes a Digest from a text written in pieces, without building the text.
type Digester struct{ h hash.Hash }

// NewDigester starts the Digest of a text in domain.
func NewDigester(domain string) Digester {
	h := sha256.New()
	io.WriteString(h, domain)
	h.Write([]byte{0})
	return Digester{h}
}

// WriteString appends s to the text.
func (d Digester) WriteString(s string) { io.WriteString(d.h, s) }

// Write appends p to the text.
func (d Digester) Write(p []byte) { d.h.Write(p) }

// Sum returns the Digest of the text written so far.
func (d Digester) Sum() string { return hex.EncodeToString(d.h.Sum(nil)[:8]) }

// digestBytes is Digest of a text given as bytes.
func digestBytes(domain string, text []byte) string {
	d := NewDigester(domain)
	d.Write(text)
	return d.Sum()
}

// Record is a node's core fields: the generation diff reports a node as changed exactly when
// its record changes. Anchor locates the node in its source: a heading slug for a Markdown
// node, "L<line>" for a record.
type Record struct {
	ID           string   `json:"id"`
	Kind         string   `json:"kind"`
	Family       string   `json:"family"`
	Title        string   `json:"title"`
	Status       string   `json:"status"`
	Authority    string   `json:"authority"`
	Tags         []string `json:"tags"`
	Language     string   `json:"language"`
	Capabilities []string `json:"capabilities"`
	SourcePath   string   `json:"source_path"`
	Anchor       string   `json:"anchor"`
	ContentHash  string   `json:"content_hash"`
}

// Hash is the record's hash; equal hashes mean every core field is equal.
func (r Record) Hash() string {
	// json.Marshal's encoding of r with nil lists as [], written without reflection.
	return hashBytes("docforge.node.record.v1", r.appendJSON(make([]byte, 0, 512), true))
}

// AppendJSON appends json.Marshal's encoding of r.
func (r *Record) AppendJSON(dst []byte) []byte { return r.appendJSON(dst, false) }

// appendJSON encodes r as json.Marshal does, nil lists as null unless nilAsEmpty.
func (r *Record) appendJSON(dst []byte, nilAsEmpty bool) []byte {
	o := jsonenc.NewObject(dst)
	r.appendDescription(&o, nilAsEmpty)
	o.Str("source_path", r.SourcePath)
	o.Str("anchor", r.Anchor)
	o.Str("content_hash", r.ContentHash)
	return o.End()
}

// appendDescription writes the members a record and a node's content both begin with: id,
// kind, family, title, status, authority, tags, language, capabilities.
func (r *Record) appendDescription(o *jsonenc.Object, nilAsEmpty bool) {
	o.Str("id", r.ID)
	o.Str("kind", r.Kind)
	o.Str("family", r.Family)
	o.Str("title", r.Title)
	o.Str("status", r.Status)
	o.Str("authority", r.Authority)
	o.List("tags", r.Tags, nilAsEmpty)
	o.Str("language", r.Language)
	o.List("capabilities", r.Capabilities, nilAsEmpty)
}

// AppendJSON appends json.Marshal's encoding of e.
func (e *Edge) AppendJSON(dst []byte) []byte {
	o := jsonenc.NewObject(dst)
	o.Str("source_id", e.Source)
	o.Str("relation", e.Relation)
	o.Str("target_id", e.Target)
	return o.End()
}

// ChangedFields lists the core fields (JSON names) whose values differ between r and o.
func (r Record) ChangedFields(o Record) []string {
	var out []string
	add := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	add("kind", r.Kind == o.Kind)
	add("family", r.Family == o.Family)
	add("title", r.Title == o.Title)
	add("status", r.Status == o.Status)
	add("authority", r.Authority == o.Authority)
	add("tags", slices.Equal(r.Tags, o.Tags))
	add("language", r.Language == o.Language)
	add("capabilities", slices.Equal(r.Capabilities, o.Capabilities))
	add("source_path", r.SourcePath == o.SourcePath)
	add("anchor", r.Anchor == o.Anchor)
	add("content_hash", r.ContentHash == o.ContentHash)
	return out
}

// RecordHash is the hash of every core field of n.
func RecordHash(n *Node) string { return n.Record.Hash() }

// EdgeHash is the hash of an edge's exact triple: of its JSON array of three strings.
func EdgeHash(e Edge) string {
	var buf [256]byte
	return hashBytes("docforge.edge.v1", jsonenc.Strings(buf[:0], []string{e.Source, e.Relation, e.Target}))
}

// hashBytes hashes a domain label and a JSON encoding, given in pieces to be hashed in order.
func hashBytes(domain string, pieces ...[]byte) string {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write([]byte{0})
	for _, b := range pieces {
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ResolveRefs returns the distinct relation candidates that are relations: both ends are
// nodes and the project allows the relation. The index and the renderer both apply it, so a
// page shows exactly the edges the index holds.
func ResolveRefs(refs []Edge, isNode, allowed func(string) bool) []Edge {
	seen := make(map[Edge]bool, len(refs))
	var out []Edge
	for _, r := range refs {
		if !seen[r] && isNode(r.Source) && isNode(r.Target) && allowed(r.Relation) {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
