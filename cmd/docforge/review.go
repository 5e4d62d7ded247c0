package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/changeset"
)

const reviewHelp = `Confirm that the documents IDs still hold for what they point at: every relation of each
node gets a review stamp of its target's current content hash, written into the node's
front matter (or record) under [stamps]. Read what changed first: 'docforge validate' and
'docforge drift' list suspect relations with what changed (signature, body, file).

Re-stamps suspect relations, stamps relations never reviewed, and drops stamps that name
no relation of the node. Nothing else in the file changes, and a file edited meanwhile is
left alone. --dry-run says what it would do and writes nothing.`

const stampHelp = `Stamp every relation of every document node that has never been reviewed: once, when
DocForge is adopted on an existing project, so that from then on a change to a target
marks the relations to it suspect. Stamped relations are left as they are: a suspect one
stays suspect until 'docforge review NODE' (a person who read it) confirms it, unless
--confirm-suspect re-stamps those too.`

const driftHelp = `Print, per document, how many of its relations are confirmed, suspect (the target changed
since the stamp), dangling (the target is gone) and never reviewed, worst first. Reads the
sources; writes nothing.`

func runReview(e *env) error {
	return confirm(e, e.args, changeset.ConfirmOptions{Suspect: true, Drop: true, DryRun: e.dryRun})
}

func runStamp(e *env) error {
	if !e.all {
		return usageError("docforge stamp needs --all (to confirm one node's relations after reading them, use 'docforge review NODE')")
	}
	return confirm(e, nil, changeset.ConfirmOptions{Suspect: e.confirmSuspect, DryRun: e.dryRun})
}

func confirm(e *env, ids []string, opt changeset.ConfirmOptions) error {
	_, desk, err := e.desk()
	if err != nil {
		return err
	}
	out, err := desk.Confirm(e.ctx, ids, opt)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"dry_run": opt.DryRun, "nodes": out})
	}
	printConfirmations(e.stdout, out, opt.DryRun, ids == nil)
	return nil
}

func printConfirmations(w io.Writer, cs []changeset.Confirmation, dry, quiet bool) {
	verb := "stamped"
	if dry {
		verb = "would stamp"
	}
	var nodes, stamped, unchanged, suspect, dangling, dropped int
	var unstampable []string
	for _, c := range cs {
		if c.Unstampable != "" {
			unstampable = append(unstampable, c.Path)
			continue
		}
		stamped += len(c.Stamped)
		unchanged += c.Unchanged
		suspect += len(c.Suspect)
		dangling += len(c.Dangling)
		dropped += len(c.Dropped)
		if c.Changed() {
			nodes++
		}
		if quiet && !c.Changed() && len(c.Suspect)+len(c.Dangling) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%s): %s %d, already current %d", c.NodeID, c.Path, verb, len(c.Stamped), c.Unchanged)
		if len(c.Dropped) > 0 {
			fmt.Fprintf(w, ", dropped %d without a relation (%s)", len(c.Dropped), strings.Join(c.Dropped, ", "))
		}
		fmt.Fprintln(w)
		if len(c.Suspect) > 0 {
			fmt.Fprintf(w, "  still suspect: %s (read them, then 'docforge review %s')\n", strings.Join(c.Suspect, ", "), c.NodeID)
		}
		if len(c.Dangling) > 0 {
			fmt.Fprintf(w, "  dangling, nothing to confirm: %s (fix or remove these relations)\n", strings.Join(c.Dangling, ", "))
		}
	}
	fmt.Fprintf(w, "%s %d relation targets in %d nodes; %d already current, %d left suspect, %d dangling, %d stamps dropped\n",
		verb, stamped, nodes, unchanged, suspect, dangling, dropped)
	if n := len(unstampable); n > 0 {
		shown := unstampable[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(", and %d more", n-len(shown))
		}
		fmt.Fprintf(w, "left unstamped: %d documents without front matter, which stamps would rewrite into one (%s%s); add a +++ block to review them\n",
			n, strings.Join(shown, ", "), more)
	}
}

func runDrift(e *env) error {
	v, err := e.validation()
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"documents": v.Drift})
	}
	printDrift(e.stdout, v.Drift)
	return nil
}

func printDrift(w io.Writer, ds []source.Drift) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "no document declares relations")
		return
	}
	width := len("document")
	for _, d := range ds {
		width = max(width, len(d.NodeID))
	}
	fmt.Fprintf(w, "%-*s  %7s  %8s  %9s  %9s  %10s  %s\n", width, "document", "suspect", "dangling", "relations", "confirmed", "unreviewed", "source")
	var suspect, dangling, rels, confirmed, unreviewed int
	for _, d := range ds {
		fmt.Fprintf(w, "%-*s  %7d  %8d  %9d  %9d  %10d  %s\n", width, d.NodeID, d.Suspect, d.Dangling, d.Relations, d.Confirmed, d.Unreviewed, d.SourcePath)
		suspect, dangling, rels, confirmed, unreviewed = suspect+d.Suspect, dangling+d.Dangling, rels+d.Relations, confirmed+d.Confirmed, unreviewed+d.Unreviewed
	}
	fmt.Fprintf(w, "%d documents, %d relations: %d suspect, %d dangling, %d confirmed, %d never reviewed\n",
		len(ds), rels, suspect, dangling, confirmed, unreviewed)
	if unreviewed > 0 && confirmed+suspect == 0 {
		fmt.Fprintln(w, "no relation is stamped yet: 'docforge stamp --all' stamps them all once")
	}
}
