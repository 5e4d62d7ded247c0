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
	type nodeRow struct {
		id, family, kind, title, dir string
		code                         bool
	}
	nodes := map[int64]*nodeRow{}
	type edgeRow struct{ src, dst, rel int64 }
	var edges []edgeRow
	relName := map[int64]string{}
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		if err := sqlitex.Execute(conn, `SELECT key, id, family, kind, title, source_path FROM nodes`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error {
				n := &nodeRow{id: st.ColumnText(1), family: st.ColumnText(2), kind: st.ColumnText(3), title: st.ColumnText(4)}
				n.code = graph.IsCode(n.id)
				if n.code {
					n.dir = codeFolder(st.ColumnText(5), n.kind)
				}
				nodes[st.ColumnInt64(0)] = n
				return nil
			}}); err != nil {
			return fmt.Errorf("read nodes: %w", err)
		}
		if err := sqlitex.Execute(conn, `SELECT rel, name FROM relations`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error { relName[st.ColumnInt64(0)] = st.ColumnText(1); return nil }}); err != nil {
			return fmt.Errorf("read relations: %w", err)
		}
		return sqlitex.Execute(conn, `SELECT src, dst, rel FROM edges`, &sqlitex.ExecOptions{
			ResultFunc: func(st *sqlite.Stmt) error {
				edges = append(edges, edgeRow{st.ColumnInt64(0), st.ColumnInt64(1), st.ColumnInt64(2)})
				return nil
			}})
	})
	if err != nil {
		return nil, fmt.Errorf("cluster map: %w", err)
	}
	// The folder depth: the deepest at which the families and folders together stay within
	// MaxClusters.
	families, dirs := map[string]bool{}, map[string]bool{}
	maxDepth := 0
	for _, n := range nodes {
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
	clusterOf := func(n *nodeRow) string {
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
	final := func(n *nodeRow) string {
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
	for _, e := range edges {
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
		keys := members[id]
		if len(keys) == 0 {
			continue
		}
		slices.SortFunc(keys, func(a, b int64) int {
			return cmp.Or(degree[b]-degree[a], strings.Compare(nodes[a].id, nodes[b].id))
		})
		c := Cluster{ID: id, Nodes: len(keys), Internal: internal[id], Top: []NodeSummary{}}
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
			n := nodes[k]
			c.Top = append(c.Top, NodeSummary{ID: n.id, Title: n.title, Kind: n.kind, Family: n.family})
		}
		out.Clusters = append(out.Clusters, c)
	}
	pairs := make([]pair, 0, len(count))
	for p := range count {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(count[b]-count[a], strings.Compare(a.from, b.from), strings.Compare(a.to, b.to))
	})
	if len(pairs) > maxClusterLinks {
		pairs, out.Truncated = pairs[:maxClusterLinks], true
	}
	for _, p := range pairs {
		bestN := 0
		best := ""
		for rel, n := range rels[p] {
			name := relName[rel]
			if best == "" || n > bestN || n == bestN && name < best {
				best, bestN = name, n
			}
		}
		out.Links = append(out.Links, ClusterLink{From: p.from, To: p.to, Count: count[p], Relation: best})
	}
	return out, nil
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
