package source

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/index/golang"
	"github.com/docforge/docforge/index/graph"
	"github.com/docforge/docforge/index/problem"
	"github.com/docforge/docforge/index/project"
)

// linkDest is one link destination found in a body, as written.
type linkDest struct {
	dest         string
	line, column int
	// fromRoots marks a Hugo ref/relref shortcode, which Hugo resolves against the page's
	// folder first and the content root second.
	fromRoots bool
}

var (
	// A reference definition: up to three spaces, [label]:, the destination.
	refDefinition = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)`)
	// Hugo's {{< relref "x" >}}, {{% ref "x" %}} and the path= form.
	hugoRef = regexp.MustCompile(`\{\{[<%]\s*(?:rel)?ref\s+(?:path=)?"([^"]+)"\s*[>%]\}\}`)
	// A URL scheme (https:, mailto:) or a protocol-relative //host link: external.
	externalDest = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)`)
)

// appendLinks finds inline links [text](dest), reference definitions and Hugo ref shortcodes
// on one line outside inline code spans. Images (![alt](src)) are not relations.
func appendLinks(out []linkDest, line string, lineNo int) []linkDest {
	col := func(i int) int { return utf8.RuneCountInString(line[:i]) + 1 }
	if m := refDefinition.FindStringSubmatchIndex(line); m != nil {
		out = append(out, linkDest{dest: strings.Trim(line[m[2]:m[3]], "<>"), line: lineNo, column: col(m[2])})
		return out
	}
	for _, m := range hugoRef.FindAllStringSubmatchIndex(line, -1) {
		out = append(out, linkDest{dest: line[m[2]:m[3]], line: lineNo, column: col(m[2]), fromRoots: true})
	}
	inCode, open := false, -1
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '`':
			inCode = !inCode
		case inCode:
		case c == '\\':
			i++ // an escaped character is literal
		case c == '[':
			open = i
		case c == ']' && open >= 0 && i+1 < len(line) && line[i+1] == '(':
			image := open > 0 && line[open-1] == '!'
			start, end := i+2, i+2
			for start < len(line) && line[start] == ' ' {
				start++
			}
			var dest string
			if start < len(line) && line[start] == '<' {
				if j := strings.IndexByte(line[start:], '>'); j > 0 {
					dest, end = line[start+1:start+j], start+j+1
				}
			} else {
				depth := 0
				for end = start; end < len(line); end++ {
					if b := line[end]; b == ' ' || b == '\t' || (b == ')' && depth == 0) {
						break
					} else if b == '(' {
						depth++
					} else if b == ')' {
						depth--
					}
				}
				dest = line[start:end]
			}
			// A shortcode as the destination ([x]({{< relref "y" >}})) is read on its own.
			if !image && dest != "" && !strings.HasPrefix(dest, "{{") {
				out = append(out, linkDest{dest: dest, line: lineNo, column: col(start)})
			}
			open = -1
			i = end - 1
		}
	}
	return out
}

// linkExtensions are the file types a link can name as a node; links to anything else
// (images, rendered .html) are not relations. A .go file names its file node when the
// project's links reach code.
var linkExtensions = map[string]bool{".md": true, ".markdown": true, ".toml": true}

// inCodeRoot reports whether the project-relative path p is under a code root.
func inCodeRoot(d *project.Descriptor, p string) bool {
	for _, r := range d.Sources.CodeRoots {
		if r == "." || p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// linkFrom turns a destination written in the file at rel into the candidate files it may
// name. ok is false for links that are not relations: external URLs, anchors in the same
// page, other file types, and paths outside every content root.
func linkFrom(d *project.Descriptor, rel string, ld linkDest) (paths []string, anchor string, ok bool) {
	dest := strings.TrimSpace(ld.dest)
	if dest == "" || strings.HasPrefix(dest, "#") || externalDest.MatchString(dest) {
		return nil, "", false
	}
	dest, anchor, _ = strings.Cut(dest, "#")
	dest, _, _ = strings.Cut(dest, "?")
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u
	}
	ext := strings.ToLower(path.Ext(path.Base(dest)))
	code := d.Sources.Links.CodeOn()
	if ext != "" && !linkExtensions[ext] && !(code && ext == ".go") {
		return nil, "", false
	}
	var bases []string
	rooted := strings.HasPrefix(dest, "/")
	if !rooted {
		bases = append(bases, path.Join(path.Dir(rel), dest))
	}
	if rooted || ld.fromRoots {
		// A root-relative link names the project root (GitHub) or a content root (Hugo,
		// Docusaurus routes).
		if rooted {
			bases = append(bases, path.Clean(strings.TrimPrefix(dest, "/")))
		}
		for _, r := range d.Sources.ContentRoots {
			bases = append(bases, path.Join(r, strings.TrimPrefix(dest, "/")))
		}
	}
	for _, b := range bases {
		if b == ".." || strings.HasPrefix(b, "../") || b == "." {
			continue
		}
		var forms []string
		if ext != "" {
			forms = []string{b}
		} else {
			// A folder or an extension-less page: Docusaurus and Hugo write links that way.
			forms = []string{b + ".md", b + "/_index.md", b + "/index.md", b + "/README.md"}
		}
		for _, f := range forms {
			if _, in := d.ContentRootOf(f); in && !slices.Contains(paths, f) && ext != ".go" {
				paths = append(paths, f)
			}
		}
		// A Go file names its file node, a folder of Go files its package node.
		if code && (ext == ".go" || ext == "") && inCodeRoot(d, b) && !slices.Contains(paths, b) {
			paths = append(paths, b)
		}
	}
	return paths, anchor, len(paths) > 0
}

// nodeLinks converts a node's link destinations and wiki references into links.
func nodeLinks(d *project.Descriptor, rel, source string, dests []linkDest, wiki []wikiRef) []graph.Link {
	var out []graph.Link
	for _, ld := range dests {
		paths, anchor, ok := linkFrom(d, rel, ld)
		if !ok {
			continue
		}
		out = append(out, graph.Link{Source: source, Paths: paths, Anchor: anchor, Dest: ld.dest,
			At: problem.Location{Path: rel, Line: ld.line, Column: ld.column}})
	}
	for _, w := range wiki {
		id, anchor, _ := strings.Cut(w.target, "#")
		if ValidTargetID(id) {
			out = append(out, graph.Link{Source: source, ID: id, Anchor: anchor, Dest: w.target,
				At: problem.Location{Path: rel, Line: w.line, Column: w.column}})
		}
	}
	return out
}

// mentionName is a backticked Go name: Name, pkg.Name, Type.Method or pkg.Type.Method.
var mentionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$`)

// appendMentions finds inline code spans on one line that may name a Go declaration: a
// dotted name, or a single name with an upper-case letter or an underscore (a plain
// lower-case word in backticks is prose as often as code). A pointer or address sign before
// it and a call after it (`*Server`, `NewServer(opts)`) are dropped.
func appendMentions(out []linkDest, line string, lineNo int) []linkDest {
	for i := 0; i < len(line); i++ {
		if line[i] != '`' {
			continue
		}
		j := strings.IndexByte(line[i+1:], '`')
		if j < 0 {
			return out
		}
		span := strings.TrimSpace(line[i+1 : i+1+j])
		start := i + 1
		i += j + 1
		span = strings.TrimLeft(span, "*&")
		if k := strings.IndexByte(span, '('); k > 0 && strings.HasSuffix(span, ")") {
			span = span[:k]
		}
		if !mentionName.MatchString(span) {
			continue
		}
		if !strings.Contains(span, ".") && strings.ToLower(span) == span && !strings.Contains(span, "_") {
			continue
		}
		out = append(out, linkDest{dest: span, line: lineNo, column: utf8.RuneCountInString(line[:start]) + 1})
	}
	return out
}

// mentionLinks turns a node's mentions into links, once each.
func mentionLinks(rel, source string, mentions []linkDest) []graph.Link {
	var out []graph.Link
	seen := map[string]bool{}
	for _, m := range mentions {
		if !seen[m.dest] {
			seen[m.dest] = true
			out = append(out, graph.Link{Source: source, Mention: m.dest, Dest: m.dest, At: problem.Location{Path: rel, Line: m.line, Column: m.column}})
		}
	}
	return out
}

// DeclarationKeys are the names a backticked mention may use for the code node id: Name and
// pkg.Name for a package-level declaration, Type.Method and pkg.Type.Method for a method.
// Packages, files and init functions have none.
func DeclarationKeys(id string) []string {
	pkg, name, ok := golang.DeclName(id)
	if !ok || name == "init" || strings.HasPrefix(name, "init.") {
		return nil
	}
	// Name and pkg.Name; a method's Type.Method and pkg.Type.Method.
	return []string{name, pkg + "." + name}
}

// Declarations indexes code node IDs by the keys a mention may use.
type Declarations map[string][]string

// Add indexes one node ID.
func (ds Declarations) Add(id string) {
	for _, k := range DeclarationKeys(id) {
		ds[k] = append(ds[k], id)
	}
}

// FileNode is a node as a link target sees it: its ID and anchor in its file.
type FileNode struct {
	ID, Anchor string
}

// LinkTargets answers the two questions link resolution asks of a graph: which nodes a file
// holds, and whether a node ID exists.
type LinkTargets interface {
	NodesIn(path string) []FileNode
	Has(id string) bool
	// Declared returns the code nodes a mention's name may mean.
	Declared(name string) []string
}

// ResolveLinks turns links into edges of the descriptor's link relation. A link names the
// first of its candidate files that holds nodes: the file's only node, or in a file of
// several records the one whose ID or anchor the link's anchor names. A link to nothing is a
// dangling_link problem, a warning unless [sources.links] makes it an error. A link from a
// node to itself is dropped.
func ResolveLinks(d *project.Descriptor, links []graph.Link, t LinkTargets) ([]graph.EdgeAt, []problem.Problem) {
	var edges []graph.EdgeAt
	var probs []problem.Problem
	rel := d.Sources.Links.Relation
	seen := map[graph.Edge]bool{}
	dangling := func(l graph.Link, format string, args ...any) {
		p := problem.New(problem.DanglingLink, l.At, format, args...)
		if !d.Sources.Links.DanglingIsError() {
			p = problem.Warn(problem.DanglingLink, l.At, format, args...)
		}
		p.NodeID = l.Source
		probs = append(probs, p)
	}
	codeRel := d.Sources.Links.CodeRelation
	for _, l := range links {
		if l.Mention != "" {
			ids := t.Declared(l.Mention)
			switch {
			case len(ids) == 1 && ids[0] != l.Source:
				e := graph.Edge{Source: l.Source, Relation: codeRel, Target: ids[0]}
				if !seen[e] {
					seen[e] = true
					edges = append(edges, graph.EdgeAt{Edge: e, At: l.At})
				}
			case len(ids) > 1:
				shown := ids[:min(len(ids), 4)]
				p := problem.Warn(problem.AmbiguousMention, l.At, "node %s: `%s` names %d declarations (%s%s); it relates to none",
					l.Source, l.Mention, len(ids), strings.Join(shown, ", "), map[bool]string{true: ", ...", false: ""}[len(ids) > 4])
				p.NodeID = l.Source
				probs = append(probs, p)
			}
			continue
		}
		target := ""
		if l.ID != "" {
			if !t.Has(l.ID) {
				dangling(l, "node %s: wiki link [[%s]] names no node", l.Source, l.Dest)
				continue
			}
			target = l.ID
		}
		several := ""
		for _, p := range l.Paths {
			nodes := t.NodesIn(p)
			if strings.HasSuffix(p, ".go") {
				// A Go file holds its file node first, then its declarations: name the file.
				nodes = slices.DeleteFunc(slices.Clone(nodes), func(n FileNode) bool {
					return !strings.HasPrefix(n.ID, graph.CodePrefix) || !strings.HasSuffix(n.ID, "/"+path.Base(p))
				})
			}
			if len(nodes) == 1 {
				target = nodes[0].ID
			}
			for _, n := range nodes {
				if len(nodes) > 1 && l.Anchor != "" && (n.ID == l.Anchor || n.Anchor == l.Anchor) {
					target = n.ID
				}
			}
			if target != "" {
				break
			}
			if len(nodes) > 1 && several == "" {
				several = p
			}
		}
		switch {
		case target == "" && several != "":
			dangling(l, "node %s: link %q names %s, which holds several nodes; add #ID to say which", l.Source, l.Dest, several)
		case target == "":
			dangling(l, "node %s: link %q names no node (looked for %s)", l.Source, l.Dest, strings.Join(l.Paths, ", "))
		case target != l.Source:
			r := rel
			if strings.HasPrefix(target, graph.CodePrefix) {
				r = codeRel
			}
			e := graph.Edge{Source: l.Source, Relation: r, Target: target}
			if !seen[e] { // the first link to a node gives the edge its anchor
				seen[e] = true
				edges = append(edges, graph.EdgeAt{Edge: e, At: l.At, Anchor: l.Anchor})
			}
		}
	}
	return edges, probs
}
