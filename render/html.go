package render

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Renderer is one entry of the fixed, built-in registry.
type Renderer struct {
	Name    string
	Version string
}

// ID is name@version, what receipts record.
func (r Renderer) ID() string { return r.Name + "@" + r.Version }

// HTML is the built-in page renderer. Its version changes whenever its output for the same
// sources would change, which makes every receipt of the old version stale.
var HTML = Renderer{Name: "docforge-html", Version: "1"}

// Registry lists the renderers DocForge has. It is fixed: a project cannot add one.
func Registry() []Renderer { return []Renderer{HTML} }

// Lookup finds a registered renderer by name@version or by name.
func Lookup(id string) (Renderer, bool) {
	for _, r := range Registry() {
		if r.ID() == id || r.Name == id {
			return r, true
		}
	}
	return Renderer{}, false
}

// ViewByID returns the declared view with id.
func ViewByID(d *project.Descriptor, id string) (project.View, error) {
	for _, v := range d.Views {
		if v.ID == id {
			return v, nil
		}
	}
	ids := make([]string, len(d.Views))
	for i, v := range d.Views {
		ids[i] = v.ID
	}
	return project.View{}, problem.Errorf(problem.InvalidArgument, "no view %q is declared in %s (declared: %s)", id, project.FileName, strings.Join(ids, ", "))
}

// Selects reports whether a view shows node n: every given selector must match (any listed
// family, any listed kind, any listed tag); a view without selectors shows every node.
func Selects(v project.View, n *graph.Node) bool {
	if len(v.Families) > 0 && !slices.Contains(v.Families, n.Family) {
		return false
	}
	if len(v.Kinds) > 0 && !slices.Contains(v.Kinds, n.Kind) {
		return false
	}
	if len(v.Tags) > 0 && !slices.ContainsFunc(n.Tags, func(t string) bool { return slices.Contains(v.Tags, t) }) {
		return false
	}
	return true
}

// Options tune a render without changing its bytes.
type Options struct {
	Workers int // goroutines converting bodies; 0: GOMAXPROCS
	// Report, when set, receives what the render left out of the page.
	Report *Report
}

// Report is what a render left out: each Hugo shortcode DocForge does not render, by name,
// with how many times it was dropped.
type Report struct {
	Shortcodes map[string]int `json:"shortcodes_removed,omitempty"`
}

// Render returns the HTML page of one view: the same sources always give the same bytes.
func (r Renderer) Render(d *project.Descriptor, g *Graph, viewID string, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := r.RenderTo(&b, d, g, viewID, opts); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RenderTo streams the HTML page of one view to w, holding only a bounded window of rendered
// sections in memory: a page of a large view is megabytes.
func (r Renderer) RenderTo(w io.Writer, d *project.Descriptor, g *Graph, viewID string, opts Options) error {
	v, err := ViewByID(d, viewID)
	if err != nil {
		return err
	}
	var nodes []*graph.Node
	for _, n := range g.Nodes {
		if Selects(v, n) {
			nodes = append(nodes, n)
		}
	}
	p := &page{d: d, g: g, view: v, nodes: nodes, home: map[string]string{}, removed: map[string]int{}}
	if opts.Report != nil {
		defer func() {
			if len(p.removed) > 0 {
				opts.Report.Shortcodes = p.removed
			}
		}()
	}
	// A node links to the first declared view that shows it.
	for _, other := range d.Views {
		for _, n := range g.Nodes {
			if _, seen := p.home[n.ID]; !seen && Selects(other, n) {
				p.home[n.ID] = other.Output
			}
		}
	}
	return p.render(w, opts.Workers, r)
}

// page is the state of one view's render.
type page struct {
	d     *project.Descriptor
	g     *Graph
	view  project.View
	nodes []*graph.Node
	home  map[string]string // node ID -> output path of the view that shows it first

	mu      sync.Mutex
	removed map[string]int // shortcodes left out, by name
}

// linkHref is where a destination written in the file from leads from this page (see
// converter.link): the section of the node it names, with the heading its anchor names; the
// source file of a node on no page; or, for a path that names no node, that file relative to
// the page. "" keeps the destination as written (a ref that names nothing, a path outside
// the project).
func (p *page) linkHref(from, dest string, hugoRef bool) string {
	if id, anchor, ok := source.Destination(p.d, from, dest, hugoRef, p.g.targets); ok {
		n := p.g.Node(id)
		if h := p.href(id); h != "" {
			// A record's anchor names the record (its section); a Markdown anchor a heading.
			if anchor != "" && anchor != id && n != nil && !strings.HasSuffix(n.SourcePath, ".toml") {
				h += "--" + source.Slug(anchor)
			}
			return h
		}
		if n != nil {
			return relPath(path.Dir(p.view.Output), n.SourcePath)
		}
	}
	if hugoRef {
		return ""
	}
	file, frag, _ := strings.Cut(dest, "#")
	file, _, _ = strings.Cut(file, "?")
	if file == "" {
		return ""
	}
	target := path.Join(path.Dir(from), file)
	if strings.HasPrefix(file, "/") {
		target = path.Clean(file)[1:]
	}
	if target == "" || target == ".." || strings.HasPrefix(target, "../") {
		return ""
	}
	href := relPath(path.Dir(p.view.Output), target)
	if frag != "" {
		href += "#" + frag
	}
	return href
}

// href is where a reference to id points from this page: an anchor here, another view's page,
// or nothing (a node on no page, a code node).
func (p *page) href(id string) string {
	out, ok := p.home[id]
	if !ok {
		return ""
	}
	if out == p.view.Output {
		return "#" + anchorOf(id)
	}
	rel := relPath(path.Dir(p.view.Output), out)
	return rel + "#" + anchorOf(id)
}

// relPath is target relative to the directory dir, both slash paths under the project root.
func relPath(dir, target string) string {
	from := strings.Split(dir, "/")
	if dir == "." {
		from = nil
	}
	to := strings.Split(target, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

// anchorOf is the element ID of a node's section: the node ID, which is unique and has no
// spaces (HTML IDs may hold any other character).
func anchorOf(id string) string { return id }

// batch is how many sections one goroutine renders at a time in a parallel render.
const batch = 64

// render streams the page to w. With one goroutine every section is written straight to the
// output buffer. Otherwise goroutines render batches of consecutive sections into buffers that
// are written in order and reused, so the bytes never depend on scheduling and memory stays
// bounded. Heading IDs are unique per page because each carries its node's prefix.
func (p *page) render(w io.Writer, workers int, r Renderer) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	p.head(bw, r)
	var err error
	if batches := (len(p.nodes) + batch - 1) / batch; workers == 1 || batches < 2 {
		c := p.converter()
		for _, n := range p.nodes {
			if err = p.section(bw, n, c); err != nil {
				break
			}
		}
	} else {
		err = p.parallel(bw, min(workers, batches), batches)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "</main>\n<footer>Rendered by %s from sources %s.</footer>\n</body>\n</html>\n", esc(r.ID()), esc(p.g.SourceHash))
	return bw.Flush()
}

func (p *page) converter() *converter {
	c := newConverter(p.d.Render.RawHTML)
	c.link = p.linkHref
	c.removed = func(name string) {
		p.mu.Lock()
		p.removed[name]++
		p.mu.Unlock()
	}
	c.resolve = func(id string) (string, string) {
		title := ""
		if n := p.g.Node(id); n != nil {
			title = n.Title
		}
		return p.href(id), title
	}
	return c
}

// parallel renders the sections in batches on workers goroutines and writes them to bw in
// order; at most 2*workers batches are in memory.
func (p *page) parallel(bw *bufio.Writer, workers, batches int) error {
	type slot struct {
		buf  *bytes.Buffer
		err  error
		done chan struct{}
	}
	free := make(chan *bytes.Buffer, 2*workers)
	for range 2 * workers {
		free <- new(bytes.Buffer)
	}
	order := make(chan *slot, 2*workers)
	jobs := make(chan struct {
		i int
		s *slot
	})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := p.converter()
			for j := range jobs {
				lo, hi := j.i*batch, min((j.i+1)*batch, len(p.nodes))
				for _, n := range p.nodes[lo:hi] {
					if j.s.err = p.section(j.s.buf, n, c); j.s.err != nil {
						break
					}
				}
				close(j.s.done)
			}
		}()
	}
	stop := make(chan struct{})
	go func() {
		defer close(order)
		defer close(jobs)
		for i := range batches {
			var buf *bytes.Buffer
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			buf.Reset()
			s := &slot{buf: buf, done: make(chan struct{})}
			order <- s
			jobs <- struct {
				i int
				s *slot
			}{i, s}
		}
	}()
	var err error
	for s := range order {
		<-s.done
		if err == nil {
			if err = s.err; err == nil {
				_, err = bw.Write(s.buf.Bytes())
			}
			if err != nil {
				close(stop)
			}
		}
		free <- s.buf
	}
	wg.Wait()
	return err
}

// esc escapes text for HTML element content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// head writes everything before the first section: head, header, table of contents.
// writer is what sections are written to: a batch buffer or the page's bufio.Writer.
type writer interface {
	io.Writer
	io.StringWriter
}

func (p *page) head(b writer, r Renderer) {
	title := p.view.Title
	if title == "" {
		title = p.view.ID
	}
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(b, "<meta name=\"generator\" content=\"%s\">\n<title>%s · %s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(r.ID()), esc(title), esc(p.d.Project.Name), pageCSS)
	fmt.Fprintf(b, "<header>\n<h1>%s</h1>\n<p class=\"project\">%s · %d nodes</p>\n</header>\n", esc(title), esc(p.d.Project.Name), len(p.nodes))
	b.WriteString("<nav class=\"toc\">\n<h2>Contents</h2>\n<ol>\n")
	for _, n := range p.nodes {
		b.WriteString("<li><a href=\"#")
		b.WriteString(esc(anchorOf(n.ID)))
		b.WriteString("\">")
		b.WriteString(esc(nodeTitle(n)))
		b.WriteString("</a> <span class=\"kind\">")
		b.WriteString(esc(n.Kind))
		b.WriteString("</span></li>\n")
	}
	b.WriteString("</ol>\n</nav>\n<main>\n")
}

func nodeTitle(n *graph.Node) string {
	if n.Title != "" {
		return n.Title
	}
	return n.ID
}

func (p *page) section(b writer, n *graph.Node, c *converter) error {
	a := esc(anchorOf(n.ID))
	fmt.Fprintf(b, "<section class=\"node\" id=\"%s\">\n<h2><a class=\"self\" href=\"#%s\">%s</a></h2>\n<dl class=\"meta\">\n", a, a, esc(nodeTitle(n)))
	meta := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", k, v)
		}
	}
	meta("ID", "<code>"+esc(n.ID)+"</code>")
	meta("Kind", esc(n.Kind))
	meta("Family", esc(n.Family))
	meta("Status", esc(n.Status))
	meta("Authority", esc(n.Authority))
	if len(n.Tags) > 0 {
		var tags []string
		for _, t := range n.Tags {
			tags = append(tags, "<span class=\"tag\">"+esc(t)+"</span>")
		}
		meta("Tags", strings.Join(tags, " "))
	}
	meta("Source", "<code>"+esc(sourceAt(n))+"</code>")
	b.WriteString("</dl>\n")
	if strings.TrimSpace(n.Body) != "" {
		b.WriteString("<div class=\"body\">\n")
		if err := c.convert(b, n); err != nil {
			return err
		}
		b.WriteString("</div>\n")
	}
	if out := p.g.out[n.ID]; len(out) > 0 {
		b.WriteString("<h3 class=\"rel\">Relations</h3>\n<ul class=\"rel\">\n")
		for _, e := range out {
			fmt.Fprintf(b, "<li><span class=\"relation\">%s</span> %s%s</li>\n", esc(e.Relation), p.ref(e.Target), p.suspectMark(e))
		}
		b.WriteString("</ul>\n")
	}
	if in := p.g.in[n.ID]; len(in) > 0 {
		b.WriteString("<h3 class=\"rel\">Backlinks</h3>\n<ul class=\"rel\">\n")
		for _, e := range in {
			fmt.Fprintf(b, "<li>%s <span class=\"relation\">%s</span>%s</li>\n", p.ref(e.Source), esc(e.Relation), p.suspectMark(e))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n")
	return nil
}

// suspectMark is the visible marker of a relation whose target changed since a person last
// confirmed it, saying what changed; "" for any other relation.
func (p *page) suspectMark(e graph.Edge) string {
	r, ok := p.g.Suspect(e.Source, e.Target)
	if !ok {
		return ""
	}
	what := strings.Join(r.Changes, "; ")
	return fmt.Sprintf(" <span class=\"suspect\" title=\"%s\">suspect: %s</span>",
		esc(fmt.Sprintf("the target changed since this relation was confirmed (stamped %s, now %s); re-confirm with docforge review %s", source.ShortHash(r.StampedHash), source.ShortHash(r.CurrentHash), r.Source)), esc(what))
}

// ref is one related node: a link where it has a page, its source position for a code node.
func (p *page) ref(id string) string {
	n := p.g.Node(id)
	label := id
	if n != nil {
		label = nodeTitle(n)
	}
	var s string
	if h := p.href(id); h != "" {
		s = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(h), esc(label))
	} else {
		s = esc(label)
	}
	s += " <code>" + esc(id) + "</code>"
	if n != nil && graph.IsCode(id) {
		s += " <span class=\"src\">" + esc(sourceAt(n)) + "</span>"
	}
	return s
}

// sourceAt is path:line of a node in its source.
func sourceAt(n *graph.Node) string {
	if n.Line > 0 {
		return n.SourcePath + ":" + strconv.Itoa(n.Line)
	}
	return n.SourcePath
}

// pageCSS makes the page readable on its own: no external resource, no script.
const pageCSS = `
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.5rem;color:#1d1d1f}
header h1{margin-bottom:0}.project{color:#555;margin-top:.25rem}
nav.toc ol{columns:2;padding-left:1.5rem}nav.toc .kind,.relation{color:#666;font-size:.85em}
section.node{border-top:1px solid #ddd;margin-top:2rem;padding-top:.5rem}
section.node h2 a.self{color:inherit;text-decoration:none}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;font-size:.9em}dl.meta dt{color:#666}dl.meta dd{margin:0}
.tag{background:#eef;border-radius:.3rem;padding:0 .35rem}code{font-size:.9em}
pre{background:#f6f6f6;padding:.75rem;overflow:auto}pre.raw-html{border-left:3px solid #c90}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}
h3.rel{font-size:1rem;margin-bottom:.25rem}ul.rel{margin-top:0}.suspect{background:#fff3cd;color:#7a4b00;border:1px solid #e0b252;border-radius:3px;padding:0 .3em;font-size:.85em}
blockquote.callout{margin:1rem 0;padding:.4rem .9rem;border-left:4px solid #4a7bd0;background:#f1f5fc}
.callout-title{font-weight:600;margin:.2rem 0}.callout-tip{border-color:#2f9e58;background:#eff9f2}
.callout-warning,.callout-caution{border-color:#d08a00;background:#fff7e6}.callout-important{border-color:#8250df;background:#f6f0ff}
footer{margin-top:3rem;color:#777;font-size:.85em}
`
