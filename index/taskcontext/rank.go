package taskcontext

import (
	"math"
	"slices"
	"strings"

	"github.com/docforge/docforge/index/graph"
)

// Ranking constants (rank.v1; docs/task-context.md, "Ranking").
const (
	// RankOrder names the ranking the stream is ordered by.
	RankOrder = "lexical_bm25+personalized_pagerank.v1"
	// pprRestart is the probability that the walk returns to the focus: high, so that rank
	// stays near the task's own words and decays within two or three hops.
	pprRestart = 0.5
	pprRounds  = 24
	// graphWeight is the weight of graph proximity beside lexical relevance (each scaled to
	// [0, 1] over the collection).
	graphWeight = 0.6
	// fileWeight is the weight of the item's file's share of the collection's score.
	fileWeight = 0.5
	// documentDecay is the factor between the scores of successive documents (see rank).
	documentDecay = 0.85
)

// rank scores every collected item and orders the collection by score. An item's score is its
// lexical relevance (the BM25 of the task's terms, when the focus ranking saw it) plus its
// proximity to the focus: the personalized PageRank of the item over the edges the traversal
// met, restarting at the focus nodes in proportion to their lexical scores. A node reached
// from several focus nodes, or along several paths, outranks one reached once. The walk
// follows an edge in proportion to its category's weight (walkWeight): calls and tests bind
// code more tightly than a package's containment or a document's mention.
func (c *collection) rank(lexical map[int64]float64) {
	n := len(c.items)
	if n == 0 {
		return
	}
	pos := make(map[int64]int, n)
	for i, f := range c.items {
		pos[f.ref.Key] = i
	}
	// The walk follows each edge in both directions, in proportion to its category's weight.
	type arc struct {
		to int
		w  float64
	}
	adj := make([][]arc, n)
	weightSum := make([]float64, n)
	seen := map[[2]int]bool{}
	for _, l := range c.links {
		a, okA := pos[l.a]
		b, okB := pos[l.b]
		if !okA || !okB || a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		if seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		w := walkWeight(l.category)
		adj[a], adj[b] = append(adj[a], arc{b, w}), append(adj[b], arc{a, w})
		weightSum[a], weightSum[b] = weightSum[a]+w, weightSum[b]+w
	}
	restart := make([]float64, n)
	total := 0.0
	for i, f := range c.items {
		w := lexical[f.ref.Key]
		if f.focus >= 0 && w == 0 {
			w = 1 // an exact focus, or an ID word of the task
		}
		if f.focus < 0 {
			w = 0 // only the focus restarts the walk; lexical scores of others count below
		}
		restart[i] = w
		total += w
	}
	if total == 0 {
		for i := range restart {
			restart[i] = 1
		}
		total = float64(n)
	}
	for i := range restart {
		restart[i] /= total
	}
	pr := slices.Clone(restart)
	next := make([]float64, n)
	for round := 0; round < pprRounds; round++ {
		for i := range next {
			next[i] = pprRestart * restart[i]
		}
		for i, nb := range adj {
			if len(nb) == 0 {
				next[i] += (1 - pprRestart) * pr[i] // a node without edges keeps its mass
				continue
			}
			mass := (1 - pprRestart) * pr[i] / weightSum[i]
			for _, e := range nb {
				next[e.to] += mass * e.w
			}
		}
		pr, next = next, pr
	}
	maxLex, maxPR := 0.0, 0.0
	for i, f := range c.items {
		maxPR = max(maxPR, pr[i])
		maxLex = max(maxLex, lexical[f.ref.Key])
	}
	base := make([]float64, n)
	for i, f := range c.items {
		if maxLex > 0 {
			base[i] += lexical[f.ref.Key] / maxLex
		}
		if maxPR > 0 {
			base[i] += graphWeight * pr[i] / maxPR
		}
		if f.focus >= 0 && maxLex == 0 {
			base[i] += 1 // an exact focus leads its own capsule
		}
	}
	// Files are what an engineer reads: a node borrows part of its file's relevance to the
	// task (fileCoverage), so that evidence gathers in the files that matter.
	maxFile := 0.0
	for _, s := range c.files {
		maxFile = max(maxFile, s)
	}
	for i, f := range c.items {
		s := base[i]
		if maxFile > 0 {
			s += fileWeight * c.files[f.file] / maxFile
		}
		f.score = math.Round(s*1000) / 1000 // three decimals: stable across platforms' float sums
	}
	c.sortByScore()
	// Documents are long and hold many of any task's words, so they crowd the top; an
	// engineer reads a few. Each further document counts for half the one before it.
	// A copy of a document already counted (a generated page beside its source: same title,
	// nearly the same length) is read with it, so it takes that document's factor.
	read := 0                        // documents counted so far
	byTitle := map[string][]*found{} // counted documents by lowercase title
	slot := map[*found]int{}         // each counted document's place
	for _, f := range c.items {
		if strings.HasPrefix(f.ref.ID, graph.CodePrefix) {
			continue
		}
		title := strings.ToLower(f.title)
		n := read
		for _, d := range byTitle[title] {
			if sameDocument(d, f) {
				n = slot[d]
				break
			}
		}
		f.score = math.Round(f.score*math.Pow(documentDecay, float64(n))*1000) / 1000
		if n == read {
			slot[f], byTitle[title] = read, append(byTitle[title], f)
			read++
		}
	}
	c.sortByScore()
}

// sameDocument reports whether two documents are copies of one text: equal titles and
// lengths within a tenth of each other.
func sameDocument(a, b *found) bool {
	if a.title == "" || !strings.EqualFold(a.title, b.title) {
		return false
	}
	long, short := max(a.bodyChars, b.bodyChars), min(a.bodyChars, b.bodyChars)
	return float64(short) >= 0.9*float64(long)
}

// sortByScore orders the collection by score, then depth, then ID.
func (c *collection) sortByScore() {
	slices.SortStableFunc(c.items, func(a, b *found) int {
		switch {
		case a.score != b.score:
			if a.score > b.score {
				return -1
			}
			return 1
		case a.depth != b.depth:
			return a.depth - b.depth
		}
		return strings.Compare(a.ref.ID, b.ref.ID)
	})
}

// walkWeight is how strongly the ranking walk follows an edge of a category: execution,
// implementation and evidence (calls, implements, tested_by) bind most; dependencies and data
// (types used, variables read) less; a document's mention or link and containment (a file
// defines everything in it) least, so that a hub does not pass its rank to all it touches.
func walkWeight(category string) float64 {
	switch category {
	case Execution, Implementation, Evidence:
		return 1
	case Dependency, Data:
		return 0.5
	case Context, Unclassified:
		return 0.4
	}
	return 0.2 // structure
}
