package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Graph is a project's primary graph read from its sources: what a page shows.
type Graph struct {
	Nodes []*graph.Node // by ID
	byID  map[string]*graph.Node
	out   map[string][]graph.Edge // by source: relation, then target
	in    map[string][]graph.Edge // by target: source, then relation
	// suspect holds, by (source, target), the review of each relation whose target
	// changed since it was stamped.
	suspect map[[2]string]source.Review

	// SourceIdentity is the cheap stat identity of the sources read; SourceHash covers their
	// exact bytes. Receipts bind both.
	SourceIdentity string
	SourceHash     string

	// targets answers link destinations in bodies: the nodes of each file, by path and route.
	targets *fileTargets
}

// fileTargets is the graph as link resolution sees it (source.LinkTargets), built once and
// then only read, by every rendering goroutine.
type fileTargets struct {
	files  map[string][]source.FileNode
	ids    map[string]bool
	routes source.RouteIndex
}

func newFileTargets(nodes []*graph.Node) *fileTargets {
	t := &fileTargets{files: map[string][]source.FileNode{}, ids: map[string]bool{}}
	for _, n := range nodes {
		t.files[n.SourcePath] = append(t.files[n.SourcePath], source.FileNode{ID: n.ID, Anchor: n.Anchor})
		t.ids[n.ID] = true
	}
	paths := make([]string, 0, len(t.files))
	for p := range t.files {
		paths = append(paths, p)
	}
	t.routes = source.NewRouteIndex(paths)
	return t
}

func (t *fileTargets) NodesIn(path string) []source.FileNode { return t.files[path] }
func (t *fileTargets) Has(id string) bool                    { return t.ids[id] }
func (t *fileTargets) Declared(string) []string              { return nil }
func (t *fileTargets) Unexported(string) bool                { return false }
func (t *fileTargets) Routed(name string) []string           { return t.routes[name] }

// Suspect returns the review of the relations from one node to another when they are suspect.
func (g *Graph) Suspect(from, to string) (source.Review, bool) {
	r, ok := g.suspect[[2]string{from, to}]
	return r, ok
}

// Node returns the node with id, or nil.
func (g *Graph) Node(id string) *graph.Node { return g.byID[id] }

// Load reads every source of d under the adapter policy into memory. A project with
// validation errors is not rendered: project_invalid, with its problems.
func Load(ctx context.Context, d *project.Descriptor, policy string) (*Graph, error) {
	return LoadWith(ctx, d, policy, nil)
}

// LoadWith is Load with an overlay of proposed files (nil for none): the graph a changeset
// would produce, which a preview renders.
func LoadWith(ctx context.Context, d *project.Descriptor, policy string, overlay *source.Overlay) (*Graph, error) {
	inv, err := source.Scan(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	probs := problem.List{Limit: 200}
	probs.AddAll(inv.Problems)
	check := source.NewChecker(d)
	g := &Graph{byID: map[string]*graph.Node{}, out: map[string][]graph.Edge{}, in: map[string][]graph.Edge{}, SourceIdentity: inv.Identity()}
	var refs []graph.Edge
	var edges []graph.Edge
	h := sha256.New()
	files := overlay.Apply(inv.Files)
	loader := source.NewLoader(d, policy).WithFiles(files)
	loader.UseOverlay(overlay)
	err = loader.Each(ctx, files, func(p source.Parsed) error {
		probs.AddAll(p.Fragment.Problems)
		check.Add(p.Fragment)
		fmt.Fprintf(h, "%s\x00%s\n", p.File.Path, p.FileHash)
		for i := range p.Fragment.Nodes {
			n := &p.Fragment.Nodes[i]
			g.Nodes = append(g.Nodes, n)
		}
		refs = append(refs, p.Fragment.Refs...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	probs.AddAll(check.Problems())
	if errs := problem.Errors(probs.Problems()); len(errs) > 0 {
		pe := problem.Errorf(problem.ProjectInvalid, "the project has %d validation errors; nothing was rendered (run 'docforge validate')", len(errs))
		pe.Problems = probs.Problems()
		return nil, pe
	}
	g.SourceHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	for _, n := range g.Nodes {
		g.byID[n.ID] = n
	}
	for _, e := range check.Edges() {
		edges = append(edges, e.Edge)
	}
	g.suspect = map[[2]string]source.Review{}
	for _, r := range check.Reviews() {
		if r.State == graph.Suspect {
			g.suspect[[2]string{r.Source, r.Target}] = r
		}
	}
	// Adapter-derived candidates are relations exactly when both ends are nodes and the
	// project allows the relation, as in the index.
	edges = append(edges, graph.ResolveRefs(refs, func(id string) bool { return g.byID[id] != nil }, d.HasRelation)...)
	slices.SortFunc(edges, graph.Edge.Compare)
	edges = slices.Compact(edges)
	for _, e := range edges {
		g.out[e.Source] = append(g.out[e.Source], e)
		g.in[e.Target] = append(g.in[e.Target], e)
	}
	// The nodes of a file in the order the file holds them, before they are sorted by ID.
	g.targets = newFileTargets(g.Nodes)
	slices.SortFunc(g.Nodes, func(a, b *graph.Node) int { return strings.Compare(a.ID, b.ID) })
	return g, nil
}
