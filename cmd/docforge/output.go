package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/graph"
	"github.com/docforge/docforge/index/problem"
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
		fmt.Fprintf(w, "    fix: %s\n", p.Remediation)
	}
}

func printSync(w io.Writer, r *index.Result) {
	g := r.Publication.Graph
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

func printSearch(w io.Writer, r *index.SearchResult) {
	if len(r.Hits) == 0 {
		fmt.Fprintf(w, "no nodes match %q\n", r.Query)
		return
	}
	for i, h := range r.Hits {
		fmt.Fprintf(w, "%2d. %s  %s  [%s/%s]  (%s", i+1, h.ID, h.Title, h.Family, h.Kind, h.Match)
		if h.Match == "text" {
			fmt.Fprintf(w, " %.2f", h.Score)
		}
		fmt.Fprintln(w, ")")
		if h.Snippet != "" {
			fmt.Fprintf(w, "    %s\n", h.Snippet)
		}
	}
	if r.Truncated {
		fmt.Fprintf(w, "(more results: raise --limit, at most the project's max_results)\n")
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
		fmt.Fprintf(w, "  -> %s %s  (%s)\n", l.Relation, l.NodeID, l.Title)
	}
	for _, l := range v.Incoming {
		fmt.Fprintf(w, "  <- %s %s  (%s)\n", l.Relation, l.NodeID, l.Title)
	}
	if v.IncomingTruncated {
		fmt.Fprintln(w, "  <- ... more: use 'docforge backlinks'")
	}
	if body := strings.TrimSpace(v.Body); body != "" {
		fmt.Fprintf(w, "\n%s\n", body)
	}
}

func printNodeList(w io.Writer, l *index.NodeList) {
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
		fmt.Fprintf(w, "(truncated at %d: raise --limit or narrow the filter)\n", l.Limit)
	}
}

func printLinks(w io.Writer, l *index.LinkList, arrow string) {
	if len(l.Links) == 0 {
		fmt.Fprintf(w, "%s has none\n", l.NodeID)
		return
	}
	for _, k := range l.Links {
		fmt.Fprintf(w, "%s %s %s  %s  [%s/%s]\n", arrow, k.Relation, k.NodeID, k.Title, k.Family, k.Kind)
	}
	if l.Truncated {
		fmt.Fprintf(w, "(truncated at %d: raise --limit)\n", l.Limit)
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
		fmt.Fprintf(w, "%d  %s  %s  (%s)\n", h.Depth, h.ID, h.Title, rel)
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
