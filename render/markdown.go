package render

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/source"
)

// converter renders node bodies for one page at a time; it is not safe for concurrent use
// (each rendering goroutine has its own). Its per-node state feeds the goldmark hooks.
type converter struct {
	md      goldmark.Markdown
	ids     *pageIDs
	prefix  []byte // the current node's prefix for heading and footnote IDs
	title   string // the current node's title: a leading heading equal to it is dropped
	from    string // the current node's source path, which its links are relative to
	resolve func(id string) (href, title string)
	// link is where a link destination written in the file from points on this page: a
	// node's section, a file relative to the page, or "" to keep it as written. hugoRef marks
	// a ref or relref argument.
	link func(from, dest string, hugoRef bool) string
	// removed counts a shortcode left out of the page.
	removed func(name string)
}

func newConverter(rawHTML bool) *converter {
	c := &converter{}
	c.ids = &pageIDs{c: c, used: map[string]int{}}
	var ropts []renderer.Option
	if rawHTML {
		ropts = append(ropts, html.WithUnsafe())
	} else {
		ropts = append(ropts, renderer.WithNodeRenderers(util.Prioritized(escapedHTML{}, 100)))
	}
	c.md = goldmark.New(
		goldmark.WithExtensions(extension.GFM,
			extension.NewFootnote(extension.WithFootnoteIDPrefixFunction(func(ast.Node) []byte { return c.prefix }))),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithInlineParsers(util.Prioritized(wikiLinks{c}, 150)), // before the link parser (200)
			parser.WithASTTransformers(util.Prioritized(bodyShape{c}, 100), util.Prioritized(linkShape{c}, 110), util.Prioritized(calloutShape{}, 120))),
		goldmark.WithRendererOptions(ropts...),
	)
	return c
}

// convert writes the HTML of n's body.
func (c *converter) convert(w io.Writer, n *graph.Node) error {
	c.prefix = append(append(c.prefix[:0], anchorOf(n.ID)...), "--"...)
	c.title, c.from = n.Title, n.SourcePath
	clear(c.ids.used) // IDs carry the node's prefix, so uniqueness within the node suffices
	pc := parser.NewContext(parser.WithIDs(c.ids))
	body := shortcodes(admonitions(n.Body), func(dest string) string { return c.link(c.from, dest, true) }, c.removed)
	return c.md.Convert([]byte(body), w, parser.WithContext(pc))
}

// linkShape points the body's links and images where they lead from the rendered page: a
// same-node anchor at its prefixed heading ID, a link to a node at its section, a file
// relative to the page instead of to the source. External URLs are left alone.
type linkShape struct{ c *converter }

func (t linkShape) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			dest := string(l.Destination)
			if len(l.Title) > 0 && strings.HasSuffix(dest, "#"+anchorOf(string(l.Title))) {
				return ast.WalkContinue, nil // a wiki link, already resolved
			}
			l.Destination = []byte(t.c.rewrite(dest))
		case *ast.Image:
			l.Destination = []byte(t.c.rewrite(string(l.Destination)))
		}
		return ast.WalkContinue, nil
	})
}

// rewrite is where one destination in the current body leads from the page.
func (c *converter) rewrite(dest string) string {
	switch {
	case strings.HasPrefix(dest, resolvedScheme):
		return dest[len(resolvedScheme):]
	case dest == "" || externalURL.MatchString(dest):
		return dest
	case strings.HasPrefix(dest, "#"):
		return "#" + string(c.prefix) + source.Slug(dest[1:])
	}
	if href := c.link(c.from, dest, false); href != "" {
		return href
	}
	return dest
}

// externalURL is a destination with a scheme (https:, mailto:) or a protocol-relative one.
var externalURL = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)`)

// calloutShape turns a blockquote that opens with a GitHub alert marker ([!NOTE], [!TIP],
// [!WARNING], ...; Hugo's notice shortcodes become one) into a callout: classed, with its
// kind as a title instead of the marker.
type calloutShape struct{}

// alertMarker is a GitHub alert's marker line, with the title an MkDocs or Docusaurus
// admonition gave it (admonitions) after it.
var alertMarker = regexp.MustCompile(`^\[!([A-Za-z][\w-]*)\](?:[ \t]+(.+))?$`)

func (calloutShape) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var quotes []*ast.Blockquote
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if q, ok := n.(*ast.Blockquote); ok && entering {
			quotes = append(quotes, q)
		}
		return ast.WalkContinue, nil
	})
	for _, q := range quotes {
		para, ok := q.FirstChild().(*ast.Paragraph)
		if !ok {
			continue
		}
		// The marker is the paragraph's first line: its text nodes up to a line break.
		var marker []byte
		var nodes []ast.Node
		for n := para.FirstChild(); n != nil; n = n.NextSibling() {
			t, ok := n.(*ast.Text)
			if !ok {
				break
			}
			marker = append(marker, t.Segment.Value(src)...)
			nodes = append(nodes, n)
			if t.SoftLineBreak() || t.HardLineBreak() {
				break
			}
		}
		m := alertMarker.FindSubmatch(bytes.TrimSpace(marker))
		if m == nil {
			continue
		}
		for _, n := range nodes {
			para.RemoveChild(para, n)
		}
		if para.ChildCount() == 0 {
			q.RemoveChild(q, para)
		}
		kind := strings.ToLower(string(m[1]))
		q.SetAttributeString("class", []byte("callout callout-"+kind))
		title := ast.NewParagraph()
		title.SetAttributeString("class", []byte("callout-title"))
		name := strings.ToUpper(kind[:1]) + kind[1:]
		if len(m[2]) > 0 {
			name = string(m[2])
		}
		title.AppendChild(title, ast.NewString([]byte(name)))
		if first := q.FirstChild(); first != nil {
			q.InsertBefore(q, first, title)
		} else {
			q.AppendChild(q, title)
		}
	}
}

// pageIDs gives body headings IDs unique on the page: the node's prefix, then the slug the
// index uses for the heading's anchor, then -N when it repeats.
type pageIDs struct {
	c    *converter
	used map[string]int
}

func (p *pageIDs) Generate(value []byte, kind ast.NodeKind) []byte {
	slug := source.Slug(string(value))
	if slug == "" {
		slug = "section"
	}
	id := string(p.prefixBytes()) + slug
	n := p.used[id]
	p.used[id] = n + 1
	if n > 0 {
		id += "-" + strconv.Itoa(n)
	}
	return []byte(id)
}

func (p *pageIDs) Put(value []byte) { p.used[string(value)]++ }

func (p *pageIDs) prefixBytes() []byte {
	if p.c == nil {
		return nil
	}
	return p.c.prefix
}

// wikiLinks turns [[id]] and [[id|label]] into links to the node (or its title as text when
// the node is on no page).
type wikiLinks struct{ c *converter }

func (wikiLinks) Trigger() []byte { return []byte{'['} }

func (p wikiLinks) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("[[")) {
		return nil
	}
	end := bytes.Index(line[2:], []byte("]]"))
	if end < 0 {
		return nil
	}
	inner := string(bytes.TrimSpace(line[2 : 2+end]))
	id, label := inner, ""
	if bar := bytes.IndexByte([]byte(inner), '|'); bar >= 0 {
		id, label = string(bytes.TrimSpace([]byte(inner[:bar]))), string(bytes.TrimSpace([]byte(inner[bar+1:])))
	}
	if id == "" {
		return nil
	}
	block.Advance(2 + end + 2)
	href, title := p.c.resolve(id)
	if label == "" {
		label = title
	}
	if label == "" {
		label = id
	}
	if href == "" {
		return ast.NewString([]byte(label))
	}
	link := ast.NewLink()
	link.Destination = []byte(href)
	link.Title = []byte(id)
	link.AppendChild(link, ast.NewString([]byte(label)))
	return link
}

// bodyShape fits a body into its section: a first heading that repeats the node's title is
// dropped (the section shows the title), and headings move one level down, below the
// section's own heading.
type bodyShape struct{ c *converter }

func (t bodyShape) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	if h, ok := doc.FirstChild().(*ast.Heading); ok && plainText(h, src) == t.c.title {
		doc.RemoveChild(doc, h)
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			h.Level = min(h.Level+1, 6) // a body's h1 is its section's h2
		}
		return ast.WalkContinue, nil
	})
}

func plainText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// escapedHTML shows raw HTML as text: the default for project content, which may come from
// anyone able to commit a Markdown file.
type escapedHTML struct{}

func (escapedHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*ast.HTMLBlock)
		if entering {
			w.WriteString(`<pre class="raw-html"><code>`)
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				w.Write(util.EscapeHTML(seg.Value(src)))
			}
			if n.HasClosure() {
				w.Write(util.EscapeHTML(n.ClosureLine.Value(src)))
			}
			w.WriteString("</code></pre>\n")
		}
		return ast.WalkContinue, nil
	})
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			n := node.(*ast.RawHTML)
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				w.Write(util.EscapeHTML(seg.Value(src)))
			}
		}
		return ast.WalkSkipChildren, nil
	})
}
