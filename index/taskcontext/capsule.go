package taskcontext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/graph"
)

// CapsuleVersion is the version of the capsule layout.
const CapsuleVersion = 1

// Estimator names the one token estimator: a token per four bytes of an item's compact JSON
// encoding (with its tokens field zero), rounded up. It needs no model tokenizer, so every
// server and client computes the same figure; for English prose and JSON it runs a little
// above common tokenizers, which errs towards staying inside a model's real budget.
const Estimator = "json_bytes_div_4.v1"

// Item is one evidence item of the stream.
type Item struct {
	Type        string    `json:"type"` // "evidence"
	NodeID      string    `json:"node_id"`
	Title       string    `json:"title"`
	Kind        string    `json:"kind"`
	Family      string    `json:"family"`
	Status      string    `json:"status,omitempty"`
	Authority   string    `json:"authority,omitempty"`
	Language    string    `json:"language,omitempty"`
	SourcePath  string    `json:"source_path"`
	Anchor      string    `json:"anchor,omitempty"`
	Line        int       `json:"line,omitempty"`
	ContentHash string    `json:"content_hash"`
	Role        string    `json:"role"` // "focus" or "related"
	Step        int       `json:"step"`
	Depth       int       `json:"depth"`
	Path        []PathHop `json:"path"`
	Reasons     []Reason  `json:"relationship_reasons"`
	ReasonsMore int       `json:"relationship_reasons_omitted,omitempty"`
	Provenance  []Fact    `json:"provenance"`
	Excerpt     string    `json:"excerpt"`
	BodyChars   int       `json:"body_chars"`
	Tokens      int       `json:"tokens"`
}

// Omitted is a collected item the token budget left out: enough to fetch it directly.
type Omitted struct {
	Type        string `json:"type"` // "omission"
	NodeID      string `json:"node_id"`
	ContentHash string `json:"content_hash"`
	SourcePath  string `json:"source_path"`
	Role        string `json:"role"`
	Step        int    `json:"step"`
	Depth       int    `json:"depth"`
	Tokens      int    `json:"tokens"`
	ItemHash    string `json:"item_hash"`
	Reason      string `json:"reason"` // "token_limit"
}

// Binding is what a capsule is bound to besides its request and plan.
type Binding struct {
	Generation     int64  `json:"generation"`
	SourceHash     string `json:"source_hash"`
	PolicyHash     string `json:"policy_hash"`
	VocabularyHash string `json:"relation_vocabulary_hash"`
}

// Budget reports the token budget and its use.
type Budget struct {
	Tokens    int    `json:"tokens"`
	Used      int    `json:"used"`
	Estimator string `json:"estimator"`
}

// Counts summarize the collection and the capsule.
type Counts struct {
	Focus         int `json:"focus"`
	Collected     int `json:"collected"`
	Selected      int `json:"selected"`
	TokenOmitted  int `json:"token_omitted"`
	EdgesExamined int `json:"edges_examined"`
}

// Capsule is a complete task context: the header every page repeats and the immutable
// stream (selected evidence, then token-limit omissions) that pages partition.
type Capsule struct {
	Version        int     `json:"capsule_version"`
	Request        Request `json:"request"`
	RequestHash    string  `json:"request_hash"`
	Plan           Plan    `json:"plan"`
	PlanHash       string  `json:"plan_hash"`
	Binding        Binding `json:"binding"`
	CollectionHash string  `json:"collection_hash"`
	CapsuleHash    string  `json:"capsule_hash"`
	Budget         Budget  `json:"budget"`
	Counts         Counts  `json:"counts"`
	// FocusTerms and FocusMatch say, for a lexical focus, how common each term is, which
	// terms the ranking used, and how it matched ("any", "all" or "too_common").
	FocusTerms []index.TermUse `json:"focus_terms,omitempty"`
	FocusMatch string          `json:"focus_match,omitempty"`
	Gaps       []Gap           `json:"gaps"`

	// Stream is the JSON of each stream entry; IDs their node IDs.
	Stream []json.RawMessage `json:"-"`
	IDs    []string          `json:"-"`
}

// Build derives the plan of a normalized request, runs it on snap, and assembles the capsule.
// policyHash identifies the effective process policy the answer is given under.
func Build(ctx context.Context, snap *index.Snapshot, r Request, policyHash string) (*Capsule, error) {
	vocabulary, err := snap.RelationNames(ctx)
	if err != nil {
		return nil, err
	}
	plan := PlanFor(r, vocabulary)
	col, err := collect(ctx, snap, plan, vocabulary)
	if err != nil {
		return nil, err
	}
	info := snap.Info()
	capsule := &Capsule{Version: CapsuleVersion, Request: r, RequestHash: hashOf("docforge.task.request.v1", r),
		Plan: plan, PlanHash: hashOf("docforge.task.plan.v1", plan),
		Binding: Binding{Generation: info.Generation, SourceHash: info.SourceHash, PolicyHash: policyHash, VocabularyHash: vocabularyHash(vocabulary)},
		Budget:  Budget{Tokens: r.Budget, Estimator: Estimator}, FocusTerms: col.terms, FocusMatch: col.mode, Gaps: col.gaps}
	items, err := hydrate(ctx, snap, col)
	if err != nil {
		return nil, err
	}
	capsule.Counts = Counts{Collected: len(items), EdgesExamined: col.examined}
	full := make([]json.RawMessage, len(items))
	for i := range items {
		if items[i].Role == "focus" {
			capsule.Counts.Focus++
		}
		full[i] = encode(&items[i])
	}
	capsule.CollectionHash = hashOf("docforge.task.collection.v1", struct {
		Items []json.RawMessage `json:"items"`
		Terms []index.TermUse   `json:"focus_terms"`
		Mode  string            `json:"focus_match"`
		Gaps  []Gap             `json:"gaps"`
	}{full, col.terms, col.mode, col.gaps})

	// Token budgeting: in collection order, every item that fits what is left is selected;
	// one that does not is omitted and the next is tried, so one large item cannot starve
	// the smaller ones behind it.
	var omitted []json.RawMessage
	var omittedIDs []string
	for i, it := range items {
		if capsule.Budget.Used+it.Tokens <= r.Budget {
			capsule.Budget.Used += it.Tokens
			capsule.Stream, capsule.IDs = append(capsule.Stream, full[i]), append(capsule.IDs, it.NodeID)
			continue
		}
		sum := sha256.Sum256(full[i])
		omitted = append(omitted, encode(&Omitted{Type: "omission", NodeID: it.NodeID, ContentHash: it.ContentHash, SourcePath: it.SourcePath,
			Role: it.Role, Step: it.Step, Depth: it.Depth, Tokens: it.Tokens, ItemHash: "sha256:" + hex.EncodeToString(sum[:]), Reason: "token_limit"}))
		omittedIDs = append(omittedIDs, it.NodeID)
	}
	capsule.Counts.Selected, capsule.Counts.TokenOmitted = len(capsule.Stream), len(omitted)
	if len(omitted) > 0 {
		capsule.Gaps = append(capsule.Gaps, Gap{Kind: GapIncomplete, Limit: LimitToken, Count: len(omitted),
			Detail: fmt.Sprintf("%d collected items did not fit the %d-token budget; they follow the evidence as omissions (raise budget, or fetch one with docforge_get_node)", len(omitted), r.Budget)})
	}
	capsule.Stream, capsule.IDs = append(capsule.Stream, omitted...), append(capsule.IDs, omittedIDs...)
	if capsule.Gaps == nil {
		capsule.Gaps = []Gap{}
	}
	entryHashes := make([]string, len(capsule.Stream))
	for i, e := range capsule.Stream {
		sum := sha256.Sum256(e)
		entryHashes[i] = hex.EncodeToString(sum[:])
	}
	capsule.CapsuleHash = hashOf("docforge.task.capsule.v1", struct {
		Request    string   `json:"request_hash"`
		Plan       string   `json:"plan_hash"`
		Collection string   `json:"collection_hash"`
		Binding    Binding  `json:"binding"`
		Budget     Budget   `json:"budget"`
		Gaps       []Gap    `json:"gaps"`
		Entries    []string `json:"entries"`
	}{capsule.RequestHash, capsule.PlanHash, capsule.CollectionHash, capsule.Binding, capsule.Budget, capsule.Gaps, entryHashes})
	return capsule, nil
}

// hydrate reads the collected nodes' metadata and excerpts and states their provenance.
func hydrate(ctx context.Context, snap *index.Snapshot, col *collection) ([]Item, error) {
	refs := make([]index.NodeRef, len(col.items))
	for i, f := range col.items {
		refs[i] = f.ref
	}
	recs, err := snap.Hydrate(ctx, refs, func(i int) int {
		if col.items[i].focus >= 0 {
			return focusExcerpt
		}
		return relatedExcerpt
	})
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(recs))
	for i, h := range recs {
		f := col.items[i]
		it := Item{Type: "evidence", NodeID: h.ID, Title: h.Title, Kind: h.Kind, Family: h.Family, Status: h.Status, Authority: h.Authority,
			Language: h.Language, SourcePath: h.SourcePath, Anchor: h.Anchor, Line: h.Line, ContentHash: h.ContentHash,
			Role: "related", Step: f.step, Depth: f.depth, Path: f.path, Reasons: f.reasons, ReasonsMore: f.more,
			Excerpt: h.Excerpt, BodyChars: h.BodyChars}
		if f.focus >= 0 {
			it.Role, it.Path = "focus", []PathHop{{NodeID: h.ID}}
		}
		if it.Reasons == nil {
			it.Reasons = []Reason{}
		}
		it.Provenance = provenance(f, &it)
		it.Tokens = estimate(&it)
		items[i] = it
	}
	return items, nil
}

// provenance lists what the graph cannot prove about an item, in a fixed order.
func provenance(f *found, it *Item) []Fact {
	facts := []Fact{}
	switch f.match {
	case "id":
		facts = append(facts, Fact{FactIDFocus, "a word of the task is this node's exact ID; that the task is about it is not proven"})
	case "text":
		facts = append(facts, Fact{FactLexicalFocus, fmt.Sprintf("chosen by BM25 over the task's terms (focus rank %d; focus_terms lists the terms used); relevance to the task is not proven", f.focus+1)})
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
		if hop.Category == Unclassified {
			unclassified = append(unclassified, hop.Relation)
		}
	}
	uniq := func(s []string) string {
		s = slices.Clone(s)
		slices.Sort(s)
		return strings.Join(slices.Compact(s), ", ")
	}
	if len(declared) > 0 {
		facts = append(facts, Fact{FactDeclared, "the path's " + uniq(declared) + " relations are declared in project documents: their targets exist, the claims are not verified"})
	}
	if len(static) > 0 {
		facts = append(facts, Fact{FactStatic, "the path's " + uniq(static) + " relations were extracted statically from Go syntax: calls through interfaces, function values or reflection are not seen"})
	}
	if len(suspect) > 0 {
		facts = append(facts, Fact{FactSuspect, "reached through " + uniq(suspect) + ", whose target changed since a person last confirmed the relation (its review stamp): the document's claim may no longer hold"})
	}
	if f.depth > 1 {
		facts = append(facts, Fact{FactTransitive, fmt.Sprintf("reached through %d relations; each is stored, that the focus affects this node through the chain is not proven", f.depth)})
	}
	if len(unclassified) > 0 {
		facts = append(facts, Fact{FactUnclassified, "the path uses " + uniq(unclassified) + ", outside the version-1 alias map: kept raw, its meaning is not inferred"})
	}
	if n := len([]rune(it.Excerpt)); n < it.BodyChars {
		facts = append(facts, Fact{FactExcerpt, fmt.Sprintf("the excerpt is the first %d of %d body characters; docforge_get_node returns the rest", n, it.BodyChars)})
	}
	if f.more > 0 {
		facts = append(facts, Fact{FactReasonsTruncated, fmt.Sprintf("%d more qualifying relations are not listed", f.more)})
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
