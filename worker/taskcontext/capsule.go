package taskcontext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/history"
)

// CapsuleVersion is the version of the capsule layout. Version 2: items are ranked and carry
// content (signature, doc comment, source lines, a document's best section), token-limit
// omissions are pointers, and the budget covers the whole response.
const CapsuleVersion = 2

// Estimator names the one token estimator: a token per four bytes of compact JSON, rounded
// up. It needs no model tokenizer, so every server and client computes the same figure; for
// English prose and JSON it runs a little above common tokenizers, which errs towards staying
// inside a model's real budget. It is applied to the whole response: envelope, capsule
// header, plan, gaps, evidence and omissions.
const Estimator = "json_bytes_div_4.v2"

// Item is one evidence item of the stream.
type Item struct {
	Type        string    `json:"type"` // "evidence"
	NodeID      string    `json:"node_id"`
	Title       string    `json:"title"`
	Kind        string    `json:"kind"`
	Family      string    `json:"family"`
	Status      string    `json:"status,omitempty"`
	Authority   string    `json:"authority,omitempty"`
	SourcePath  string    `json:"source_path"`
	Anchor      string    `json:"anchor,omitempty"`
	Line        int       `json:"line,omitempty"`
	EndLine     int       `json:"end_line,omitempty"`
	ContentHash string    `json:"content_hash"`
	Role        string    `json:"role"` // "focus" or "related"
	Score       float64   `json:"score"`
	Step        int       `json:"step"`
	Depth       int       `json:"depth"`
	Path        []PathHop `json:"path"`
	Reasons     []Reason  `json:"relationship_reasons"`
	ReasonsMore int       `json:"relationship_reasons_omitted,omitempty"`
	Provenance  []Fact    `json:"provenance"`
	// Signature is a declaration's first source line(s), up to its body.
	Signature string `json:"signature,omitempty"`
	// Excerpt is a declaration's doc comment, or a document's best-matching section (Section
	// is its heading anchor); BodyChars is the whole body's length.
	Excerpt   string `json:"excerpt"`
	Section   string `json:"section,omitempty"`
	BodyChars int    `json:"body_chars"`
	// Source is lines Line..SourceEnd of the declaration, quoted from the file only when it is
	// still the one the generation was built from.
	Source    string `json:"source,omitempty"`
	SourceEnd int    `json:"source_end,omitempty"`
	// Commits are the commits that changed the node (its lines, or a file's or document's
	// file), those the task's words chose first, then the newest.
	Commits []CommitRef `json:"commits,omitempty"`
	Tokens  int         `json:"tokens"`
}

// CommitRef names a commit as evidence items cite it: its hash abbreviated to 12 digits (as
// git abbreviates, unambiguous within any window indexed), its day (UTC) and its subject.
type CommitRef struct {
	Hash    string `json:"hash"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
}

// commitRefs cites commits.
func commitRefs(cs []history.Commit) []CommitRef {
	var out []CommitRef
	for _, c := range cs {
		out = append(out, CommitRef{Hash: c.Hash[:min(len(c.Hash), 12)], Date: c.Time.UTC().Format(time.DateOnly), Subject: c.Subject})
	}
	return out
}

// Omitted is a collected item whose content the token budget left out: a ranked pointer,
// enough to fetch it directly (docforge_get_node, or the file at the line).
type Omitted struct {
	Type   string `json:"type"` // "omission"
	NodeID string `json:"node_id"`
	// Title is a document's; a code node's ID already names it.
	Title      string  `json:"title,omitempty"`
	SourcePath string  `json:"source_path"`
	Line       int     `json:"line,omitempty"`
	Role       string  `json:"role"`
	Score      float64 `json:"score"`
	Reason     string  `json:"reason"` // "token_limit", or "response_limit" when one response was the smaller bound
	// ContentHash identifies the node a response_limit omission leaves out.
	ContentHash string `json:"content_hash,omitempty"`
}

// Binding is what a capsule is bound to besides its request and plan.
type Binding struct {
	Generation int64 `json:"generation"`
	// SourceHash is left out of a tight capsule's JSON: it is the envelope's source_hash.
	// The capsule hash binds it either way.
	SourceHash     string `json:"source_hash,omitempty"`
	PolicyHash     string `json:"policy_hash"`
	VocabularyHash string `json:"relation_vocabulary_hash"`
}

// Budget reports the token budget and its use: Used estimates the whole response.
type Budget struct {
	Tokens    int    `json:"tokens"`
	Used      int    `json:"used"`
	Estimator string `json:"estimator"`
}

// Counts summarize the collection and the capsule.
type Counts struct {
	Focus        int `json:"focus"`
	Collected    int `json:"collected"`
	Selected     int `json:"selected"`
	TokenOmitted int `json:"token_omitted"`
	// ResponseOmitted counts the items left out because one response (max_response_chars),
	// smaller than the token budget, could not hold them; TokenOmitted is then 0.
	ResponseOmitted int `json:"response_omitted,omitempty"`
	OmissionsListed int `json:"omissions_listed,omitempty"`
	EdgesExamined   int `json:"edges_examined"`
}

// RequestEcho is the request as the capsule repeats it: the task text is bound by
// request_hash, not repeated, so that a long task does not spend the budget.
type RequestEcho struct {
	Kind        string `json:"kind"`
	TaskChars   int    `json:"task_chars"`
	FocusNodeID string `json:"focus_node_id,omitempty"`
}

// Capsule is a complete task context: the header every page repeats and the immutable
// stream (selected evidence, then token-limit omissions) that pages partition.
type Capsule struct {
	Version int `json:"capsule_version"`
	// Request repeats the request; a tight capsule leaves it out (request_hash binds it).
	Request     *RequestEcho `json:"request,omitempty"`
	RequestHash string       `json:"request_hash,omitempty"`
	// Plan is the derived plan; a budget too small for it carries plan_hash alone, with
	// PlanOmitted set (the plan is derived from the request, so it can be derived again).
	Plan        *Plan `json:"plan,omitempty"`
	PlanOmitted bool  `json:"plan_omitted,omitempty"`
	// The four hashes and the binding are on every page, however small: they are the
	// capsule's identity and what it is bound to.
	PlanHash       string  `json:"plan_hash,omitempty"`
	Binding        Binding `json:"binding,omitzero"`
	CollectionHash string  `json:"collection_hash,omitempty"`
	CapsuleHash    string  `json:"capsule_hash"`
	Budget         Budget  `json:"budget"`
	Counts         Counts  `json:"counts,omitzero"`
	// FocusTerms and FocusMatch say, for a lexical focus, how common each term is, which
	// terms the ranking used, and how it matched ("any", "all" or "too_common"). A budget
	// too small for the plan leaves the terms out too.
	FocusTerms []index.TermUse `json:"focus_terms,omitempty"`
	FocusMatch string          `json:"focus_match,omitempty"`
	Gaps       []Gap           `json:"gaps"`

	// Stream is the JSON of each stream entry; IDs their node IDs.
	Stream []json.RawMessage `json:"-"`
	IDs    []string          `json:"-"`
	// FullPlan is the plan whether or not the response carries it; Identity likewise the
	// header's hashes and binding.
	FullPlan Plan     `json:"-"`
	Identity Identity `json:"-"`
}

// Identity is what a capsule is bound to and built from, whatever its response carries.
type Identity struct {
	RequestHash, PlanHash, CollectionHash string
	Binding                               Binding
}

// Build derives the plan of a normalized request, runs it on snap, and assembles the capsule.
// policyHash identifies the effective process policy the answer is given under; reserve is
// what the caller's response adds around the capsule (its envelope and page fields), in
// bytes, so that the whole response stays within the budget.
func Build(ctx context.Context, snap *index.Snapshot, r Request, policyHash string, reserve int) (*Capsule, error) {
	return BuildPaged(ctx, snap, r, policyHash, reserve, 0)
}

// BuildPaged is Build for responses of at most pageChars characters each (0: no such bound):
// Collect, then Layout.
func BuildPaged(ctx context.Context, snap *index.Snapshot, r Request, policyHash string, reserve, pageChars int) (*Capsule, error) {
	c, err := Collect(ctx, snap, nil, r, policyHash)
	if err != nil {
		return nil, err
	}
	return c.Layout(ctx, reserve, pageChars)
}

// Collected is a task's evidence, collected and ranked on one snapshot, before it is laid out
// for a budget and a page size. Layout does not change it, so it can be laid out again.
type Collected struct {
	snap   *index.Snapshot
	r      Request
	col    *collection
	header Capsule
}

// Examined is how many candidate edges the collection examined.
func (c *Collected) Examined() int { return c.col.examined }

// Collect derives the plan of a normalized request, runs it on snap (and the project's
// history, when hist is not nil), and ranks what it found.
func Collect(ctx context.Context, snap *index.Snapshot, hist *history.Store, r Request, policyHash string) (*Collected, error) {
	vocabulary, err := snap.RelationNames(ctx)
	if err != nil {
		return nil, err
	}
	plan := PlanFor(r, vocabulary)
	if hist != nil && plan.Steps[0].Mode == "lexical" {
		// The plan binds the history it reads: another head is another plan.
		plan.Steps[0].History = fmt.Sprintf("the messages of %d commits to %s", hist.Commits(), hist.Head())
		if lim := hist.Limited(); lim != "" {
			plan.Steps[0].History += "; partial: " + lim
		}
	} else {
		hist = nil
	}
	col, err := collect(ctx, snap, hist, plan, vocabulary)
	if err != nil {
		return nil, err
	}
	info := snap.Info()
	capsule := Capsule{Version: CapsuleVersion, Request: &RequestEcho{Kind: r.Kind, TaskChars: utf8.RuneCountInString(r.Task), FocusNodeID: r.FocusNodeID},
		RequestHash: hashOf("docforge.task.request.v1", r), FullPlan: plan, PlanHash: hashOf("docforge.task.plan.v1", plan),
		Binding: Binding{Generation: info.Generation, SourceHash: info.SourceHash, PolicyHash: policyHash, VocabularyHash: vocabularyHash(vocabulary)},
		Budget:  Budget{Tokens: r.Budget, Estimator: Estimator}, FocusTerms: col.terms, FocusMatch: col.mode, Gaps: col.gaps}
	if err := hydrate(ctx, snap, col); err != nil {
		return nil, err
	}
	col.rank()
	if hist != nil {
		if err := col.attachCommits(ctx, hist); err != nil {
			return nil, err
		}
	}
	capsule.Counts = Counts{Collected: len(col.items), EdgesExamined: col.examined}
	ids := make([]json.RawMessage, len(col.items))
	for i, f := range col.items {
		if f.focus >= 0 {
			capsule.Counts.Focus++
		}
		ids[i] = encode(identity(f))
	}
	capsule.CollectionHash = hashOf("docforge.task.collection.v2", struct {
		Items []json.RawMessage `json:"items"`
		Terms []index.TermUse   `json:"focus_terms"`
		Mode  string            `json:"focus_match"`
		Gaps  []Gap             `json:"gaps"`
	}{ids, col.terms, col.mode, col.gaps})
	capsule.Identity = Identity{capsule.RequestHash, capsule.PlanHash, capsule.CollectionHash, capsule.Binding}
	return &Collected{snap: snap, r: r, col: col, header: capsule}, nil
}

// Layout assembles the capsule for its token budget, to be read in responses of at most
// pageChars characters each (0: no such bound), reserve of them taken by what the caller adds
// around the capsule. Every page repeats the header, so the header goes tight when one page
// could not otherwise hold it with evidence, and an item is quoted shorter when it would not
// fit one page; what still does not fit a page is the pager's hash-identified omission.
func (c *Collected) Layout(ctx context.Context, reserve, pageChars int) (*Capsule, error) {
	snap, r, col := c.snap, c.r, c.col
	capsule := new(Capsule)
	*capsule = c.header
	capsule.Plan = &capsule.FullPlan
	capsule.Gaps = slices.Clone(c.header.Gaps)

	// The whole response must fit: the header (with the token gap that may follow) first;
	// a budget too small for the plan drops it, and the focus terms, before any evidence.
	room := r.Budget * 4
	limit := room - reserve
	// Every page repeats the header: it must fit one page, with room for evidence.
	headerRoom := limit
	if pageChars > 0 && pageChars < room {
		headerRoom = pageChars - reserve
	}
	tight := false
	headerBytes := func() int {
		// The capsule hash, the counts of what was selected and the budget used are set after
		// selection, and the cut's gap may be added: measured at their widest, so that the
		// header selection leaves room for is never smaller than the one it gets.
		counts, budget := capsule.Counts, capsule.Budget
		capsule.CapsuleHash, capsule.Budget.Used = hashPlaceholder, r.Budget
		n := len(col.items)
		capsule.Counts.Selected, capsule.Counts.OmissionsListed, capsule.Counts.TokenOmitted = n, n, n
		defer func() { capsule.CapsuleHash, capsule.Counts, capsule.Budget = "", counts, budget }()
		gap := Gap{Kind: GapIncomplete, Limit: LimitToken, Count: MaxEvidence}
		if !tight {
			gap.Detail = strings.Repeat("x", cutGapDetail)
		}
		return len(encode(capsule)) + len(encode(gap)) + 1
	}
	tight = headerBytes() > headerRoom*2/3
	if tight {
		// The plan can be derived again from the request, the gaps keep their meaning without
		// the prose that explains them, and the request and source hash are the caller's own.
		capsule.Plan, capsule.PlanOmitted, capsule.FocusTerms, capsule.FocusMatch = nil, true, nil, ""
		capsule.Request, capsule.Binding.SourceHash = nil, ""
		for i := range capsule.Gaps {
			capsule.Gaps[i].Detail = ""
		}
	}
	if over := headerBytes() - headerRoom; over > 0 && headerRoom < limit {
		return nil, problem.Errorf(problem.ResultTooLarge, "one response (max_response_chars, less any room for a cursor: %d characters) cannot hold even this capsule's header (its hashes, binding and gaps) and the envelope; raise max_response_chars by %d", pageChars, over)
	}
	avail := limit - headerBytes()
	if avail < 0 {
		least := (r.Budget*4 - avail + 3) / 4
		return nil, problem.Errorf(problem.InvalidArgument, "a budget of %d tokens cannot hold even this capsule's header (its hashes, binding and gaps); use a budget of at least %d", r.Budget, least)
	}
	sel := selector{ctx: ctx, snap: snap, col: col, terms: termSet(r.Task), files: map[string]sourceFile{},
		avail: avail, sourceBudget: int(float64(avail) * sourceShare)}
	if headerRoom < limit {
		sel.pageRoom = headerRoom - headerBytes()
	}
	if err := sel.run(); err != nil {
		return nil, err
	}
	capsule.Stream, capsule.IDs = sel.stream, sel.ids
	capsule.Counts.Selected, capsule.Counts.OmissionsListed = sel.selected, sel.pointers
	if n := len(col.items) - sel.selected; n > 0 {
		g := Gap{Kind: GapIncomplete, Limit: LimitToken, Count: n}
		capsule.Counts.TokenOmitted = n
		if !tight {
			g.Detail = fmt.Sprintf("%d items did not fit; the best %d are listed as omissions; raise budget", n, sel.pointers)
		}
		capsule.Gaps = append(capsule.Gaps, g)
	}
	if capsule.Gaps == nil {
		capsule.Gaps = []Gap{}
	}
	capsule.Budget.Used = (len(encode(capsule)) + sel.used + reserve + 3) / 4
	entryHashes := make([]string, len(capsule.Stream))
	for i, e := range capsule.Stream {
		sum := sha256.Sum256(e)
		entryHashes[i] = hex.EncodeToString(sum[:])
	}
	capsule.CapsuleHash = hashOf("docforge.task.capsule.v2", struct {
		Request    string   `json:"request_hash"`
		Plan       string   `json:"plan_hash"`
		Collection string   `json:"collection_hash"`
		Binding    Binding  `json:"binding"`
		Budget     Budget   `json:"budget"`
		Gaps       []Gap    `json:"gaps"`
		Entries    []string `json:"entries"`
	}{capsule.Identity.RequestHash, capsule.Identity.PlanHash, capsule.Identity.CollectionHash, capsule.Identity.Binding, capsule.Budget, capsule.Gaps, entryHashes})
	return capsule, nil
}

// cutGapDetail is room kept for the detail of the gap the cut adds after selection;
// hashPlaceholder stands for the capsule hash, set after the header is measured.
const (
	cutGapDetail    = 140
	hashPlaceholder = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
)

// identity is what the collection hash binds of one item: the node and its content hash, and
// how and how well the plan reached it.
func identity(f *found) any {
	return struct {
		NodeID      string    `json:"node_id"`
		ContentHash string    `json:"content_hash"`
		Focus       int       `json:"focus"`
		Score       float64   `json:"score"`
		Step        int       `json:"step"`
		Depth       int       `json:"depth"`
		Path        []PathHop `json:"path"`
		Reasons     []Reason  `json:"reasons"`
		More        int       `json:"more"`
	}{f.rec.ID, f.rec.ContentHash, f.focus, f.score, f.step, f.depth, f.path, f.reasons, f.more}
}

// hydrate reads the indexed metadata of every collected node into it. Ranking tells copies of
// a document apart by title and length: the lengths of the documents that share a title are
// read, and no other body.
func hydrate(ctx context.Context, snap *index.Snapshot, col *collection) error {
	refs := make([]index.NodeRef, len(col.items))
	for i, f := range col.items {
		refs[i] = f.ref
	}
	recs, err := snap.Hydrate(ctx, refs, func(int) int { return 0 })
	if err != nil {
		return err
	}
	titles := map[string]int{}
	for i, f := range col.items {
		f.rec = recs[i]
		if isDocument(f) {
			titles[strings.ToLower(f.rec.Title)]++
		}
	}
	var twins []*found
	for _, f := range col.items {
		if isDocument(f) && titles[strings.ToLower(f.rec.Title)] > 1 {
			twins = append(twins, f)
		}
	}
	if len(twins) == 0 {
		return nil
	}
	twinRefs := make([]index.NodeRef, len(twins))
	for k, f := range twins {
		twinRefs[k] = f.ref
	}
	withLength, err := snap.Hydrate(ctx, twinRefs, func(int) int { return 1 })
	if err != nil {
		return err
	}
	for k, f := range twins {
		f.rec.BodyChars = withLength[k].BodyChars
	}
	return nil
}

// isDocument reports whether an item is a document (not a code node).
func isDocument(f *found) bool { return !graph.IsCode(f.ref.ID) }

// provenance lists what the graph cannot prove about an item, in a fixed order. Details are
// short: docs/task-context.md says what each code means.
func provenance(f *found, it *Item) []Fact {
	facts := []Fact{}
	switch f.match {
	case "id":
		facts = append(facts, Fact{FactIDFocus, "a task word is its ID; relevance not proven"})
	case "text":
		facts = append(facts, Fact{FactLexicalFocus, fmt.Sprintf("focus %d by the task's words; relevance not proven", f.focus+1)})
	case "history":
		facts = append(facts, Fact{FactHistoryFocus, "changed by commits whose messages hold the task's words; relevance not proven"})
	}
	var declared, static, unclassified, suspect []string
	for i := 1; i < len(f.path); i++ {
		hop := f.path[i]
		if hop.Review == graph.Suspect {
			src, dst := f.path[i-1].NodeID, hop.NodeID
			if hop.Direction != outgoing {
				src, dst = dst, src
			}
			suspect = append(suspect, src+" "+hop.Relation+" "+dst)
		}
		if extracted(f.path, i) {
			static = append(static, hop.Relation)
		} else {
			declared = append(declared, hop.Relation)
		}
		if hop.Category == graph.Unclassified {
			unclassified = append(unclassified, hop.Relation)
		}
	}
	uniq := func(s []string) string {
		s = slices.Clone(s)
		slices.Sort(s)
		return strings.Join(slices.Compact(s), ", ")
	}
	if len(declared) > 0 {
		facts = append(facts, Fact{FactDeclared, uniq(declared) + " declared in documents; not verified"})
	}
	if len(static) > 0 {
		facts = append(facts, Fact{FactStatic, uniq(static) + " from code syntax; dynamic and untyped calls unseen"})
	}
	if len(suspect) > 0 {
		facts = append(facts, Fact{FactSuspect, "via " + uniq(suspect) + ", whose target changed since its review"})
	}
	if f.depth > 1 {
		facts = append(facts, Fact{FactTransitive, fmt.Sprintf("%d hops; the chain's effect is not proven", f.depth)})
	}
	if len(unclassified) > 0 {
		facts = append(facts, Fact{FactUnclassified, uniq(unclassified) + " is outside the alias map; meaning not inferred"})
	}
	if n := len([]rune(it.Excerpt)); n < it.BodyChars {
		facts = append(facts, Fact{FactExcerpt, fmt.Sprintf("%d of %d body characters", n, it.BodyChars)})
	}
	if f.more > 0 {
		facts = append(facts, Fact{FactReasonsTruncated, fmt.Sprintf("%d more relations", f.more)})
	}
	return facts
}

// estimate is the token estimator: see Estimator.
func estimate(it *Item) int {
	it.Tokens = 0
	return (len(encode(it)) + 3) / 4
}

// encode is the compact JSON of a value that always encodes (plain structs of strings,
// numbers and slices).
func encode(v any) json.RawMessage {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("taskcontext: encode %T: %v", v, err))
	}
	return body
}

// hashOf is the domain-separated SHA-256 of a value's JSON.
func hashOf(domain string, v any) string { return graph.DomainHash(domain, v) }
