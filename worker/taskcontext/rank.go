package taskcontext

import (
	"math"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
)

// Ranking constants (docs/task-context.md, "Ranking").
const (
	// RankOrder names the ranking the stream is ordered by.
	RankOrder = "coverage+personalized_pagerank+file_relevance+file_lead.v2"
	// pprRestart is the probability that the walk returns to the focus: high, so that rank
	// stays near the task's own words and decays within two or three hops.
	pprRestart = 0.5
	pprRounds  = 24
	// graphWeight is the weight of graph proximity beside the focus score (each scaled to
	// [0, 1] over the collection).
	graphWeight = 0.6
	// fileWeight is the weight of the relevance of the item's file (fileCoverage).
	fileWeight = 0.5
	// documentDecay is the factor between the scores of successive documents (see rank).
	documentDecay = 0.85
	// fileDecay is the factor between the weights of a file's successive items in its
	// relevance (leadFiles).
	fileDecay = 0.5
	// fileItemDecay is the factor between the scores of a file's successive items after
	// its lead: the stream names more files before it details one.
	fileItemDecay = 0.95
)

// rank scores every collected item and orders the collection by score. An item's score is its
// focus score (coverage, when the lexical focus saw it), plus its proximity to the focus
// (proximity), plus the relevance of its file (fileCoverage), each scaled to the best; then
// documents are decayed so that a few are read, not every one; then each file's best item
// leads for its whole file (leadFiles).
func (c *collection) rank() {
	if len(c.items) == 0 {
		return
	}
	pr := c.proximity()
	maxLex, maxPR, maxFile, maxHist := 0.0, 0.0, 0.0, 0.0
	for i, f := range c.items {
		maxPR = max(maxPR, pr[i])
		maxLex = max(maxLex, c.lexical[f.ref.Key])
	}
	for _, s := range c.files {
		maxFile = max(maxFile, s)
	}
	for _, s := range c.hist {
		maxHist = max(maxHist, s)
	}
	scaled := func(x, top float64) float64 {
		if top == 0 {
			return 0
		}
		return x / top
	}
	for i, f := range c.items {
		s := scaled(c.lexical[f.ref.Key], maxLex) + graphWeight*scaled(pr[i], maxPR) + fileWeight*scaled(c.files[f.rec.SourcePath], maxFile) +
			historyWeight*scaled(c.hist[f.rec.SourcePath], maxHist)
		if f.focus >= 0 && maxLex == 0 {
			s++ // an exact focus leads its own capsule
		}
		f.score = round3(s)
	}
	c.sortByScore()
	c.decayDocuments()
	c.sortByScore()
	c.leadFiles()
	c.sortByScore()
}

// leadFiles gives the best item of each file the relevance of its whole file: the sum of the
// scores of the file's items in rank order, the k-th weighed fileDecay^k. An engineer reads
// files, and a file holding several relevant declarations is likelier what the task touches
// than one holding a single better match. The k-th item after a lead keeps fileItemDecay^k
// of its own score: the stream names files in the order of their relevance, and more of them
// before it details one, while still interleaving their items.
func (c *collection) leadFiles() {
	type file struct {
		lead  *found
		sum   float64
		count int
	}
	files := map[string]*file{}
	for _, f := range c.items {
		p := f.rec.SourcePath
		if p == "" {
			continue
		}
		fl := files[p]
		if fl == nil {
			fl = &file{lead: f}
			files[p] = fl
		}
		fl.sum += f.score * math.Pow(fileDecay, float64(fl.count))
		if fl.count > 0 {
			f.score = round3(f.score * math.Pow(fileItemDecay, float64(fl.count)))
		}
		fl.count++
	}
	for _, fl := range files {
		fl.lead.score = round3(fl.sum)
	}
}

// round3 rounds a score to three decimals: stable across platforms' float sums.
func round3(s float64) float64 { return math.Round(s*1000) / 1000 }

// proximity is each item's personalized PageRank over the edges the traversal met, followed
// both ways in proportion to their category's weight (walkWeight), restarting at the focus
// nodes in proportion to their focus scores. A node reached from several focus nodes, or along
// several paths, outranks one reached once.
func (c *collection) proximity() []float64 {
	n := len(c.items)
	pos := make(map[int64]int, n)
	for i, f := range c.items {
		pos[f.ref.Key] = i
	}
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
	// Only the focus restarts the walk: an exact focus, or an ID word of the task, with
	// weight 1; a lexical focus with its score.
	restart := make([]float64, n)
	total := 0.0
	for i, f := range c.items {
		if f.focus < 0 {
			continue
		}
		restart[i] = c.lexical[f.ref.Key]
		if restart[i] == 0 {
			restart[i] = 1
		}
		total += restart[i]
	}
	if total == 0 {
		return restart // no focus (every item came from history): no walk to rank by
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
	return pr
}

// decayDocuments multiplies the k-th document's score, in rank order, by documentDecay^k:
// documents are long and hold many of any task's words, so they crowd the top, and an
// engineer reads a few. A copy of a document already counted (a generated page beside its
// source: the same title, nearly the same length) is read with it and takes its factor.
func (c *collection) decayDocuments() {
	counted := 0                     // documents counted so far
	byTitle := map[string][]*found{} // counted documents by lowercase title
	slot := map[*found]int{}         // each counted document's place
	for _, f := range c.items {
		if !isDocument(f) {
			continue
		}
		title := strings.ToLower(f.rec.Title)
		k := counted
		for _, d := range byTitle[title] {
			if sameDocument(d, f) {
				k = slot[d]
				break
			}
		}
		f.score = round3(f.score * math.Pow(documentDecay, float64(k)))
		if k == counted {
			slot[f], byTitle[title] = counted, append(byTitle[title], f)
			counted++
		}
	}
}

// sameDocument reports whether two documents are copies of one text: equal titles and
// lengths within a tenth of each other.
func sameDocument(a, b *found) bool {
	if a.rec.Title == "" || !strings.EqualFold(a.rec.Title, b.rec.Title) {
		return false
	}
	long, short := max(a.rec.BodyChars, b.rec.BodyChars), min(a.rec.BodyChars, b.rec.BodyChars)
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
// implementation and evidence (calls, implements, tested_by, documents) bind most;
// dependencies and data (types used, variables read) less; context and unclassified relations
// (links between documents) less again; structure least (a file defines everything in it, a
// package contains every file), so that a hub does not pass its rank to all it touches.
func walkWeight(category string) float64 {
	switch category {
	case graph.Execution, graph.Implementation, graph.Evidence:
		return 1
	case graph.Dependency, graph.Data:
		return 0.5
	case graph.Context, graph.Unclassified:
		return 0.4
	}
	return 0.2 // structure
}
