package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The synthetic project: three families, one node per Markdown file, 100 files to a folder,
// about five relations per node and a 1 to 3 KB body drawn from a skewed vocabulary, so that
// search terms have realistic document frequencies.

const genDescriptor = `schema_version = 1

[project]
id = "bench"
name = "Synthetic benchmark project"

[sources]
content_roots = ["docs"]

[relations]
allowed = ["contains", "depends_on", "implemented_by", "tested_by", "reads", "writes", "relates_to", "governs"]

[families.design]
kinds = ["component", "decision"]

[families.requirements]
kinds = ["requirement"]

[families.tests]
kinds = ["test"]

[[views]]
id = "design"
title = "Design"
families = ["design"]
output = "site/design.html"

[[views]]
id = "requirements"
title = "Requirements"
families = ["requirements"]
output = "site/requirements.html"

[[views]]
id = "tests"
title = "Tests"
families = ["tests"]
output = "site/tests.html"
`

var genRelations = []string{"depends_on", "implemented_by", "tested_by", "reads", "writes", "governs"}

// generator writes a synthetic project deterministically from its seed.
type generator struct {
	nodes int
	seed  uint64
	vocab []string
}

func newGenerator(nodes int, seed uint64) *generator {
	g := &generator{nodes: nodes, seed: seed}
	r := rand.New(rand.NewPCG(seed, 1))
	const syllables = "ka lo mi ne ru sa ti vo de fa gu hi jo pe qu ze xa wy bo ci"
	parts := strings.Fields(syllables)
	seen := map[string]bool{}
	for len(g.vocab) < 8000 {
		var b strings.Builder
		for k := 2 + r.IntN(3); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	return g
}

func (g *generator) nodeID(i int) string { return fmt.Sprintf("n%06d", i) }

func (g *generator) relPath(i int) string {
	return filepath.Join("docs", fmt.Sprintf("d%04d", i/100), g.nodeID(i)+".md")
}

// word draws from the vocabulary with a skew: low ranks are common, high ranks rare.
func (g *generator) word(r *rand.Rand) string {
	x := r.Float64()
	return g.vocab[int(x*x*x*float64(len(g.vocab)))]
}

// node renders node i. variant changes the body and one relation, for edit benchmarks.
func (g *generator) node(i, variant int) []byte {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)<<8|uint64(variant)))
	family, kind := "design", "component"
	switch i % 4 {
	case 1:
		kind = "decision"
	case 2:
		family, kind = "requirements", "requirement"
	case 3:
		family, kind = "tests", "test"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "+++\nid = %q\nkind = %q\nfamily = %q\n", g.nodeID(i), kind, family)
	fmt.Fprintf(&b, "title = \"%s %s %s\"\nstatus = \"accepted\"\nauthority = \"normative\"\n", g.word(r), g.word(r), g.word(r))
	tag1, tag2 := r.IntN(50), r.IntN(50)
	if tag1 == tag2 {
		fmt.Fprintf(&b, "tags = [\"t%d\"]\n[relations]\n", tag1)
	} else {
		fmt.Fprintf(&b, "tags = [\"t%d\", \"t%d\"]\n[relations]\n", tag1, tag2)
	}
	targets := map[string][]string{}
	used := map[int]bool{i: true}
	for k := 0; k < 5; k++ {
		// Mostly near neighbours (a real graph clusters), sometimes anywhere.
		t := i + 1 + r.IntN(200)
		if r.IntN(4) == 0 {
			t = r.IntN(g.nodes)
		}
		t %= g.nodes
		if used[t] {
			continue
		}
		used[t] = true
		rel := genRelations[r.IntN(len(genRelations))]
		targets[rel] = append(targets[rel], fmt.Sprintf("%q", g.nodeID(t)))
	}
	for _, rel := range genRelations {
		if ts := targets[rel]; len(ts) > 0 {
			fmt.Fprintf(&b, "%s = [%s]\n", rel, strings.Join(ts, ", "))
		}
	}
	b.WriteString("+++\n")
	size := 1024 + r.IntN(2048)
	start := b.Len()
	section := 0
	for b.Len()-start < size {
		if (b.Len()-start)/400 >= section {
			section++
			fmt.Fprintf(&b, "\n## %s %s\n\n", g.word(r), g.word(r))
		}
		for w := 0; w < 12; w++ {
			b.WriteString(g.word(r))
			b.WriteByte(' ')
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// write creates the project under dir, replacing any previous one.
func (g *generator) write(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("generate: clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docforge.toml"), []byte(genDescriptor), 0o644); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	for i := 0; i < g.nodes; i++ {
		p := filepath.Join(dir, g.relPath(i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("generate: %w", err)
			}
		}
		if err := os.WriteFile(p, g.node(i, 0), 0o644); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	return nil
}
