package index

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/base/graph"
)

// ClusterMap is the shape of a whole project at a glance: its nodes grouped into clusters (a
// family of documents; a folder of code), and the relations between clusters counted.
type ClusterMap struct {
	Clusters []Cluster     `json:"clusters"`
	Links    []ClusterLink `json:"links"`
	// Truncated says that smaller clusters were merged into "other", or weaker links left out.
	Truncated bool `json:"truncated,omitempty"`
}

// Cluster is one group of nodes.
type Cluster struct {
	ID    string `json:"id"`    // "family:NAME" or "code:FOLDER"
	Label string `json:"label"` // the family's name, or the folder ("top level" for the root's files)
	Kind  string `json:"kind"`  // "family" or "code"
	Nodes int    `json:"nodes"`
	// Internal counts the relations between two nodes of the cluster.
	Internal int `json:"internal"`
	// Top are the cluster's most connected nodes, to drill in from.
	Top []NodeSummary `json:"top"`
}

// ClusterLink counts the relations from the nodes of one cluster to those of another, and
// names the relation most of them are.
type ClusterLink struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Count    int    `json:"count"`
	Relation string `json:"relation"`
}

// Bounds of a cluster map: what a first screen can show and a browser lay out at once.
const (
	MaxClusters     = 48
	maxClusterLinks = 160
	clusterTop      = 12
)

// Clusters groups every node of the snapshot: a document by its family, code by its folder,
// folders cut to the depth at which at most MaxClusters groups remain (deeper folders join
// their ancestor), the smallest merged into "other" past that. It reads every node and
// relation once.
func (s *Snapshot) Clusters(ctx context.Context) (*ClusterMap, error) {
	g, err := s.readClusterGraph(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster map: %w", err)
	}
	nodes := g.nodes
	depth := g.folderDepth()
	clusterOf := func(n *clusterNode) string {
		if n.code {
			return "code:" + cutFolder(n.dir, depth)
		}
		return "family:" + n.family
	}
	size := map[string]int{}
	for _, n := range nodes {
		size[clusterOf(n)]++
	}
	ids := slices.SortedFunc(maps.Keys(size), func(a, b string) int { return cmp.Or(size[b]-size[a], strings.Compare(a, b)) })
	out := &ClusterMap{Clusters: []Cluster{}, Links: []ClusterLink{}}
	keep := map[string]bool{}
	for i, id := range ids {
		if i < MaxClusters-1 || len(ids) <= MaxClusters {
			keep[id] = true
		}
	}
	final := func(n *clusterNode) string {
		if id := clusterOf(n); keep[id] {
			return id
		}
		out.Truncated = true
		return "other"
	}
	degree := map[int64]int{}
	type pair struct{ from, to string }
	count := map[pair]int{}
	rels := map[pair]map[int64]int{}
	internal := map[string]int{}
	for _, e := range g.edges {
		a, b := nodes[e.src], nodes[e.dst]
		if a == nil || b == nil {
			continue
		}
		degree[e.src]++
		degree[e.dst]++
		ca, cb := final(a), final(b)
		if ca == cb {
			internal[ca]++
			continue
		}
		p := pair{ca, cb}
		count[p]++
		if rels[p] == nil {
			rels[p] = map[int64]int{}
		}
		rels[p][e.rel]++
	}
	members := map[string][]int64{}
	for key, n := range nodes {
		c := final(n)
		members[c] = append(members[c], key)
	}
	for _, id := range append(slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !keep[id] }), "other") {
		if keys := members[id]; len(keys) > 0 {
			out.Clusters = append(out.Clusters, g.cluster(id, keys, degree, internal[id]))
		}
	}
	pairs := slices.SortedFunc(maps.Keys(count), func(a, b pair) int {
		return cmp.Or(count[b]-count[a], strings.Compare(a.from, b.from), strings.Compare(a.to, b.to))
	})
	if len(pairs) > maxClusterLinks {
		pairs, out.Truncated = pairs[:maxClusterLinks], true
	}
	for _, p := range pairs {
		out.Links = append(out.Links, ClusterLink{From: p.from, To: p.to, Count: count[p], Relation: g.commonest(rels[p])})
	}
	return out, nil
}

// clusterNode is what the cluster map reads of a node: code nodes by their folder, documents
// by their family.
type clusterNode struct {
	id, family, kind, title, dir string
	code                         bool
}

// clusterGraph is the whole graph as the cluster map reads it.
type clusterGraph struct {
	nodes   map[int64]*clusterNode
	edges   []struct{ src, dst, rel int64 }
	relName map[int64]string
}

// readClusterGraph reads every node, edge and relation name of the generation.
func (s *Snapshot) readClusterGraph(ctx context.Context) (*clusterGraph, error) {
	g := &clusterGraph{nodes: map[int64]*clusterNode{}, relName: map[int64]string{}}
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		if err := sqlitex.Execute(conn, `SELECT key, id, family, kind, title, source_path FROM nodes`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error {
				n := &clusterNode{id: st.ColumnText(1), family: st.ColumnText(2), kind: st.ColumnText(3), title: st.ColumnText(4)}
				n.code = graph.IsCode(n.id)
				if n.code {
					n.dir = codeFolder(st.ColumnText(5), n.kind)
				}
				g.nodes[st.ColumnInt64(0)] = n
				return nil
			}}); err != nil {
			return fmt.Errorf("read nodes: %w", err)
		}
		if err := sqlitex.Execute(conn, `SELECT rel, name FROM relations`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error { g.relName[st.ColumnInt64(0)] = st.ColumnText(1); return nil }}); err != nil {
			return fmt.Errorf("read relations: %w", err)
		}
		return sqlitex.Execute(conn, `SELECT src, dst, rel FROM edges`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error {
				g.edges = append(g.edges, struct{ src, dst, rel int64 }{st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2)})
				return nil
			}})
	})
	return g, err
}

// folderDepth is the deepest folder level at which the families and the code folders
// together stay within MaxClusters.
func (g *clusterGraph) folderDepth() int {
	families, dirs := map[string]bool{}, map[string]bool{}
	maxDepth := 0
	for _, n := range g.nodes {
		if !n.code {
			families[n.family] = true
		} else if !dirs[n.dir] {
			dirs[n.dir] = true
			maxDepth = max(maxDepth, strings.Count(n.dir, "/")+1)
		}
	}
	depth := maxDepth
	for ; depth > 1; depth-- {
		folders := map[string]bool{}
		for dir := range dirs {
			folders[cutFolder(dir, depth)] = true
		}
		if len(folders)+len(families) <= MaxClusters {
			break
		}
	}
	return depth
}

// cluster describes one cluster: its label and kind, and its best-connected members first.
func (g *clusterGraph) cluster(id string, keys []int64, degree map[int64]int, internal int) Cluster {
	slices.SortFunc(keys, func(a, b int64) int {
		return cmp.Or(degree[b]-degree[a], strings.Compare(g.nodes[a].id, g.nodes[b].id))
	})
	c := Cluster{ID: id, Nodes: len(keys), Internal: internal, Top: []NodeSummary{}}
	switch {
	case id == "other":
		c.Label, c.Kind = "other", "other"
	case strings.HasPrefix(id, "family:"):
		c.Label, c.Kind = strings.TrimPrefix(id, "family:"), "family"
	case id == "code:.":
		c.Label, c.Kind = "top level", "code" // a "." drawn alone reads as no name
	default:
		c.Label, c.Kind = strings.TrimPrefix(id, "code:"), "code"
	}
	for _, k := range keys[:min(len(keys), clusterTop)] {
		n := g.nodes[k]
		c.Top = append(c.Top, NodeSummary{ID: n.id, Title: n.title, Kind: n.kind, Family: n.family})
	}
	return c
}

// commonest names the relation most edges of a link hold (ties to the first name).
func (g *clusterGraph) commonest(rels map[int64]int) string {
	bestN, best := 0, ""
	for rel, n := range rels {
		name := g.relName[rel]
		if best == "" || n > bestN || n == bestN && name < best {
			best, bestN = name, n
		}
	}
	return best
}

// codeFolder is the folder a code node belongs to: a package's own folder (its source is the
// folder), any other node's file's folder; "." at the root.
func codeFolder(sourcePath, kind string) string {
	if sourcePath == "" {
		return "."
	}
	if kind == "package" {
		return path.Clean(sourcePath)
	}
	return path.Dir(sourcePath)
}

// cutFolder is folder cut to its first depth elements.
func cutFolder(folder string, depth int) string {
	if folder == "." {
		return folder
	}
	parts := strings.Split(folder, "/")
	return strings.Join(parts[:min(len(parts), depth)], "/")
}
