package main

import (
	"fmt"
	"strings"

	"github.com/docforge/docforge/index"
)

// target is one figure the foundation issue sets a bound on.
type target struct {
	name  string
	nodes int // the project size the target applies to
	bound float64
	unit  string
	value func(r report) float64
}

var targets = []target{
	{"cold sync", 100000, 12000, "ms", func(r report) float64 { return r.ColdMs }},
	{"no-change identity check", 10000, 10, "ms", func(r report) float64 { return r.NoChangeMs }},
	{"one-file edit republished by a worker", 10000, 40, "ms", func(r report) float64 { return r.WorkerEditMs }},
	{"one-file edit republished by a worker", 100000, 150, "ms", func(r report) float64 { return r.WorkerEditMs }},
	{"one-file edit republished without a watch", 100000, 300, "ms", func(r report) float64 { return r.EditMs }},
	{"bytes written per one-file edit", 100000, 1, "MB", func(r report) float64 { return r.EditWrittenMB }},
	{"search p50", 100000, 5, "ms", func(r report) float64 { return r.SearchP50Ms }},
	{"impact depth-3 p50", 100000, 20, "ms", func(r report) float64 { return r.ImpactP50Ms }},
	{"peak RSS", 100000, 400, "MiB", func(r report) float64 { return r.PeakRSSMiB }},
}

// markdown renders the figures and the target check as Markdown tables.
func markdown(reps []report) string {
	var b strings.Builder
	if len(reps) == 0 {
		return ""
	}
	fmt.Fprintf(&b, "Machine: %s\n\n", reps[0].Machine)
	b.WriteString("| nodes | edges | index MiB | cold sync ms | no-change ms | one-file edit ms (republished; whole sync) | search p50 / p95 ms | common-term search p50 / p95 ms | impact d3 p50 / p95 ms (nodes reached) | peak RSS MiB (Go runtime) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %d | %.0f | %.0f (median of %d) | %.2f (median of %d) | %.1f; %.1f (median of %d) | %.2f / %.2f (%d queries) | %.2f / %.2f | %.2f / %.2f (%.0f) | %.0f (%.0f) |\n",
			r.Nodes, r.Edges, r.IndexMiB, r.ColdMs, r.ColdRuns, r.NoChangeMs, r.NoChangeRuns, r.EditMs, r.EditTotalMs, r.EditRuns,
			r.SearchP50Ms, r.SearchP95Ms, r.Searches, r.CommonP50Ms, r.CommonP95Ms, r.ImpactP50Ms, r.ImpactP95Ms, r.ImpactNodes, r.PeakRSSMiB, r.GoSysMiB)
	}
	b.WriteString("\nThe same edits as a worker syncs them (its watch names the folder; it remembers what it published), and an edit followed by a call to the real worker service, answered with the edit:\n\n| nodes | edit republished ms | whole sync ms | edit, then the call answered ms | syncs that listed only the folder |\n|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.1f | %d |\n", r.Nodes, r.WorkerEditMs, r.WorkerEditTotalMs, r.WorkerCallMs, r.WorkerRescans)
	}
	b.WriteString("\nBytes written by one one-file edit's sync (median, MB; the process's write-side I/O, /proc/self/io wchar):")
	for _, r := range reps {
		fmt.Fprintf(&b, " %.2f MB at %d nodes;", r.EditWrittenMB, r.Nodes)
	}
	b.WriteString("\n\nThe queries above ran over the deltas the edits published; then those deltas were merged into a new base (index.Merge) and the queries ran again:\n\n| nodes | deltas | open p50 ms over them | merge ms | merge MB written | peak RSS MiB after the merge | open p50 ms | search p50 ms | common-term search p50 ms | impact d3 p50 ms |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %d | %.2f | %.0f | %.1f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", r.Nodes, r.QueryDeltas, r.OpenP50Ms, r.MergeMs, r.MergeWrittenMB, r.MergePeakRSSMiB,
			r.MergedOpenP50Ms, r.MergedSearchP50Ms, r.MergedCommonP50Ms, r.MergedImpactP50Ms)
	}
	b.WriteString(toolsMarkdown(reps))
	for _, r := range reps {
		if rows := sessionMarkdown(fmt.Sprintf("%d nodes", r.Nodes), r.SessionPaused, r.SessionNoPauses); rows != "" {
			b.WriteString("\nEdit sessions through a running worker (bytes: the process's write-side I/O, /proc/self/io wchar, the edited sources left out; queries after the session, then after a merge into a new base):\n\n| figure | measured | target | met |\n|---|---|---|---|\n" + rows)
		}
	}
	b.WriteString("\nWhere the time goes (median ms per phase):\n\n| nodes | sync | phases |\n|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | cold | %s |\n| %d | one-file edit, without a watch | %s |\n| %d | one-file edit, by a worker | %s |\n",
			r.Nodes, phaseList(r.ColdPhases), r.Nodes, phaseList(r.EditPhases), r.Nodes, phaseList(r.WorkerEditPhases))
	}
	b.WriteString("\n| target | at | bound | measured | met |\n|---|---|---|---|---|\n")
	for _, t := range targets {
		for _, r := range reps {
			if r.Nodes != t.nodes {
				continue
			}
			v := t.value(r)
			met := "yes"
			if v > t.bound {
				met = "**no**"
			}
			fmt.Fprintf(&b, "| %s | %d nodes | %g %s | %.2f %s | %s |\n", t.name, t.nodes, t.bound, t.unit, v, t.unit, met)
		}
	}
	return b.String()
}

func phaseList(ts []index.Timing) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%s %.1f", t.Phase, t.Ms))
	}
	return strings.Join(parts, ", ")
}
