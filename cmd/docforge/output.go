package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/worker"
)

func (e *env) writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

func printProblems(w io.Writer, probs []problem.Problem) {
	for _, p := range probs {
		where := p.Location.String()
		if where == "" {
			where = "project"
		}
		fmt.Fprintf(w, "%s: %s %s: %s\n", where, p.Severity, p.Code, p.Message)
		label := "fix"
		if p.Severity == problem.SeverityInfo {
			label = "to do" // a note is DocForge's limit: often nothing
		}
		fmt.Fprintf(w, "    %s: %s\n", label, p.Remediation)
	}
}

// How much of a long problem list is printed: every error of a code up to errorsPerCode, and
// the first warningsPerCode warnings of each code. 'docforge validate' lists every one.
const (
	errorsPerCode   = 20
	warningsPerCode = 5
)

// printProblemSummary prints problems so that the errors are read first: errors grouped by
// code, most frequent first, with their counts; then warnings by code, each code's count and
// its first few. A first sync of an adopted tree can have hundreds of warnings (links to
// files outside the graph) around a handful of errors that decide whether it publishes.
func printProblemSummary(w io.Writer, probs []problem.Problem) {
	errs := problem.Errors(probs)
	warns := problem.OfSeverity(probs, problem.SeverityWarning)
	notes := problem.OfSeverity(probs, problem.SeverityInfo)
	more := false
	group := func(kind string, ps []problem.Problem, each int) {
		if len(ps) == 0 {
			return
		}
		byCode := map[problem.Code][]problem.Problem{}
		for _, p := range ps {
			byCode[p.Code] = append(byCode[p.Code], p)
		}
		codes := slices.SortedFunc(maps.Keys(byCode), func(a, b problem.Code) int {
			return cmp.Or(len(byCode[b])-len(byCode[a]), cmp.Compare(a, b))
		})
		fmt.Fprintf(w, "%s:\n", problem.Count(len(ps), kind))
		for _, c := range codes {
			list := byCode[c]
			shown := list[:min(len(list), each)]
			fmt.Fprintf(w, "  %s (%d)", c, len(list))
			if len(shown) < len(list) {
				fmt.Fprintf(w, ", the first %d:", len(shown))
				more = true
			}
			fmt.Fprintln(w)
			printProblems(indent{w}, shown)
		}
	}
	group("error", errs, errorsPerCode)
	group("warning", warns, warningsPerCode)
	group("note", notes, warningsPerCode)
	if more {
		fmt.Fprintln(w, "'docforge validate' lists every one")
	}
}

// byCode is " (code N, code M)" for counts by code, most frequent first, or "" for none.
func byCode(counts map[problem.Code]int) string {
	if len(counts) == 0 {
		return ""
	}
	codes := slices.SortedFunc(maps.Keys(counts), func(a, b problem.Code) int { return cmp.Or(counts[b]-counts[a], cmp.Compare(a, b)) })
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", c, counts[c])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// indent prefixes each line written through it with four spaces.
type indent struct{ w io.Writer }

func (in indent) Write(p []byte) (int, error) {
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) > 0 {
			b.WriteString("    ")
			b.Write(line)
		}
	}
	if _, err := in.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printSuspects lists stamped relations that are no longer confirmed, with both hashes in
// full: the problems above name them in a line each.
func printSuspects(w io.Writer, rs []source.Review) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "suspect relations (%d):\n", len(rs))
	for _, r := range rs {
		rels := strings.Join(r.Relations, ", ")
		if rels == "" {
			rels = "link"
		}
		fmt.Fprintf(w, "  %s  %s %s %s: %s\n", r.At, r.Source, rels, r.Target, r.State)
		fmt.Fprintf(w, "    stamped: %s", r.StampedHash)
		if r.StampedPath != "" {
			fmt.Fprintf(w, " (in %s)", r.StampedPath)
		}
		fmt.Fprintln(w)
		if r.State == graph.Dangling {
			fmt.Fprintf(w, "    now:     no node %s\n", r.Target)
			continue
		}
		fmt.Fprintf(w, "    now:     %s at %s\n", r.CurrentHash, r.TargetAt)
		fmt.Fprintf(w, "    changed: %s\n", strings.Join(r.Changes, "; "))
	}
}

func printSync(w io.Writer, a *worker.SyncAnswer) {
	r := a.Result
	if rec := r.Recovered; rec != nil {
		fmt.Fprintf(w, "an interrupted application of %s was %s (%d files) before the sources were read\n", rec.ChangesetID, strings.ReplaceAll(rec.Action, "_", " "), rec.Files)
	}
	var g publication.GraphState
	if r.Publication != nil {
		g = r.Publication.Graph
	}
	switch {
	case a.PublishedBy != "":
		fmt.Fprintf(w, "%s publishes this project's index: generation %d, %d nodes, %d edges\n", a.PublishedBy, r.Generation, g.NodeCount, g.EdgeCount)
		fmt.Fprintf(w, "  %s\n", a.Note)
		return
	case r.Publication == nil:
		fmt.Fprintf(w, "no publication receipt to report (build %q, generation %d)\n", r.Build, r.Generation)
		return
	}
	switch r.Build {
	case index.BuildNone:
		fmt.Fprintf(w, "index is current: generation %d, %d nodes, %d edges\n", r.Generation, g.NodeCount, g.EdgeCount)
		return
	case index.BuildReceipt:
		fmt.Fprintf(w, "index is current: generation %d (publication receipt rewritten)\n", r.Generation)
		return
	}
	s := r.Summary
	fmt.Fprintf(w, "published generation %d (%s build", r.Generation, r.Build)
	if r.Build == index.BuildIncremental {
		fmt.Fprintf(w, " of %d changed files, %d parsed", r.FilesChanged, r.FilesParsed)
	}
	fmt.Fprintf(w, ") in %s: %d nodes, %d edges\n", r.Elapsed.Round(1e6), g.NodeCount, g.EdgeCount)
	fmt.Fprintf(w, "  nodes +%d -%d ~%d, edges +%d -%d\n", s.NodesAdded, s.NodesRemoved, s.NodesChanged, s.EdgesAdded, s.EdgesRemoved)
}

func printSearch(w io.Writer, r *index.SearchResult, requested int) {
	if len(r.Hits) == 0 {
		fmt.Fprintf(w, "no nodes match %q\n", r.Query)
		return
	}
	for i, h := range r.Hits {
		fmt.Fprintf(w, "%2d. %s  %s  [%s/%s]  (%s", i+1, h.ID, h.Title, h.Family, h.Kind, h.Match)
		if h.Match == "text" {
			// Three significant digits: on a small project BM25 scores are small, and two
			// decimals would print them all as 0.00.
			fmt.Fprintf(w, " %s", strconv.FormatFloat(h.Score, 'g', 3, 64))
		}
		fmt.Fprintln(w, ")")
		if h.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", h.Snippet)
		}
	}
	if r.Truncated {
		fmt.Fprintf(w, "(more results%s)\n", limitNote(len(r.Hits), requested, "narrow the query"))
	}
}

func printNode(w io.Writer, v *index.NodeView) {
	fmt.Fprintf(w, "%s  %s\n", v.ID, v.Title)
	fmt.Fprintf(w, "  kind %s, family %s", v.Kind, v.Family)
	if v.Status != "" {
		fmt.Fprintf(w, ", status %s", v.Status)
	}
	if v.Authority != "" {
		fmt.Fprintf(w, ", authority %s", v.Authority)
	}
	fmt.Fprintln(w)
	if len(v.Tags) > 0 {
		fmt.Fprintf(w, "  tags: %s\n", strings.Join(v.Tags, ", "))
	}
	loc := fmt.Sprintf("%s:%d", v.SourcePath, v.Line)
	if v.Anchor != "" && !strings.HasPrefix(v.Anchor, "L") {
		loc += "#" + v.Anchor
	}
	fmt.Fprintf(w, "  source: %s\n  content: %s\n", loc, v.ContentHash)
	for _, l := range v.Outgoing {
		fmt.Fprintf(w, "  -> %s %s%s  (%s)%s\n", l.Relation, l.NodeID, anchorSuffix(l.Anchor), l.Title, reviewMark(l.Review, l.Changes))
	}
	for _, l := range v.Incoming {
		fmt.Fprintf(w, "  <- %s %s  (%s)%s%s\n", l.Relation, l.NodeID, l.Title, anchorNote(l.Anchor), reviewMark(l.Review, l.Changes))
	}
	if v.IncomingTruncated {
		fmt.Fprintln(w, "  <- ... more: use 'docforge backlinks'")
	}
	if body := strings.TrimSpace(v.Body); body != "" {
		fmt.Fprintf(w, "\n%s\n", body)
	}
}

func printNodeList(w io.Writer, l *index.NodeList, requested int) {
	if len(l.Nodes) == 0 {
		fmt.Fprintln(w, "no nodes match")
		return
	}
	for _, n := range l.Nodes {
		fmt.Fprintf(w, "%s  %s  [%s/%s]", n.ID, n.Title, n.Family, n.Kind)
		if n.Status != "" {
			fmt.Fprintf(w, " %s", n.Status)
		}
		fmt.Fprintln(w)
	}
	if l.Truncated {
		fmt.Fprintf(w, "(truncated at %d%s)\n", l.Limit, limitNote(l.Limit, requested, "narrow the filter"))
	}
}

// reviewMark flags a suspect relation where a relation is printed; confirmed and never
// reviewed relations print plain.
func reviewMark(review string, changes []string) string {
	if review != graph.Suspect {
		return ""
	}
	if len(changes) == 0 {
		return "  [SUSPECT: changed since reviewed]"
	}
	return "  [SUSPECT: " + strings.Join(changes, "; ") + "]"
}

func printLinks(w io.Writer, l *index.LinkList, arrow string, requested int) {
	if len(l.Links) == 0 {
		fmt.Fprintf(w, "%s has none\n", l.NodeID)
		return
	}
	for _, k := range l.Links {
		fmt.Fprintf(w, "%s %s %s  %s  [%s/%s]%s%s\n", arrow, k.Relation, k.NodeID, k.Title, k.Family, k.Kind, anchorNote(k.Anchor), reviewMark(k.Review, k.Changes))
	}
	if l.Truncated {
		fmt.Fprintf(w, "(truncated at %d%s)\n", l.Limit, limitNote(l.Limit, requested, "page with the MCP tool's cursor"))
	}
}

func printImpact(w io.Writer, r *index.ImpactResult) {
	if len(r.Nodes) == 0 {
		fmt.Fprintf(w, "nothing depends on %s\n", r.NodeID)
	}
	for _, h := range r.Nodes {
		rel := fmt.Sprintf("%s %s %s", h.ID, h.Via, h.From)
		if h.Direction == "outgoing" {
			rel = fmt.Sprintf("%s %s %s", h.From, h.Via, h.ID)
		}
		fmt.Fprintf(w, "%d  %s  %s  (%s)%s\n", h.Depth, h.ID, h.Title, rel, reviewMark(h.Review, nil))
	}
	fmt.Fprintf(w, "examined %d of at most %d candidate edges", r.EdgesExamined, r.Budget)
	if r.Truncated {
		fmt.Fprintf(w, "; truncated by %s", strings.ReplaceAll(r.TruncatedBy, "_", " "))
	}
	fmt.Fprintln(w)
}

func printLogic(w io.Writer, l *index.LogicView) {
	fmt.Fprintf(w, "%s  %s  (%s)\n", l.NodeID, l.Title, l.Source)
	byID := make(map[int]graph.Step, len(l.Steps))
	for _, s := range l.Steps {
		byID[s.ID] = s
	}
	out := map[int][]graph.LogicEdge{}
	for _, e := range l.Edges {
		out[e.From] = append(out[e.From], e)
	}
	for _, s := range l.Steps {
		label := ""
		if s.Label != "" {
			label = "  " + s.Label
		}
		fmt.Fprintf(w, "  s%-3d L%-5d %-12s%s\n", s.ID, s.Line, s.Kind, label)
		for _, e := range out[s.ID] {
			fmt.Fprintf(w, "         %-12s -> s%d %s\n", e.Kind, e.To, byID[e.To].Kind)
		}
	}
	if l.Truncated {
		fmt.Fprintln(w, "  (truncated: the function has more steps than the Logic limit)")
	}
}

func printPagination(w io.Writer, pg struct {
	Returned, Total, Position int
	HasMore                   bool   `json:"has_more"`
	NextCursor                string `json:"next_cursor"`
}) {
	switch {
	case pg.Total == 0:
		fmt.Fprint(w, "no items")
	case pg.Returned == 0:
		fmt.Fprintf(w, "no items on this page (position %d of %d)", pg.Position, pg.Total)
	default:
		fmt.Fprintf(w, "items %d-%d of %d", pg.Position+1, pg.Position+pg.Returned, pg.Total)
	}
	if pg.HasMore {
		fmt.Fprintf(w, "; next page: --cursor %s", pg.NextCursor)
	}
	fmt.Fprintln(w)
}

type pageJSON struct {
	Items     []json.RawMessage `json:"items"`
	Omissions []struct {
		Position int    `json:"position"`
		NodeID   string `json:"node_id"`
		Chars    int    `json:"chars"`
		Reason   string `json:"reason"`
	} `json:"response_omissions"`
	DiffOmissions []struct {
		Position int    `json:"position"`
		Chars    int    `json:"chars"`
		Reason   string `json:"reason"`
	} `json:"omissions"`
	ReceiptState string `json:"receipt_state"`
	Reason       string `json:"reason"`
	Pagination   *struct {
		Returned, Total, Position int
		HasMore                   bool   `json:"has_more"`
		NextCursor                string `json:"next_cursor"`
	} `json:"pagination"`
}

func printContext(w io.Writer, raw json.RawMessage) error {
	var p pageJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	for _, it := range p.Items {
		var e struct {
			Type, Title, Kind, Family, Body, Omitted string
			NodeID                                   string   `json:"node_id"`
			SourcePath                               string   `json:"source_path"`
			Reasons                                  []string `json:"reasons"`
		}
		if err := json.Unmarshal(it, &e); err != nil {
			return err
		}
		if e.Type == "omission" {
			fmt.Fprintf(w, "-- omitted %s (%s): %s\n", e.NodeID, e.Omitted, strings.Join(e.Reasons, "; "))
			continue
		}
		fmt.Fprintf(w, "== %s  %s  [%s/%s]  %s\n   %s\n", e.NodeID, e.Title, e.Family, e.Kind, e.SourcePath, strings.Join(e.Reasons, "; "))
		if body := strings.TrimSpace(e.Body); body != "" {
			fmt.Fprintf(w, "%s\n", body)
		}
		fmt.Fprintln(w)
	}
	for _, o := range p.Omissions {
		fmt.Fprintf(w, "-- %s left out of this page (%s, %d chars); get it with 'docforge get %s'\n", o.NodeID, o.Reason, o.Chars, o.NodeID)
	}
	if p.Pagination != nil {
		printPagination(w, *p.Pagination)
	}
	return nil
}

func printDiff(w io.Writer, raw json.RawMessage) error {
	var p pageJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	if p.ReceiptState != "current" {
		fmt.Fprintf(w, "receipt %s: %s\n", p.ReceiptState, p.Reason)
		return nil
	}
	if p.Pagination != nil && p.Pagination.Total == 0 {
		fmt.Fprintln(w, "the latest generation changed no node or edge")
		return nil
	}
	for _, it := range p.Items {
		var d struct {
			Type, Change string
			NodeID       string   `json:"node_id"`
			Fields       []string `json:"fields"`
			Edge         *struct {
				Source   string `json:"source_id"`
				Relation string `json:"relation"`
				Target   string `json:"target_id"`
			} `json:"edge"`
		}
		if err := json.Unmarshal(it, &d); err != nil {
			return err
		}
		mark := map[string]string{"added": "+", "removed": "-", "changed": "~"}[d.Change]
		if d.Type == "edge" && d.Edge != nil {
			fmt.Fprintf(w, "%s edge %s -%s-> %s\n", mark, d.Edge.Source, d.Edge.Relation, d.Edge.Target)
			continue
		}
		line := mark + " node " + d.NodeID
		if len(d.Fields) > 0 {
			line += " (" + strings.Join(d.Fields, ", ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	for _, o := range p.DiffOmissions {
		fmt.Fprintf(w, "-- item %d left out of this page (%s, %d chars)\n", o.Position, o.Reason, o.Chars)
	}
	if p.Pagination != nil {
		printPagination(w, *p.Pagination)
	}
	return nil
}

// taskPage is what printTaskContext reads of a task-context page.
type taskPage struct {
	Plan struct {
		Steps []taskStep
	}
	Budget struct {
		Tokens, Used int
		Estimator    string
	}
	Counts struct {
		Focus, Collected, Selected int
		TokenOmitted               int `json:"token_omitted"`
		ResponseOmitted            int `json:"response_omitted"`
		EdgesExamined              int `json:"edges_examined"`
	}
	CapsuleHash string                    `json:"capsule_hash"`
	Gaps        []taskGap                 `json:"gaps"`
	PageGaps    []struct{ Detail string } `json:"page_gaps"`
	Items       []taskItem
	Omissions   []struct {
		NodeID string `json:"node_id"`
		Chars  int
		Reason string
	} `json:"response_omissions"`
	Pagination *struct {
		Returned, Total, Position int
		HasMore                   bool   `json:"has_more"`
		NextCursor                string `json:"next_cursor"`
	}
}

type taskStep struct {
	Step              int
	Op, Purpose, Mode string
	NodeID            string `json:"node_id"`
	Direction         string
	Categories, Terms []string
	MaxDepth          int      `json:"max_depth"`
	IDCandidates      []string `json:"id_candidates"`
}

type taskItem struct {
	Type, Title, Kind, Family, Role, Excerpt, Reason string
	Signature, Source, Section                       string
	NodeID                                           string `json:"node_id"`
	SourcePath                                       string `json:"source_path"`
	Line, Depth, Tokens                              int
	SourceEnd                                        int `json:"source_end"`
	Score                                            float64
	Path                                             []struct {
		NodeID                      string `json:"node_id"`
		Relation, Direction, Review string
	}
	Reasons []struct {
		Relation, Direction string
		NodeID              string `json:"node_id"`
	} `json:"relationship_reasons"`
	Provenance []struct{ Code, Detail string }
}

type taskGap struct {
	Kind, Limit, Category, Detail string
	Categories                    []string
	Step, Count                   int
}

// printTaskContext prints one task-context page for people: the plan's steps, each evidence
// item with its path and provenance, the omissions, the gaps and the next cursor.
func printTaskContext(w io.Writer, raw json.RawMessage) error {
	var p taskPage
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	printPlan(w, p.Plan.Steps)
	fmt.Fprintf(w, "collected %d nodes (%d edges examined); %d selected in %d of %d tokens; capsule %s\n\n",
		p.Counts.Collected, p.Counts.EdgesExamined, p.Counts.Selected, p.Budget.Used, p.Budget.Tokens, p.CapsuleHash)
	for _, it := range p.Items {
		printTaskItem(w, it)
	}
	for _, o := range p.Omissions {
		fmt.Fprintf(w, "-- %s left out of this page (%s, %d chars); get it with 'docforge get %s'\n", o.NodeID, o.Reason, o.Chars, o.NodeID)
	}
	for _, g := range p.Gaps {
		printGap(w, g)
	}
	for _, g := range p.PageGaps {
		fmt.Fprintf(w, "gap (this page): %s\n", g.Detail)
	}
	if p.Pagination != nil {
		printPagination(w, *p.Pagination)
	}
	return nil
}

// printPlan prints the plan's steps, or why the page carries none.
func printPlan(w io.Writer, steps []taskStep) {
	if len(steps) == 0 {
		fmt.Fprintln(w, "plan: left out to keep within the budget (the capsule carries its hash; a larger budget shows it)")
		return
	}
	fmt.Fprintln(w, "plan:")
	for _, s := range steps {
		switch {
		case s.Op == "focus" && s.Mode == "exact":
			fmt.Fprintf(w, "  %d focus on %s\n", s.Step, s.NodeID)
		case s.Op == "focus":
			fmt.Fprintf(w, "  %d focus by the task's words: ids %v, terms %v\n", s.Step, s.IDCandidates, s.Terms)
		case s.Op == "traverse":
			fmt.Fprintf(w, "  %d follow %s %s, depth %d: %s\n", s.Step, s.Direction, strings.Join(s.Categories, ", "), s.MaxDepth, s.Purpose)
		default:
			fmt.Fprintf(w, "  %d %s: %s\n", s.Step, s.Op, s.Purpose)
		}
	}
}

// printTaskItem prints one evidence item (or a pointer to one left out for the budget).
func printTaskItem(w io.Writer, it taskItem) {
	if it.Type == "omission" {
		title := ""
		if it.Title != "" {
			title = "  " + it.Title
		}
		fmt.Fprintf(w, "-- %s%s  %s:%d  (score %.3f; content left out for the budget: 'docforge get %s')\n", it.NodeID, title, it.SourcePath, it.Line, it.Score, it.NodeID)
		return
	}
	fmt.Fprintf(w, "== %s  %s  [%s/%s]  %s:%d  (%s, score %.3f, %d tokens)\n", it.NodeID, it.Title, it.Family, it.Kind, it.SourcePath, it.Line, it.Role, it.Score, it.Tokens)
	if len(it.Path) > 1 {
		var b strings.Builder
		b.WriteString(it.Path[0].NodeID)
		for _, h := range it.Path[1:] {
			rel := h.Relation
			if h.Review == graph.Suspect {
				rel += " (suspect)"
			}
			if h.Direction == "outgoing" {
				fmt.Fprintf(&b, " -%s-> %s", rel, h.NodeID)
			} else {
				fmt.Fprintf(&b, " <-%s- %s", rel, h.NodeID)
			}
		}
		fmt.Fprintf(w, "   path: %s\n", b.String())
	}
	for _, r := range it.Reasons {
		fmt.Fprintf(w, "   also: %s %s %s\n", r.Relation, r.Direction, r.NodeID)
	}
	for _, f := range it.Provenance {
		fmt.Fprintf(w, "   ! %s: %s\n", f.Code, f.Detail)
	}
	lines := []struct {
		show bool
		text string
	}{
		{it.Signature != "", "   " + it.Signature + "\n"},
		{it.Section != "", "   section #" + it.Section + "\n"},
		{strings.TrimSpace(it.Excerpt) != "", strings.TrimSpace(it.Excerpt) + "\n"},
		{it.Source != "", fmt.Sprintf("   --- %s:%d-%d\n%s\n", it.SourcePath, it.Line, it.SourceEnd, it.Source)},
	}
	for _, l := range lines {
		if l.show {
			fmt.Fprint(w, l.text)
		}
	}
	fmt.Fprintln(w)
}

// printGap prints one gap: where in the plan, its kind, the limit or categories, the detail.
func printGap(w io.Writer, g taskGap) {
	where := ""
	if g.Step > 0 {
		where = fmt.Sprintf(" (step %d)", g.Step)
	}
	fmt.Fprintf(w, "gap%s: %s", where, g.Kind)
	if g.Limit != "" {
		fmt.Fprintf(w, " [%s limit]", g.Limit)
	}
	if cats := append([]string{g.Category}, g.Categories...); strings.Join(cats, "") != "" {
		fmt.Fprintf(w, " %s", strings.Trim(strings.Join(cats, ", "), ", "))
	}
	if g.Count > 0 {
		fmt.Fprintf(w, " (%d)", g.Count)
	}
	if g.Detail != "" {
		fmt.Fprintf(w, ": %s", g.Detail)
	}
	fmt.Fprintln(w)
}

// anchorSuffix shows the heading a link named in its target, as the link wrote it.
func anchorSuffix(anchor string) string {
	if anchor == "" {
		return ""
	}
	return "#" + anchor
}

// anchorNote says which heading of the target a link named.
func anchorNote(anchor string) string {
	if anchor == "" {
		return ""
	}
	return "  at #" + anchor
}

// limitNote says what to do about a list cut at got items, when the command asked for
// requested (0: the default): raise --limit, unless the project's max_results cut it below
// what was asked, which only docforge.toml raises.
func limitNote(got, requested int, otherwise string) string {
	if requested > got {
		return fmt.Sprintf(": --limit %d is above the project's cap of %d ([limits] max_results in docforge.toml); %s", requested, got, otherwise)
	}
	return ": raise --limit (up to the project's max_results) or " + otherwise
}
