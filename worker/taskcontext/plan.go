package taskcontext

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/base/problem"
)

// PlanVersion is the version of the retrieval plans this package derives.
const PlanVersion = 1

// Fixed ceilings. They hold whatever broader limits a project configures.
const (
	MaxEvidence      = 1000   // evidence items in one collection
	MaxExaminedEdges = 100000 // candidate edges examined by all traversal steps together
	MaxTaskChars     = 10000  // characters of the task description
	DefaultBudget    = 8000   // tokens, when the request gives none
	MaxBudget        = 1000000
	// A lexical focus takes as many nodes as the budget can use (focusNodes), from a pool of
	// the best lexicalPool matches whose scores also rank what the traversal reaches.
	minFocusNodes  = 3
	maxFocusNodes  = 60
	tokensPerFocus = 200
	lexicalPool    = 200
	// lexicalScoreBudget bounds the nodes BM25 scores for a lexical focus: scoring costs
	// about 2 µs a node, and the pool is rescored besides; at 3,000 a lexical capsule of the
	// 100k-node benchmark project costs half of what 5,000 did (docs/benchmarks.md).
	lexicalScoreBudget = 3000
	maxTerms           = 32  // lexical terms taken from the task, in order of appearance
	maxIDCandidates    = 16  // words of the task tried as exact node IDs
	maxReasons         = 3   // relationship reasons kept per item; the rest are counted
	docExcerpt         = 700 // characters of a document's best-matching section
	codeDocExcerpt     = 480 // characters of a declaration's doc comment
	// Source lines: the best-ranked declarations carry their source while the source share
	// of the budget lasts, each at most maxSourceLines lines.
	maxSourceLines = 60
	sourceShare    = 0.2
)

// Task kinds: the closed set a request must name.
const (
	KindChange         = "change"
	KindImplementation = "implementation"
	KindFailure        = "failure"
	KindOwnership      = "ownership"
	KindTest           = "test"
	KindOperation      = "operation"
	KindRelease        = "release"
)

// Kinds returns the closed task kinds in the contract's order.
func Kinds() []string {
	return []string{KindChange, KindImplementation, KindFailure, KindOwnership, KindTest, KindOperation, KindRelease}
}

// Request is one task-context request, after Normalize.
type Request struct {
	Kind        string `json:"kind"`
	Task        string `json:"task"`
	FocusNodeID string `json:"focus_node_id,omitempty"`
	Budget      int    `json:"budget"`
}

// Normalize checks a request and fills in its default budget. Every refusal is
// invalid_argument with what to change.
func Normalize(r Request) (Request, error) {
	bad := func(format string, args ...any) (Request, error) {
		return Request{}, problem.Errorf(problem.InvalidArgument, format, args...)
	}
	if !slices.Contains(Kinds(), r.Kind) {
		return bad("kind %q is not a task kind; use one of %s", r.Kind, strings.Join(Kinds(), ", "))
	}
	if strings.TrimSpace(r.Task) == "" {
		return bad("task is required: describe the work in a sentence, for example \"rename the index publisher\"")
	}
	if !utf8.ValidString(r.Task) {
		return bad("task is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(r.Task); n > MaxTaskChars {
		return bad("task is %d characters; at most %d are accepted: shorten the description or name focus_node_id", n, MaxTaskChars)
	}
	switch {
	case r.Budget < 0:
		return bad("budget must be a positive number of tokens")
	case r.Budget == 0:
		r.Budget = DefaultBudget
	case r.Budget > MaxBudget:
		return bad("budget %d is over the %d-token ceiling", r.Budget, MaxBudget)
	}
	return r, nil
}

// Plan is a derived version-1 retrieval plan. It is data, not code: a client can read
// exactly what will be searched, and its hash binds a capsule to it.
type Plan struct {
	Version         int      `json:"plan_version"`
	Kind            string   `json:"kind"`
	AliasMapVersion int      `json:"alias_map_version"`
	Ceilings        Ceilings `json:"ceilings"`
	Steps           []Step   `json:"steps"`
}

// Ceilings are the fixed bounds a plan runs within.
type Ceilings struct {
	EvidenceItems  int `json:"evidence_items"`
	CandidateEdges int `json:"candidate_edges"`
	TaskChars      int `json:"task_chars"`
	FocusNodes     int `json:"focus_nodes"`
	// ScoredNodes bounds the nodes a lexical focus ranks (terms are chosen rarest first).
	ScoredNodes int `json:"lexical_scored_nodes"`
}

// Step is one plan step: "focus", "traverse" or "hydrate".
type Step struct {
	Step    int    `json:"step"`
	Op      string `json:"op"`
	Purpose string `json:"purpose"`
	// focus
	Mode         string   `json:"mode,omitempty"` // "exact" or "lexical"
	NodeID       string   `json:"node_id,omitempty"`
	FocusNodes   int      `json:"focus_nodes,omitempty"` // lexical: the nodes it may choose
	IDCandidates []string `json:"id_candidates,omitempty"`
	Terms        []string `json:"terms,omitempty"`
	// History is the git history whose commit messages the terms also rank, when there is
	// one: files those commits changed gain relevance, and their nodes may be collected.
	History string `json:"history,omitempty"`
	// traverse: the relations followed are every relation of the vocabulary (bound by hash,
	// not listed) whose category is one of graph.Categories.
	Direction      string   `json:"direction,omitempty"` // "outgoing" or "incoming"
	Categories     []string `json:"categories,omitempty"`
	MaxDepth       int      `json:"max_depth,omitempty"`
	VocabularyHash string   `json:"relation_vocabulary_hash,omitempty"`
	// hydrate: the stream is ordered by Order; each item carries Fields, a declaration its
	// signature, doc comment and (best-ranked first, while the budget's source share lasts)
	// up to SourceLines lines of source, a document its best-matching section.
	Fields      []string `json:"fields,omitempty"`
	Order       string   `json:"order,omitempty"`
	DocChars    int      `json:"doc_excerpt_chars,omitempty"`
	SourceLines int      `json:"source_lines,omitempty"`
}

// traversal is one traverse step of a task kind's recipe.
type traversal struct {
	direction  string
	categories []string
	depth      int
	purpose    string
}

const (
	outgoing = "outgoing"
	incoming = "incoming"
)

// recipes are the traversals of each task kind; docs/task-context.md explains the choices.
// Every kind ends by looking one hop both ways along unclassified relations, so that project
// relations outside the alias map stay visible, marked as such.
func recipe(kind string) []traversal {
	var steps []traversal
	switch kind {
	case KindChange:
		steps = []traversal{
			{incoming, []string{graph.Dependency, graph.Execution, graph.Data}, 3, "what the change may break: dependents, callers and users of the same data, transitively"},
			{outgoing, []string{graph.Structure, graph.Dependency, graph.Implementation, graph.Evidence}, 1, "what it is made of, what it needs, what implements it and what tests it"},
			{incoming, []string{graph.Structure, graph.Implementation, graph.Evidence, graph.Context}, 1, "what contains, implements, governs, documents or mentions it"},
		}
	case KindImplementation:
		steps = []traversal{
			{outgoing, []string{graph.Implementation, graph.Dependency, graph.Structure}, 2, "what implements it and what it builds on"},
			{incoming, []string{graph.Implementation, graph.Evidence, graph.Structure}, 1, "the requirements, decisions and documents it must satisfy"},
			{outgoing, []string{graph.Evidence, graph.Context}, 1, "the tests that will prove it and related notes"},
		}
	case KindFailure:
		steps = []traversal{
			{outgoing, []string{graph.Execution, graph.Data, graph.Dependency}, 3, "what it runs, reads, writes and needs: where a fault can come from"},
			{incoming, []string{graph.Execution, graph.Data}, 2, "who runs it and who else touches its data"},
			{outgoing, []string{graph.Evidence}, 1, "the tests that exercise it"},
			{incoming, []string{graph.Evidence}, 1, "the tests and requirements that state its expected behaviour"},
		}
	case KindOwnership:
		steps = []traversal{
			{incoming, []string{graph.Structure, graph.Evidence}, 2, "what contains, owns, governs or documents it"},
			{outgoing, []string{graph.Structure, graph.Evidence, graph.Context}, 1, "what it contains, owns or governs"},
			{outgoing, []string{graph.Execution}, 1, "what it hands the work to: the code that decides may be one call away"},
		}
	case KindTest:
		steps = []traversal{
			{outgoing, []string{graph.Evidence, graph.Implementation}, 2, "its tests and the code they must exercise"},
			{incoming, []string{graph.Evidence, graph.Implementation}, 2, "what verifies, proves or implements it"},
			{incoming, []string{graph.Execution}, 2, "its callers, among them the tests that reach it through them"},
			{outgoing, []string{graph.Execution}, 1, "what it calls, which a test must set up or observe"},
		}
	case KindOperation:
		steps = []traversal{
			{outgoing, []string{graph.Execution, graph.Dependency, graph.Data}, 2, "what it launches, needs, reads and writes at run time"},
			{incoming, []string{graph.Execution, graph.Structure}, 1, "what starts, dispatches to or contains it"},
			{outgoing, []string{graph.Context}, 1, "related operational notes"},
		}
	case KindRelease:
		steps = []traversal{
			{outgoing, []string{graph.Evidence, graph.Dependency, graph.Implementation}, 2, "what must be proven, what it ships with and what implements it"},
			{incoming, []string{graph.Evidence, graph.Dependency}, 1, "what governs or verifies it and what depends on it"},
		}
	}
	return append(steps,
		traversal{outgoing, []string{graph.Unclassified}, 1, "project relations outside the alias map, kept raw and marked unclassified"},
		traversal{incoming, []string{graph.Unclassified}, 1, "project relations outside the alias map, kept raw and marked unclassified"})
}

// PlanFor derives the plan of a normalized request over a relation vocabulary (the project's
// allowed relations).
func PlanFor(r Request, vocabulary []string) Plan {
	vh := vocabularyHash(vocabulary)
	seeds := focusNodes(r.Budget)
	p := Plan{Version: PlanVersion, Kind: r.Kind, AliasMapVersion: graph.AliasMapVersion,
		Ceilings: Ceilings{EvidenceItems: MaxEvidence, CandidateEdges: MaxExaminedEdges, TaskChars: MaxTaskChars, FocusNodes: seeds, ScoredNodes: lexicalScoreBudget}}
	focus := Step{Step: 1, Op: "focus"}
	if r.FocusNodeID != "" {
		focus.Mode, focus.NodeID, focus.Purpose = "exact", r.FocusNodeID, "the node the request names"
	} else {
		focus.Mode, focus.FocusNodes = "lexical", seeds
		focus.Purpose = fmt.Sprintf("up to %d nodes: words of the task that are exact node IDs, then BM25 over any of its terms (identifiers whole and by parts, prose stemmed; rarer terms first, at most %d nodes scored)", seeds, lexicalScoreBudget)
		focus.IDCandidates, focus.Terms = idCandidates(r.Task), terms(r.Task)
	}
	p.Steps = append(p.Steps, focus)
	for _, t := range recipe(r.Kind) {
		p.Steps = append(p.Steps, Step{Step: len(p.Steps) + 1, Op: "traverse", Purpose: t.purpose, Direction: t.direction,
			Categories: t.categories, MaxDepth: t.depth, VocabularyHash: vh})
	}
	p.Steps = append(p.Steps, Step{Step: len(p.Steps) + 1, Op: "hydrate",
		Purpose: "indexed metadata of every node, best ranked first; a declaration's signature, doc comment and source lines, a document's best-matching section, while the budget lasts",
		Fields:  []string{"title", "kind", "family", "status", "authority", "source_path", "anchor", "line", "end_line", "content_hash"},
		Order:   RankOrder, DocChars: docExcerpt, SourceLines: maxSourceLines})
	return p
}

// focusNodes is how many nodes a lexical focus takes for a budget: one per tokensPerFocus
// tokens, within [minFocusNodes, maxFocusNodes]. A larger budget can hold the evidence of
// more starting points.
func focusNodes(budget int) int {
	return min(max(budget/tokensPerFocus, minFocusNodes), maxFocusNodes)
}

// vocabularyHash binds the complete relation vocabulary, sorted, with the alias map version.
func vocabularyHash(vocabulary []string) string {
	v := slices.Clone(vocabulary)
	slices.Sort(v)
	v = slices.Compact(v)
	return hashOf("docforge.task.vocabulary.v1", struct {
		AliasMap  int      `json:"alias_map_version"`
		Relations []string `json:"relations"`
	}{graph.AliasMapVersion, v})
}

// terms are the task's distinct index terms (base/lexicon: an identifier whole and its
// parts, a word stemmed), without stopwords and one-character terms, in order of first
// appearance.
func terms(task string) []string {
	var out []string
	seen := map[string]bool{}
	words := lexicon.Words(task)
	for _, w := range words {
		for _, t := range lexicon.Analyze(w) {
			if utf8.RuneCountInString(t.Text) < 2 || lexicon.IsStopword(t.Text) || seen[t.Text] {
				continue
			}
			seen[t.Text] = true
			out = append(out, t.Text)
			if len(out) == maxTerms {
				return out
			}
		}
	}
	// Two adjacent words may be one identifier written apart ("event store" is EventStore,
	// "JSON-RPC" is jsonrpc): their joined form is a whole-identifier term. Only words of one
	// phrase are joined: never across punctuation ("tools, resources"), and a hyphenated
	// compound only within itself ("read-only" is readonly; "new read-only" is no newread).
	for _, p := range lexicon.Pairs(task) {
		if len(out) == maxTerms {
			break
		}
		a, b := strings.ToLower(p.A), strings.ToLower(p.B)
		if len(a) < 2 || len(b) < 2 || !p.Compound && (lexicon.IsStopword(a) || lexicon.IsStopword(b)) ||
			len(lexicon.Split(p.A)) > 1 || len(lexicon.Split(p.B)) > 1 { // an identifier is whole already
			continue
		}
		if j := a + b; !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	return out
}

// idCandidates are the task's whitespace-separated words that look like node IDs (they hold
// a dot, colon, slash, underscore or hyphen), trimmed of surrounding punctuation and quotes.
func idCandidates(task string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(task) {
		w = strings.Trim(w, "`'\"()[]{}<>,;!?")
		w = strings.TrimRight(w, ".:")
		if w == "" || !strings.ContainsAny(w, ".:/_-") || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxIDCandidates {
			break
		}
	}
	return out
}
