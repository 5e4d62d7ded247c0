package worker

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/worker/protocol"
)

// ToolSpec describes one tool: what the bridge registers and how the worker runs it.
type ToolSpec struct {
	Name        string
	Description string
	InputSchema map[string]any
	ReadOnly    bool
	syncs       bool                 // a normal call: sync first and answer from a fresh snapshot
	mutates     bool                 // a proposal mutation: needs the bound writer, preflights its receipt
	preview     bool                 // writes only below preview_root
	destructive bool                 // changes canonical files (the application tool)
	corePlanner bool                 // answered by the core task planner, which a custom context provider replaces
	scan        bool                 // its work grows with the project (ranking, traversal, every source): it takes a scan lane
	validator   *jsonschema.Resolved // InputSchema, resolved for validating arguments
	group       string               // protocol.GroupRead, GroupProposal or GroupApplication: set by Tools
	run         func(c *call, args json.RawMessage) (any, error)
}

// Mutates reports whether the tool changes the changeset store.
func (t ToolSpec) Mutates() bool { return t.mutates }

// Destructive reports whether the tool changes canonical files.
func (t ToolSpec) Destructive() bool { return t.destructive }

// Proposal reports whether the tool belongs to the isolated proposal surface.
func (t ToolSpec) Proposal() bool {
	return t.mutates || t.preview || strings.Contains(t.Name, "changeset")
}

// Tools returns every tool in the contract's order, with its group: the read surface, the
// proposals, then canonical application.
func Tools() []ToolSpec {
	var all []ToolSpec
	for _, g := range []struct {
		group string
		tools []ToolSpec
	}{{protocol.GroupRead, readTools()}, {protocol.GroupProposal, proposalTools()}, {protocol.GroupApplication, []ToolSpec{applyTool()}}} {
		for _, t := range g.tools {
			t.group = g.group
			all = append(all, t)
		}
	}
	return all
}

// ToolsFor returns the tools a binding registers (protocol.Groups): the read capability mode
// registers the read surface only; every other mode adds the proposal tools (whose mutations
// still need a bound writer); the application tool exists only behind its gate.
func ToolsFor(b protocol.Binding) []ToolSpec { return forBinding(Tools(), b) }

// forBinding keeps the tools of all that b registers.
func forBinding(all []ToolSpec, b protocol.Binding) []ToolSpec {
	groups := protocol.Groups(b)
	return slices.DeleteFunc(slices.Clone(all), func(t ToolSpec) bool { return !slices.Contains(groups, t.group) })
}

// Catalog is the tools as clients see them (protocol.Tool), which the embedded catalogue of
// package protocol must equal.
func Catalog() []protocol.Tool {
	var out []protocol.Tool
	for _, t := range Tools() {
		out = append(out, protocol.Tool{Name: t.Name, Description: t.Description, Group: t.group, ReadOnly: t.ReadOnly,
			Mutates: t.mutates, Destructive: t.destructive, InputSchema: t.InputSchema})
	}
	return out
}

func readTools() []ToolSpec {
	tools := []ToolSpec{
		define(ToolSpec{Name: "docforge_bootstrap", Description: "Synchronize the index and return the fixed binding, index path, effective policy, capabilities and the session contract. Call first.",
			ReadOnly: true, syncs: true}, runBootstrap),
		define(ToolSpec{Name: "docforge_sync", Description: "Bring the disposable index up to date with the canonical sources (idempotent; never changes sources).",
			ReadOnly: true, scan: true}, runSync),
		define(ToolSpec{Name: "docforge_project_info", Description: "The project descriptor: identity, roots, families and kinds, relation vocabulary, limits, views, counts.",
			ReadOnly: true, syncs: true}, runProjectInfo),
		define(ToolSpec{Name: "docforge_get_contract", Description: "The version-1 contract of this server: tools, effective policy, capabilities, error codes, relation categories, limits.",
			ReadOnly: true, syncs: true}, runContract),
		define(ToolSpec{Name: "docforge_get_node", Description: "One node by exact ID: metadata, body, headings, and its direct relations both ways.",
			ReadOnly: true, syncs: true}, runGetNode),
		define(ToolSpec{Name: "docforge_get_logic", Description: "The possible static control paths of one function, method or constructor node (steps and edges): Go, Python, TypeScript, JavaScript, Rust, Java, C#, Kotlin, C and C++. Refused under the no-AST policy.",
			ReadOnly: true, syncs: true}, runGetLogic),
		define(ToolSpec{Name: "docforge_search", Description: "Lexical search: exact ID first, then ID prefix, then the declaration or document named exactly (before its tests and callers), then full text ranked by BM25 with snippets: identifiers match whole or by their parts (get_issue finds GetIssue), prose is stemmed, nodes holding every word come before nodes holding some, and a test's code or a change log (CHANGELOG, release notes) ranks at half its score (they repeat the words of what they test or record); a declaration copied into other files is listed once before its copies. A word ending in * matches as a prefix (of 2 letters or more). A query holds at most 1,000 characters and 32 words.",
			ReadOnly: true, scan: true, syncs: true}, runSearch),
		define(ToolSpec{Name: "docforge_filter_nodes", Description: "Nodes whose metadata matches every given field, ordered by ID.",
			ReadOnly: true, scan: true, syncs: true}, runFilter),
		define(ToolSpec{Name: "docforge_backlinks", Description: "Relations that point at a node.",
			ReadOnly: true, syncs: true}, runBacklinks),
		define(ToolSpec{Name: "docforge_dependencies", Description: "Relations a node declares (its outgoing edges).",
			ReadOnly: true, syncs: true}, runDependencies),
		define(ToolSpec{Name: "docforge_impact", Description: "Nodes a change to node_id may affect, breadth first, bounded by depth, result limit and a candidate-edge work budget; says which bound truncated it.",
			ReadOnly: true, scan: true, syncs: true}, runImpact),
		define(ToolSpec{Name: "docforge_get_context", Description: "Bounded context for a node (node_id) or a lexical query: the focus nodes with bodies, then their direct neighbours, then explicit omission evidence; paged with limit and cursor.",
			ReadOnly: true, scan: true, syncs: true}, runContext),
		define(ToolSpec{Name: "docforge_get_task_context", Description: "Evidence for one task, within a token budget that covers the whole response: a derived plan (exact or lexical focus, traversal by relation category chosen by the task kind, hydration), then evidence items ranked best first, each with source path, line span, content hash, graph path, relationship reasons, what the graph cannot prove and its content (a declaration's signature, doc comment and, for the best ranked, source lines; a document's best-matching section), then ranked pointers to more evidence and explicit gaps; paged with limit and cursor.",
			ReadOnly: true, scan: true, syncs: true, corePlanner: true}, runTaskContext),
		define(ToolSpec{Name: "docforge_validate_project", Description: "Load every source and report every problem (bounded) with file, line, column, code and remediation. Writes nothing.",
			ReadOnly: true, scan: true}, runValidate),
		define(ToolSpec{Name: "docforge_render_status", Description: "Whether each declared view's rendered page is current: by default from publication receipts and cheap file and source identities only (no parsing, no HTML, no index rebuild, no writes); deep = true re-renders in memory and compares byte for byte, still writing nothing.",
			ReadOnly: true, scan: true}, runRenderStatus),
	}
	tools = append(tools, visualizationTools()...)
	return append(tools, define(ToolSpec{Name: "docforge_get_generation_diff", Description: "Page through the latest generation-transition receipt (node and edge changes). Non-repairing: it never syncs; only a current receipt returns a page.",
		ReadOnly: true}, runGenerationDiff))
}

// The inputs of the read tools. Their JSON schemas are derived from these types (define);
// TestInputBoundsFollowTheirConstants keeps the literal bounds equal to the constants named.

// noInput is the input of a tool that takes no arguments.
type noInput struct{}

type nodeInput struct {
	NodeID string `json:"node_id" jsonschema:"the exact node ID, for example arch.store or go:example.com/m/pkg.Func"`
}

// limitInput is a result limit, capped by the project's max_results (default
// index.DefaultListLimit).
type limitInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"maximum results (default 50); capped by the project's max_results" bounds:"min=1"`
}

// validateInput bounds the problems listed, by default to max_results.
type validateInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"problems listed at most (default and cap: the project's max_results)" bounds:"min=1"`
}

type linksInput struct {
	nodeInput
	limitInput
}

type searchInput struct {
	Query string `json:"query" jsonschema:"an identifier, a name, or words describing what you look for"`
	// Limit defaults to index.DefaultSearchLimit.
	Limit int `json:"limit,omitempty" jsonschema:"maximum hits (default 20); capped by the project's max_results" bounds:"min=1"`
}

type filterInput struct {
	Family     string `json:"family,omitempty" jsonschema:"family"`
	Kind       string `json:"kind,omitempty" jsonschema:"kind"`
	Status     string `json:"status,omitempty" jsonschema:"status"`
	Authority  string `json:"authority,omitempty" jsonschema:"authority"`
	Tag        string `json:"tag,omitempty" jsonschema:"tag"`
	Language   string `json:"language,omitempty" jsonschema:"language, e.g. go"`
	Capability string `json:"capability,omitempty" jsonschema:"capability, e.g. exported"`
	limitInput
}

type impactInput struct {
	nodeInput
	Depth  int `json:"depth,omitempty" jsonschema:"levels to follow (default 3, at most 10)" bounds:"min=1,max=10"`
	Budget int `json:"budget,omitempty" jsonschema:"candidate edges to examine at most" bounds:"min=1"`
	limitInput
}

type syncInput struct {
	Rebuild    bool `json:"rebuild,omitempty" jsonschema:"build from scratch even if current"`
	TrustWatch bool `json:"trust_watch,omitempty" jsonschema:"answer at once when this worker's source watch proves nothing changed since its last sync, instead of walking the sources (ignored with rebuild)"`
}

type renderStatusInput struct {
	ViewID string `json:"view_id,omitempty" jsonschema:"one declared view; default every view"`
	Deep   bool   `json:"deep,omitempty" jsonschema:"re-render in memory and compare with the output (slower; side-effect free)"`
}

// shrinker is a result that gives up part of itself to fit the response limit: it halves what
// it lists and marks itself truncated, and reports false when nothing is left to give. fit
// asks it again until the response fits.
type shrinker interface {
	shrink() bool
}

// shrink shrinks v when it can.
func shrink(v any) bool {
	s, ok := v.(shrinker)
	return ok && s.shrink()
}

// The query results as tool results, each able to shrink: the JSON is the query's own.
type (
	searchResult struct{ *index.SearchResult }
	nodeList     struct{ *index.NodeList }
	linkList     struct{ *index.LinkList }
	impactResult struct{ *index.ImpactResult }
)

// halve keeps the first half of list, reporting false for an empty one.
func halve[T any](list *[]T) bool {
	if len(*list) == 0 {
		return false
	}
	*list = (*list)[:len(*list)/2]
	return true
}

func (r searchResult) shrink() bool {
	r.Truncated = true
	return halve(&r.Hits)
}

func (r nodeList) shrink() bool {
	r.Truncated = true
	return halve(&r.Nodes)
}

func (r linkList) shrink() bool {
	r.Truncated = true
	return halve(&r.Links)
}

func (r impactResult) shrink() bool {
	r.Truncated, r.TruncatedBy = true, "response_limit"
	return halve(&r.Nodes)
}

func (r *nodeResult) shrink() bool {
	if len(r.Body) == 0 {
		return false
	}
	r.Body, r.BodyTruncated = r.Body[:len(r.Body)/2], true
	return true
}

func (v *validation) shrink() bool {
	v.Truncated = true
	return halve(&v.Problems)
}

func (a nodeInput) check() error {
	return checkNodeID("node_id", a.NodeID)
}

// checkNodeID refuses what can be no node's ID before any lookup: empty, over the length
// bound, or outside the ID syntax (a control character, a path traversal).
func checkNodeID(field, id string) error {
	switch {
	case id == "":
		return problem.Errorf(problem.InvalidArgument, "%s is required", field)
	case len(id) > maxNodeIDBytes:
		return problem.Errorf(problem.InvalidArgument, "%s holds at most %d bytes; this one has %d", field, maxNodeIDBytes, len(id))
	case strings.IndexFunc(id, unicode.IsControl) >= 0 || !source.ValidTargetID(id):
		return problem.Errorf(problem.InvalidArgument, "%s %q is not a node ID: documentation IDs are lowercase letters, digits and . _ - / (no empty, . or .. segment), code IDs start with go:", field, id)
	}
	return nil
}

// maxNodeIDBytes bounds a node ID argument: code IDs (go: and an import path) are the longest.
const maxNodeIDBytes = 1024

// nodeResult is a node whose body may be cut to fit the response limit.
type nodeResult struct {
	*index.NodeView
	BodyTruncated bool `json:"body_truncated,omitempty"`
}

func runGetNode(c *call, a nodeInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	v, err := c.snap.Get(c.ctx, a.NodeID)
	if err != nil {
		return nil, err
	}
	return &nodeResult{NodeView: v}, nil
}

func runGetLogic(c *call, a nodeInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return c.snap.Logic(c.ctx, a.NodeID)
}

func runSearch(c *call, a searchInput) (any, error) {
	if a.Query == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "query is required")
	}
	r, err := c.snap.Search(c.ctx, a.Query, a.Limit)
	if err != nil {
		return nil, err
	}
	return searchResult{r}, nil
}

func runFilter(c *call, a filterInput) (any, error) {
	f := index.Filter{Family: a.Family, Kind: a.Kind, Status: a.Status, Authority: a.Authority, Tag: a.Tag, Language: a.Language, Capability: a.Capability}
	l, err := c.snap.FilterNodes(c.ctx, f, a.Limit)
	if err != nil {
		return nil, err
	}
	return nodeList{l}, nil
}

func runBacklinks(c *call, a linksInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	l, err := c.snap.Backlinks(c.ctx, a.NodeID, a.Limit)
	if err != nil {
		return nil, err
	}
	return linkList{l}, nil
}

func runDependencies(c *call, a linksInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	l, err := c.snap.Dependencies(c.ctx, a.NodeID, a.Limit)
	if err != nil {
		return nil, err
	}
	return linkList{l}, nil
}

func runImpact(c *call, a impactInput) (any, error) {
	if a.NodeID == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "node_id is required")
	}
	r, err := c.snap.Impact(c.ctx, a.NodeID, index.ImpactOptions{Depth: a.Depth, Limit: a.Limit, Budget: a.Budget})
	if err != nil {
		return nil, err
	}
	return impactResult{r}, nil
}

func runSync(c *call, a syncInput) (any, error) {
	trust := a.TrustWatch && !a.Rebuild
	if err := c.syncAndOpen(a.Rebuild, !trust); err != nil {
		return nil, err
	}
	defer c.done()
	switch {
	case c.follower:
		// What the publishing worker last published: this one never syncs.
		res := &index.Result{Build: index.BuildNone, Warnings: []problem.Problem{}}
		if c.snap != nil {
			res.Generation = c.snap.Info().Generation
		}
		if pub, err := publication.Read(publication.PathsFor(c.d, c.b.Policy()).Publication); err == nil {
			res.Publication = pub
		}
		return SyncAnswer{Result: res, PublishedBy: c.publishedBy, Note: followNote}, nil
	case c.sync == nil && c.walkSkipped():
		// The watch proved the published index current: no walk, no build.
		pub, err := publication.Read(publication.PathsFor(c.d, c.b.Policy()).Publication)
		if err != nil {
			return nil, fmt.Errorf("read the publication receipt: %w", err)
		}
		return (&index.Result{Build: index.BuildNone, Generation: pub.Graph.Generation, Publication: pub, Warnings: []problem.Problem{}}), nil
	case c.sync == nil:
		return map[string]any{"build": "failed", "note": "validation errors; the previous generation stays published"}, nil
	}
	return c.sync, nil
}

// SyncAnswer is docforge_sync's answer: the sync's outcome, and from a worker that follows
// another's publication, who that is and what to do about it.
type SyncAnswer struct {
	*index.Result
	PublishedBy string `json:"published_by,omitempty"`
	Note        string `json:"note,omitempty"`
}

// followNote says what a follower's sync did and how to have this worker publish instead.
const followNote = "this worker follows that one's publication and never syncs itself; that worker keeps the index current. " +
	"It runs under another manager (one started with another XDG_RUNTIME_DIR, often by an MCP host); " +
	"to have this manager's worker publish, stop that manager ('docforge manager stop' with its XDG_RUNTIME_DIR) or end that pid"

// validation is the validate_project result.
type validation struct {
	Valid    bool `json:"valid"`
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	// Notes count the info problems: what DocForge could not read, not what to fix.
	Notes     int               `json:"notes"`
	Sources   int               `json:"sources"`
	Problems  []problem.Problem `json:"problems"`
	Truncated bool              `json:"truncated"`
	// SuspectRelations are the stamped relations that are no longer confirmed: suspect (the
	// target changed since the stamp) or dangling (it is gone), bounded like problems.
	SuspectRelations          []source.Review `json:"suspect_relations"`
	SuspectRelationsTruncated bool            `json:"suspect_relations_truncated,omitempty"`
}

func runValidate(c *call, a validateInput) (any, error) {
	found, err := source.Validate(c.ctx, c.d, c.b.Policy(), 0)
	if err != nil {
		return nil, err
	}
	probs := found.Problems
	v := &validation{Sources: len(found.Inventory.Files), Problems: []problem.Problem{}, SuspectRelations: []source.Review{}}
	for _, p := range probs {
		switch p.Severity {
		case problem.SeverityError:
			v.Errors++
		case problem.SeverityWarning:
			v.Warnings++
		default:
			v.Notes++
		}
	}
	v.Valid = v.Errors == 0
	limit := min(max(a.Limit, 0), c.d.Limits.MaxResults)
	if limit == 0 {
		limit = c.d.Limits.MaxResults
	}
	v.Problems = append(v.Problems, probs[:min(len(probs), limit)]...)
	v.Truncated = len(probs) > limit
	suspects := source.Unconfirmed(found.Reviews)
	v.SuspectRelations = append(v.SuspectRelations, suspects[:min(len(suspects), limit)]...)
	v.SuspectRelationsTruncated = len(suspects) > limit
	// Validation reads the sources themselves; the protocol.Envelope reports the published index.
	if pub, err := publication.Read(publication.PathsFor(c.d, c.b.Policy()).Publication); err == nil {
		c.env.Revision, c.env.SourceHash = pub.Graph.Generation, pub.Graph.SourceHash
		if st, err := index.CheckStatus(c.ctx, c.d, c.b.Policy(), c.watchedIdentity(c.d)); err == nil {
			c.env.Staleness = st.State
		}
	}
	return v, nil
}

func runProjectInfo(c *call, _ noInput) (any, error) {
	d := c.d
	families := map[string][]string{}
	for _, name := range d.FamilyNames() {
		families[name] = d.Families[name].Kinds
	}
	info := c.snap.Info()
	return map[string]any{
		"id": d.Project.ID, "name": d.Project.Name, "root": d.Root,
		"content_roots": d.Sources.ContentRoots, "code_roots": d.Sources.CodeRoots, "exclude": d.Sources.Exclude,
		"relations": d.Relations.Allowed, "authorities": d.Authority.Allowed, "families": families,
		"limits": d.Limits, "views": d.Views, "node_count": info.NodeCount, "edge_count": info.EdgeCount,
		"index_path": filepath.ToSlash(publication.PathsFor(d, c.b.Policy()).Index),
	}, nil
}

// renderStatus is the result of docforge_render_status.
type renderStatus struct {
	Renderer string              `json:"renderer"`
	Deep     bool                `json:"deep"`
	State    string              `json:"state"` // the least current view's state
	Views    []render.ViewStatus `json:"views"`
}

func runRenderStatus(c *call, a renderStatusInput) (any, error) {
	req := render.StatusRequest{ViewID: a.ViewID, Deep: a.Deep}
	// With the watch's proof that nothing changed since the index was proven current, the
	// sources' identity is the published one: no stat walk. Otherwise Status walks.
	if info, ok := c.watched(c.d); ok {
		req.SourceIdentity = info.SourceIdentity
		c.env.Revision, c.env.SourceHash, c.env.Staleness = info.Generation, info.SourceHash, publication.Current
	}
	rep, err := render.Status(c.ctx, c.d, c.b.Policy(), req)
	if err != nil {
		return nil, err
	}
	if req.SourceIdentity == "" {
		// The protocol.Envelope reports the published index against the identity just walked.
		if pub, err := publication.Read(publication.PathsFor(c.d, c.b.Policy()).Publication); err == nil {
			c.env.Revision, c.env.SourceHash, c.env.Staleness = pub.Graph.Generation, pub.Graph.SourceHash, publication.Stale
			if pub.Graph.SourceIdentity == rep.SourceIdentity {
				c.env.Staleness = publication.Current
			}
		}
	}
	views := rep.Views
	out := &renderStatus{Renderer: render.HTML.ID(), Deep: a.Deep, State: render.Current, Views: views}
	rank := map[string]int{render.Current: 0, render.Stale: 1, render.Missing: 2, render.Unverified: 3}
	for _, v := range views {
		if rank[v.State] > rank[out.State] {
			out.State = v.State
		}
	}
	if len(views) == 0 {
		out.State = render.Unverified
	}
	return out, nil
}
