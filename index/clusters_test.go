package index_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
)

// The cluster map of a project groups documents by family and code by folder, counts every
// node once, and counts the relations between clusters; past MaxClusters folders are cut to
// a shallower depth.
func TestClusters(t *testing.T) {
	ctx := context.Background()
	d := courier(t)
	_, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	m, err := snap.Clusters(ctx)
	must(t, err)
	byID := map[string]index.Cluster{}
	total := 0
	for _, c := range m.Clusters {
		byID[c.ID] = c
		total += c.Nodes
		if len(c.Top) == 0 || len(c.Top) > c.Nodes {
			t.Errorf("cluster %s: %d top nodes of %d", c.ID, len(c.Top), c.Nodes)
		}
	}
	if total != int(snap.Info().NodeCount) {
		t.Errorf("clusters hold %d nodes, the snapshot %d", total, snap.Info().NodeCount)
	}
	for _, want := range []string{"family:architecture", "family:requirements", "code:code/store", "code:code/normalize"} {
		if _, ok := byID[want]; !ok {
			t.Errorf("no cluster %s in %v", want, clusterIDs(m))
		}
	}
	if c := byID["code:code/store"]; c.Kind != "code" || c.Label != "code/store" || c.Internal == 0 {
		t.Errorf("code:code/store: %+v", c)
	}
	documents := false
	for _, l := range m.Links {
		if l.From == l.To || l.Count < 1 {
			t.Errorf("link %+v", l)
		}
		documents = documents || strings.HasPrefix(l.From, "family:") && strings.HasPrefix(l.To, "code:")
	}
	if !documents {
		t.Errorf("no relation from a family to code: %+v", m.Links)
	}

	// Over a delta (a file edited, so the base holds rows the delta replaced) every node still
	// counts once.
	write(t, d, "code/store/extra.go", "package store\n\n// Extra is new.\nfunc Extra() {}\n")
	res, err := index.Sync(ctx, d, index.Options{})
	must(t, err)
	if res.Build != index.BuildIncremental {
		t.Fatalf("build %s, want a delta", res.Build)
	}
	snapD, err := index.Open(ctx, d)
	must(t, err)
	defer snapD.Close()
	mD, err := snapD.Clusters(ctx)
	must(t, err)
	totalD := 0
	for _, c := range mD.Clusters {
		totalD += c.Nodes
	}
	if totalD != int(snapD.Info().NodeCount) {
		t.Errorf("over a delta the clusters hold %d nodes, the snapshot %d", totalD, snapD.Info().NodeCount)
	}

	// Many folders: the map stays within MaxClusters by cutting folders to their parents.
	root := t.TempDir()
	files := map[string]string{"docforge.toml": fixture.GoModuleDescriptor("many", false), "go.mod": "module example.com/many\n"}
	for i := range 60 {
		files[fmt.Sprintf("area%d/pkg%d/p.go", i%6, i)] = fmt.Sprintf("package pkg%d\n\nfunc F() {}\n", i)
	}
	fixture.WriteTree(t, root, files)
	d2 := load(t, root)
	_, err = index.Sync(ctx, d2, index.Options{})
	must(t, err)
	snap2, err := index.Open(ctx, d2)
	must(t, err)
	defer snap2.Close()
	m2, err := snap2.Clusters(ctx)
	must(t, err)
	if ids := clusterIDs(m2); len(ids) > index.MaxClusters || !slices.Contains(ids, "code:area3") || slices.Contains(ids, "code:area3/pkg3") {
		t.Errorf("clusters of 60 packages in 6 areas: %v", ids)
	}
}

func clusterIDs(m *index.ClusterMap) []string {
	var ids []string
	for _, c := range m.Clusters {
		ids = append(ids, c.ID)
	}
	return ids
}

// The files at the top of a code root are one cluster, named so that it reads as a name.
func TestClusterOfTheTopLevel(t *testing.T) {
	snap := syncedSnapshot(t, map[string]string{
		"docforge.toml": fixture.GoModuleDescriptor("top", false),
		"go.mod":        "module example.com/top\n",
		"top.go":        "package top\n\n// Run runs.\nfunc Run() {}\n",
		"sub/sub.go":    "package sub\n",
	})
	m, err := snap.Clusters(context.Background())
	must(t, err)
	labels := map[string]string{}
	for _, c := range m.Clusters {
		labels[c.ID] = c.Label
	}
	if labels["code:."] != "top level" || labels["code:sub"] != "sub" {
		t.Errorf("cluster labels %v", labels)
	}
}
