package taskcontext

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/code"
)

// Field weights of the focus score: a term in a node's own name says more than one in its
// title, which says more than one in its body.
const (
	nameWeight  = 2.0
	titleWeight = 1.5
	bodyWeight  = 1.0
	codeWeight  = 0.5 // a term of a declaration's source, not of its doc comment
	// testWeight scales the focus score of code in test files, except for a test task: tests
	// hold many words of their subject, and a task is about the subject.
	testWeight = 0.6
	// textWeight scales the focus score of a text file no adapter reads (configuration,
	// scripts, Markdown outside the content roots, translations): findable, but what a task
	// is about is its code and its documents.
	textWeight = 0.5
	// lengthDamping softens the advantage a long body has of holding many terms by chance.
	lengthDamping = 0.15
	// idfPower sharpens inverse document frequency: in a task description the rare words
	// name the subject and the common ones ("add", "server", "test") name everything.
	idfPower = 2.0
)

// coverage rescores the lexical pool on every task term: a node's score is the sum, over the
// distinct terms it holds, of the term's inverse document frequency times the weight of the
// best field holding it, damped by the logarithm of the body's length. BM25 (which chose the
// pool) rewards a short field that repeats one term; coverage rewards a node that holds many
// of the task's rarer terms, which is what a task description asks for.
func coverage(ctx context.Context, snap *index.Snapshot, hits []index.RankedHit, uses []index.TermUse, kind string) (map[int64]float64, error) {
	out := make(map[int64]float64, len(hits))
	if len(hits) == 0 {
		return out, nil
	}
	total := float64(max(snap.Info().NodeCount, 1))
	idf := map[string]float64{}
	for _, u := range uses {
		if u.Nodes > 0 {
			idf[u.Term] = rarity(total, u.Nodes)
		}
	}
	refs := make([]index.NodeRef, len(hits))
	for i, h := range hits {
		refs[i] = h.NodeRef
	}
	recs, err := snap.Hydrate(ctx, refs, func(int) int { return maxScoredBody })
	if err != nil {
		return nil, err
	}
	for i, h := range recs {
		score := termCoverage(h, idf)
		if kind != KindTest && code.IsTestPath(h.SourcePath) {
			score *= testWeight // a test tells what the code does; the code is what the task is about
		}
		if strings.HasPrefix(h.ID, graph.TextPrefix) {
			score *= textWeight
		}
		if hits[i].Match == "id" {
			score = math.Inf(1) // replaced by the best text score below
		}
		out[hits[i].Key] = score
	}
	best := 1.0
	for _, s := range out {
		if !math.IsInf(s, 1) {
			best = max(best, s)
		}
	}
	for k, s := range out {
		if math.IsInf(s, 1) {
			out[k] = best // a word of the task that is a node's exact ID is as relevant as the best match
		}
	}
	return out, nil
}

// termCoverage is the sum, over the task terms a node holds, of each term's rarity times the
// weight of the best field holding it, damped by the length of its body and code.
func termCoverage(h index.Hydrated, idf map[string]float64) float64 {
	weight := map[string]float64{}
	mark := func(text string, w float64) {
		lexicon.Terms(text, func(t string) {
			if idf[t] > 0 && w > weight[t] {
				weight[t] = w
			}
		})
	}
	for _, t := range strings.Fields(h.CodeTerms) {
		if idf[t] > 0 && weight[t] < codeWeight {
			weight[t] = codeWeight
		}
	}
	mark(h.Excerpt, bodyWeight)
	mark(h.Title, titleWeight)
	mark(index.NameOf(h.ID, h.Kind), nameWeight)
	score := 0.0
	for t, w := range weight {
		score += idf[t] * w
	}
	return score / (1 + lengthDamping*math.Log1p(float64(h.BodyChars+len(h.CodeTerms))/1000))
}

// rarity is a term's weight among total documents (nodes, or files) when n of them hold it:
// its inverse document frequency, raised to idfPower.
func rarity(total float64, n int) float64 {
	return math.Pow(math.Log(1+total/float64(n)), idfPower)
}

// maxScoredBody bounds the body characters the focus score reads of one node.
const maxScoredBody = 64 << 10

// fileCoverage scores the files of the project on the task's terms as coverage scores nodes,
// with files as the documents: the sum of the squared inverse file frequency of each term a
// file holds anywhere (names, doc comments, source, document text), damped by the
// logarithm of its size. It is what a search of the whole tree with the task's rarer words
// ranks highly, and it lets a node borrow the relevance of the file around it.
func fileCoverage(ctx context.Context, snap *index.Snapshot, uses []index.TermUse) (map[string]float64, error) {
	// The rarest terms first, while the nodes they match together stay within
	// fileScoreBudget: each match costs a node and a file lookup, and a term in thousands of
	// nodes weighs next to nothing here anyway.
	var terms []string
	matched := 0
	for _, u := range slices.SortedStableFunc(slices.Values(uses), func(a, b index.TermUse) int { return a.Nodes - b.Nodes }) {
		if u.Nodes > 0 && !u.AtLeast && matched+u.Nodes <= fileScoreBudget {
			matched += u.Nodes
			terms = append(terms, u.Term)
		}
	}
	out := map[string]float64{}
	if len(terms) == 0 {
		return out, nil
	}
	files, sizes, total, err := snap.FileTerms(ctx, terms, fileScoreBudget)
	if err != nil {
		return nil, err
	}
	for i := range terms {
		if len(files[i]) == 0 {
			continue
		}
		w := rarity(float64(max(total, 1)), len(files[i]))
		for _, f := range files[i] {
			out[f] += w
		}
	}
	for f, s := range out {
		out[f] = s / (1 + fileLengthDamping*math.Log1p(float64(sizes[f])/10000))
	}
	return out, nil
}

// fileLengthDamping softens a long file's advantage of holding many terms; fileScoreBudget
// bounds the term matches file relevance reads.
const (
	fileLengthDamping = 0.3
	fileScoreBudget   = 1200
)
