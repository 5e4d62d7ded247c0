package source

import (
	"github.com/docforge/docforge/base/lexicon"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/tomlpos"
	"github.com/docforge/docforge/source/project"
)

// nodeFields is the shape of one node, shared by TOML and YAML front matter and [[node]]
// records.
type nodeFields struct {
	ID           string              `toml:"id" yaml:"id"`
	Kind         string              `toml:"kind" yaml:"kind"`
	Family       string              `toml:"family" yaml:"family"`
	Title        string              `toml:"title" yaml:"title"`
	Status       string              `toml:"status" yaml:"status"`
	Authority    string              `toml:"authority" yaml:"authority"`
	Tags         []string            `toml:"tags" yaml:"tags"`
	Language     string              `toml:"language" yaml:"language"`
	Capabilities []string            `toml:"capabilities" yaml:"capabilities"`
	Relations    map[string][]string `toml:"relations" yaml:"relations"`
	// Stamps are review stamps, by relation target (see graph.Stamp).
	Stamps map[string]string `toml:"stamps" yaml:"stamps"`
	// Slug is a Docusaurus page's URL, read with [sources.defaults] local_ids (see slugID).
	Slug string `toml:"slug" yaml:"slug"`
	Body string `toml:"body" yaml:"-"` // records only; front matter rejects it
}

// MaxIDLength bounds node IDs.
const MaxIDLength = 256

var (
	docIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]*$`)
	tagPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:-]*$`)
)

// ValidDocID reports whether id is acceptable for a documentation node.
func ValidDocID(id string) bool {
	if len(id) > MaxIDLength || !docIDPattern.MatchString(id) || strings.HasSuffix(id, "/") {
		return false
	}
	// No empty, "." or ".." segment: an ID reads like a path in URLs and file names, and
	// a/../b would name b from somewhere else.
	for seg := range strings.SplitSeq(id, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// ValidTargetID reports whether id may name a relation target: a documentation ID or a code
// node ID with one of the built-in adapters' prefixes (graph.CodePrefixes).
func ValidTargetID(id string) bool {
	if graph.IsCode(id) {
		_, rest, _ := strings.Cut(id, ":")
		return rest != "" && len(id) <= 1024 && !strings.ContainsAny(rest, " \t\n\"")
	}
	return ValidDocID(id)
}

// nodeBuilder validates the fields of one node. keyPrefix is the tomlpos path of the node's
// table ("" for front matter, "node.3" for the fourth record).
type nodeBuilder struct {
	d         *project.Descriptor
	rel       string
	pos       positions
	keyPrefix string
	start     tomlpos.Pos // where the node starts, for problems about absent keys
	problems  []problem.Problem
	// lenient is [sources.defaults] foreign_fields = "ignore": a tag another tool accepts but
	// DocForge cannot use is dropped with a warning rather than failing the file.
	lenient bool
}

func (b *nodeBuilder) key(k string) string {
	if b.keyPrefix == "" {
		return k
	}
	return b.keyPrefix + "." + k
}

// at locates a key; a key that is absent is reported at the node's start (the opening +++ of
// front matter, or the record's [[node]] line).
func (b *nodeBuilder) at(key string) problem.Location {
	p, ok := b.pos.Key(b.key(key))
	if !ok || p.Line == 0 {
		p = b.start
	}
	return problem.Location{Path: b.rel, Line: p.Line, Column: p.Column}
}

func (b *nodeBuilder) atValue(key string, i int) problem.Location {
	p, ok := b.pos.Value(b.key(key), i)
	if !ok || p.Line == 0 {
		p = b.start
	}
	return problem.Location{Path: b.rel, Line: p.Line, Column: p.Column}
}

func (b *nodeBuilder) add(p problem.Problem) { b.problems = append(b.problems, p) }

// build validates f and returns the node and its declared edges. ok is false when the node is
// too broken to take part in cross-file checks (no usable ID).
func (b *nodeBuilder) build(f *nodeFields) (n graph.Node, edges []graph.EdgeAt, ok bool) {
	n = graph.Node{Record: graph.Record{
		ID: f.ID, Kind: f.Kind, Family: f.Family, Title: strings.TrimSpace(f.Title), Status: f.Status,
		Authority: f.Authority, Tags: f.Tags, Language: f.Language, Capabilities: f.Capabilities,
		SourcePath: b.rel,
	}}
	if f.Slug != "" && (!b.d.Sources.Defaults.LocalIDs || b.keyPrefix != "") && !b.lenient {
		// A slug names a Docusaurus page's URL; elsewhere it is no node field.
		at := b.at("slug")
		b.add(unknownField(b.rel, tomlpos.Pos{Line: at.Line, Column: at.Column}, "slug"))
	}
	ok = b.checkID(f.ID)
	label := f.ID
	if label == "" {
		label = "(no id)"
	}
	b.checkClass(f, label)
	b.checkOneLineFields(&n, label)
	if f.Authority != "" && !b.d.HasAuthority(f.Authority) {
		b.add(withNode(problem.New(problem.UnknownAuthority, b.atValue("authority", 0), "node %s: authority %q is not declared%s (declared: %s)", label, f.Authority, problem.Suggest(f.Authority, b.d.Authority.Allowed), strings.Join(b.d.Authority.Allowed, ", ")), f.ID))
	}
	f.Tags = b.checkTags(f, label)
	n.Tags = sortedUnique(f.Tags)
	n.Capabilities = sortedUnique(f.Capabilities)
	edges = b.relations(f, label)
	n.Stamps = b.stamps(label, f.Stamps)
	return n, edges, ok
}

// checkID reports whether a node's ID is usable, reporting why when it is not: missing,
// under a code prefix, or not a valid document ID.
func (b *nodeBuilder) checkID(id string) bool {
	switch {
	case id == "":
		b.add(problem.New(problem.MissingField, b.at("id"), "node has no id"))
	case graph.IsCode(id):
		b.add(problem.New(problem.InvalidID, b.atValue("id", 0), "id %q uses the prefix %s, which is reserved for code nodes", id, id[:strings.IndexByte(id, ':')+1]))
	case !ValidDocID(id):
		b.add(problem.New(problem.InvalidID, b.atValue("id", 0), "id %q is not a valid node ID", id))
	default:
		return true
	}
	return false
}

// checkClass reports a missing family or kind, and a family or kind the descriptor does not
// declare.
func (b *nodeBuilder) checkClass(f *nodeFields, label string) {
	switch {
	case f.Family == "":
		b.add(problem.New(problem.MissingField, b.at("family"), "node %s has no family", label))
		return
	case f.Kind == "":
		b.add(problem.New(problem.MissingField, b.at("kind"), "node %s has no kind", label))
	}
	famOK, kindOK := b.d.FamilyAllows(f.Family, f.Kind)
	switch {
	case !famOK:
		b.add(withNode(problem.New(problem.UnknownFamily, b.atValue("family", 0), "node %s: family %q is not declared%s (declared: %s)", label, f.Family, problem.Suggest(f.Family, b.d.FamilyNames()), strings.Join(b.d.FamilyNames(), ", ")), f.ID))
	case f.Kind != "" && !kindOK:
		b.add(withNode(problem.New(problem.UnknownKind, b.atValue("kind", 0), "node %s: kind %q is not allowed in family %q%s (allowed: %s)", label, f.Kind, f.Family, problem.Suggest(f.Kind, b.d.Families[f.Family].Kinds), strings.Join(b.d.Families[f.Family].Kinds, ", ")), f.ID))
	}
}

// unseenInLine reports a character a one-line field must not hold: one lexicon.Unseen names
// (a terminal acts on a control character: an ESC sequence clears a line and draws a fake
// status, a NUL cuts a C string), but a format character other than a bidi control (a joiner
// in an emoji sequence shows as the sequence).
func unseenInLine(r rune) bool {
	return lexicon.Unseen(r) && (!unicode.Is(unicode.Cf, r) || lexicon.BidiControl(r))
}

// checkOneLineFields refuses the characters unseenInLine names in one-line fields (leniently,
// drops them with a warning).
func (b *nodeBuilder) checkOneLineFields(n *graph.Node, label string) {
	for _, fl := range []struct {
		key string
		val *string
	}{{"title", &n.Title}, {"status", &n.Status}, {"language", &n.Language}} {
		i := strings.IndexFunc(*fl.val, unseenInLine)
		if i < 0 {
			continue
		}
		r, _ := utf8.DecodeRuneInString((*fl.val)[i:])
		if b.lenient {
			*fl.val = strings.Join(strings.FieldsFunc(*fl.val, unseenInLine), " ")
			b.add(withNode(problem.Warn(problem.InvalidField, b.atValue(fl.key, 0), "node %s: %s holds the invisible character U+%04X, which is left out", label, fl.key, r), n.ID))
			continue
		}
		b.add(withNode(problem.New(problem.InvalidField, b.atValue(fl.key, 0), "node %s: %s holds the invisible character U+%04X at byte %d; a %s is one line of plain text", label, fl.key, r, i, fl.key), n.ID))
	}
}

// checkTags returns the node's usable tags (leniently, a tag of several words joined by
// dashes, as Hugo's "Getting Started") and reports the others and bad capabilities.
func (b *nodeBuilder) checkTags(f *nodeFields, label string) []string {
	var tags []string
	for i, t := range f.Tags {
		if b.lenient {
			t = strings.Join(strings.Fields(t), "-")
		}
		switch {
		case tagPattern.MatchString(t):
			tags = append(tags, t)
		case b.lenient:
			b.add(withNode(problem.Warn(problem.InvalidField, b.atValue("tags", i), "node %s: tag %q is not one word of letters, digits and . _ / : -, so it is left out", label, f.Tags[i]), f.ID))
		default:
			b.add(withNode(problem.New(problem.InvalidField, b.atValue("tags", i), "node %s: tag %q must be one word of letters, digits and . _ / : -", label, t), f.ID))
		}
	}
	for i, c := range f.Capabilities {
		if !tagPattern.MatchString(c) {
			b.add(withNode(problem.New(problem.InvalidField, b.atValue("capabilities", i), "node %s: capability %q must be one word of letters, digits and . _ / : -", label, c), f.ID))
		}
	}
	return tags
}

// relations returns the node's declared edges, in relation then list order, reporting
// relations the descriptor does not declare and targets that are no valid node ID.
func (b *nodeBuilder) relations(f *nodeFields, label string) []graph.EdgeAt {
	var edges []graph.EdgeAt
	for _, rel := range slices.Sorted(maps.Keys(f.Relations)) {
		key := "relations." + rel
		declared := slices.Index(b.d.Relations.Allowed, rel)
		if declared < 0 {
			b.add(withNode(problem.New(problem.UndeclaredRelation, b.at(key), "node %s: relation %q is not declared in [relations].allowed%s", label, rel, problem.Suggest(rel, b.d.Relations.Allowed)), f.ID))
			continue
		}
		rel = b.d.Relations.Allowed[declared] // the descriptor's string: the edges of a relation share it
		for i, target := range f.Relations[rel] {
			if !ValidTargetID(target) {
				b.add(withNode(problem.New(problem.InvalidID, b.atValue(key, i), "node %s: relation %s target %q is not a valid node ID", label, rel, target), f.ID))
				continue
			}
			edges = append(edges, graph.EdgeAt{Edge: graph.Edge{Source: f.ID, Relation: rel, Target: target}, At: b.atValue(key, i)})
		}
	}
	return edges
}

// stamps validates the review stamps of a node. Whether each names a relation of the node
// is known only once its body's links are resolved (Checker).
func (b *nodeBuilder) stamps(label string, m map[string]string) []graph.Stamp {
	targets := make([]string, 0, len(m))
	for t := range m {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	var out []graph.Stamp
	for _, t := range targets {
		key := "stamps." + t
		if !ValidTargetID(t) {
			b.add(withNode(problem.New(problem.InvalidID, b.at(key), "node %s: stamp target %q is not a valid node ID", label, t), label))
			continue
		}
		st, err := graph.ParseStamp(t, m[t])
		if err != nil {
			b.add(withNode(problem.New(problem.InvalidField, b.atValue(key, 0), "node %s: %v", label, err), label))
			continue
		}
		st.At = b.atValue(key, 0)
		out = append(out, st)
	}
	return out
}

// pageTitle is a page's title as its site shows it. An MkDocs site titles a page from its nav
// entry, else its front matter (title), else its first H1, else its file name
// (fallbackTitle); elsewhere the front matter's title comes first, then the first heading.
func pageTitle(d *project.Descriptor, rel, title string, headings []graph.Heading, fallbackTitle string) string {
	mkdocs := d.Sources.Links.Site == "mkdocs"
	if mkdocs && d.MkDocs != nil {
		if nav, ok := d.MkDocs.Titles[rel]; ok {
			return nav
		}
	}
	for _, h := range headings {
		if title != "" {
			break
		}
		if !mkdocs || h.Level == 1 {
			title = h.Text
		}
	}
	if title == "" {
		title = fallbackTitle
	}
	return title
}

// finish derives the body-dependent fields and the content hash. The title is pageTitle's. With [sources.links] on, the body's links and
// wiki references become links, resolved once every file is known; otherwise wiki
// references are declared relates_to edges.
func finish(n *graph.Node, edges []graph.EdgeAt, body string, bodyLine int, d *project.Descriptor, rel, fallbackTitle string) ([]graph.EdgeAt, []graph.Link) {
	n.Body = body
	linksOn := d.Sources.Links.On()
	scan := scanBody(body, bodyLine, linksOn)
	n.Headings = scan.headings
	n.Title = pageTitle(d, rel, n.Title, scan.headings, fallbackTitle)
	var links []graph.Link
	switch {
	case linksOn:
		links = nodeLinks(d, rel, n.ID, scan.links, scan.refs)
		if d.Sources.Links.CodeOn() {
			links = append(links, mentionLinks(rel, n.ID, scan.mentions)...)
		}
	case d.HasRelation("relates_to"):
		for _, ref := range scan.refs {
			if ValidTargetID(ref.target) {
				edges = append(edges, graph.EdgeAt{
					Edge: graph.Edge{Source: n.ID, Relation: "relates_to", Target: ref.target},
					At:   problem.Location{Path: rel, Line: ref.line, Column: ref.column},
				})
			}
		}
	}
	edges = dedupeEdges(edges)
	plain := make([]graph.Edge, len(edges))
	for i, e := range edges {
		plain[i] = e.Edge
	}
	// Links stay out of the hash: their text is in the body, and what they resolve to
	// depends on other files.
	n.ContentHash = graph.ContentHash(n, plain)
	return edges, links
}

// dedupeEdges drops repeated triples, keeping the first position; the order is by triple.
func dedupeEdges(edges []graph.EdgeAt) []graph.EdgeAt {
	slices.SortStableFunc(edges, func(a, b graph.EdgeAt) int { return a.Edge.Compare(b.Edge) })
	return slices.CompactFunc(edges, func(a, b graph.EdgeAt) bool { return a.Edge == b.Edge })
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func withNode(p problem.Problem, id string) problem.Problem {
	p.NodeID = id
	return p
}

// unknownField reports a key the decoder did not use.
func unknownField(rel string, pos tomlpos.Pos, key string) problem.Problem {
	return problem.New(problem.UnknownField, problem.Location{Path: rel, Line: pos.Line, Column: pos.Column},
		"unknown field %q (node fields: id, kind, family, title, status, authority, tags, language, capabilities, [relations], [stamps])", key)
}
