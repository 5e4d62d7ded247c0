package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// The generated project must be a valid project of the size asked for, with about five
// relations per node, and the edit variants must stay valid; otherwise the benchmark figures
// would describe something other than what docs/benchmarks.md says.
func TestGeneratedProjectIsValid(t *testing.T) {
	for _, nodes := range []int{40, 250} {
		dir := t.TempDir()
		g := newGenerator(nodes, 42)
		if err := g.write(dir); err != nil {
			t.Fatal(err)
		}
		d, probs, err := project.Load(dir)
		if err != nil || len(probs) > 0 {
			t.Fatalf("%d nodes: load descriptor: %v %v", nodes, err, probs)
		}
		res, err := index.Sync(context.Background(), d, index.Options{})
		if err != nil {
			t.Fatalf("%d nodes: sync: %v", nodes, err)
		}
		got := res.Publication.Graph
		if got.NodeCount != int64(nodes) {
			t.Errorf("%d nodes: indexed %d", nodes, got.NodeCount)
		}
		if per := float64(got.EdgeCount) / float64(nodes); per < 4 || per > 5 {
			t.Errorf("%d nodes: %.2f relations per node, want about 5", nodes, per)
		}
		if !bytes.Equal(g.node(7, 0), newGenerator(nodes, 42).node(7, 0)) {
			t.Errorf("%d nodes: generator is not deterministic", nodes)
		}
		if bytes.Equal(g.node(7, 0), g.node(7, 1)) {
			t.Errorf("%d nodes: edit variant equals the original", nodes)
		}
	}
}
