package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/adopt"
	"github.com/docforge/docforge/source/project"
)

// adoptedVersion changes whenever the adopted-tree generator's output changes.
const adoptedVersion = "1"

// adoptedTree generates a documentation tree as another tool would have it: YAML front
// matter without DocForge fields, 20 section folders, and about five relative Markdown links
// per page, a third of them with an anchor. The descriptor is the one 'docforge init' writes.
type adoptedTree struct {
	files int
}

func (a adoptedTree) relPath(i int) string {
	return fmt.Sprintf("docs/s%02d/page-%05d.md", i%20, i)
}

// page is file i's content; variant changes the body and the links, never the identity.
func (a adoptedTree) page(i, variant int) []byte {
	r := rand.New(rand.NewPCG(uint64(i), uint64(variant)))
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Page %d of section %d\nsidebar_position: %d\ntags: [section-%d, generated]\ndescription: Variant %d.\n---\n", i, i%20, i%50, i%20, variant)
	fmt.Fprintf(&b, "# Page %d\n\nThis page covers topic %d with %d paragraphs of notes.\n\n", i, r.IntN(1000), 1+variant%3)
	from := path.Dir(a.relPath(i))
	for k := 0; k < 5; k++ {
		j := r.IntN(a.files)
		rel, _ := filepath.Rel(from, a.relPath(j))
		anchor := ""
		if k%3 == 0 {
			anchor = "#details"
		}
		fmt.Fprintf(&b, "- See [page %d](%s%s) for the part about term%d.\n", j, filepath.ToSlash(rel), anchor, r.IntN(500))
	}
	b.WriteString("\n## Details\n\n")
	for k := 0; k < 6; k++ {
		fmt.Fprintf(&b, "Sentence %d mentions storage, recovery and word%d in passing. ", k, r.IntN(2000))
	}
	b.WriteString("\n")
	return []byte(b.String())
}

// ensureAdopted writes the tree and its descriptor unless an identical one is there.
func ensureAdopted(dir string, files int) (string, error) {
	proj, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("adopted%d", files)))
	if err != nil {
		return "", err
	}
	return proj, generateOnce(proj, fmt.Sprintf("adopted %s files %d\n", adoptedVersion, files), func() error {
		fmt.Fprintf(os.Stderr, "generating an adopted tree of %d files in %s ...\n", files, proj)
		if err := os.RemoveAll(proj); err != nil {
			return err
		}
		return writeAdopted(proj, files)
	})
}

// writeAdopted writes the pages and the descriptor 'docforge init' proposes for them.
func writeAdopted(proj string, files int) error {
	a := adoptedTree{files: files}
	for i := 0; i < files; i++ {
		p := filepath.Join(proj, filepath.FromSlash(a.relPath(i)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, a.page(i, 0), 0o644); err != nil {
			return err
		}
	}
	s, err := adopt.Take(proj)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(proj, project.FileName), []byte(s.Descriptor("adopted", "Adopted tree")), 0o644)
}

// measureAdopted times cold syncs and one-file edits of the adopted tree.
func measureAdopted(ctx context.Context, dir string, files, runs int) (string, error) {
	proj, err := ensureAdopted(dir, files)
	if err != nil {
		return "", err
	}
	d, probs, err := project.Load(proj)
	if err != nil || d == nil {
		return "", fmt.Errorf("adopted tree descriptor: %v %v", err, probs)
	}
	if runs == 0 {
		runs = 3
	}
	var cold []time.Duration
	var res *index.Result
	for k := 0; k < runs; k++ {
		if err := os.RemoveAll(publication.PathsFor(d, "").Dir); err != nil {
			return "", err
		}
		if res, err = index.Sync(ctx, d, index.Options{}); err != nil {
			return "", fmt.Errorf("adopted cold sync: %w", err)
		}
		if res.Build != index.BuildCold || res.Publication.Graph.NodeCount != int64(files) {
			return "", fmt.Errorf("adopted cold sync: built %q with %d nodes", res.Build, res.Publication.Graph.NodeCount)
		}
		cold = append(cold, res.Elapsed)
		fmt.Fprintf(os.Stderr, "adopted cold sync %d/%d: %s\n", k+1, runs, res.Elapsed.Round(time.Millisecond))
	}
	edges := res.Publication.Graph.EdgeCount
	a := adoptedTree{files: files}
	rng := rand.New(rand.NewPCG(9, 9))
	var published, total []time.Duration
	var phases [][]index.Timing
	var touched []int
	defer func() {
		for _, i := range touched {
			os.WriteFile(filepath.Join(proj, filepath.FromSlash(a.relPath(i))), a.page(i, 0), 0o644)
		}
	}()
	for k := 0; k < 15; k++ {
		i := rng.IntN(files)
		touched = append(touched, i)
		if err := os.WriteFile(filepath.Join(proj, filepath.FromSlash(a.relPath(i))), a.page(i, 1+k), 0o644); err != nil {
			return "", err
		}
		res, err := index.Sync(ctx, d, index.Options{})
		if err != nil {
			return "", fmt.Errorf("adopted edit sync: %w", err)
		}
		if res.Build != index.BuildIncremental || res.FilesChanged != 1 {
			return "", fmt.Errorf("adopted edit sync: built %q over %d files", res.Build, res.FilesChanged)
		}
		published, total = append(published, res.Published), append(total, res.Elapsed)
		phases = append(phases, res.Timings)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Adopted documentation tree (%d YAML files, ~5 relative links each)\n\n", files)
	fmt.Fprintf(&b, "Machine: %s. Descriptor from 'docforge init' (derived IDs, links as relates_to).\n\n", machine())
	fmt.Fprintf(&b, "| step | median | runs |\n| --- | --- | --- |\n")
	fmt.Fprintf(&b, "| cold sync (%d nodes, %d edges) | %.0f ms | %d |\n", files, edges, median(cold), runs)
	fmt.Fprintf(&b, "| one-file edit, published | %.1f ms | 15 |\n", median(published))
	fmt.Fprintf(&b, "| one-file edit, sync returned | %.1f ms | 15 |\n", median(total))
	fmt.Fprintf(&b, "\nOne-file edit phases (median ms): %s\n", phaseList(medianPhases(phases)))
	return b.String(), nil
}
