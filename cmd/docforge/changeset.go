package main

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"slices"
	"strings"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
)

const changesetHelp = `Review the changesets agents proposed (they live under [proposals].changeset_root).
  list                 draft and ready changesets (--status stale|applied|abandoned|open|all)
  show ID              header, exact hash, lifecycle receipts and every operation
  validate ID          project onto the current sources and run the full validation (exit 1 if not valid)
  diff ID              per-node unified diffs of fields and body, relation additions and removals
  preview ID --view V  render view V with the changeset applied into [proposals].preview_root
  abandon ID           close an open changeset (--reason); its receipts are kept
  apply ID --hash H    write a reviewed changeset into the canonical files, by its exact hash,
                       as an applier declared under [[proposals.appliers]] (--applier; default
                       the only one declared)
Only apply writes canonical files; it runs no command, shell, Git or build.`

func runChangeset(e *env) error {
	sub := e.args[0]
	run, ok := changesetCommands()[sub]
	if !ok {
		return usageError("unknown changeset command %q: use list, show, validate, diff, preview, abandon or apply", sub)
	}
	needsID := sub != "list"
	if needsID != (len(e.args) == 2) {
		if needsID {
			return usageError("docforge changeset %s needs a changeset ID", sub)
		}
		return usageError("docforge changeset list takes no ID")
	}
	d, desk, err := e.desk()
	if err != nil {
		return err
	}
	id := ""
	if needsID {
		id = e.args[1]
	}
	return run(e, d, desk, id)
}

// changesetCommand runs one changeset subcommand on the changeset id ("" for list).
type changesetCommand func(e *env, d *project.Descriptor, desk *changeset.Desk, id string) error

// changesetCommands are the subcommands of docforge changeset by name.
func changesetCommands() map[string]changesetCommand {
	return map[string]changesetCommand{
		"list": func(e *env, _ *project.Descriptor, desk *changeset.Desk, _ string) error {
			return changesetList(e, desk)
		},
		"show":     changesetShow,
		"validate": changesetValidate,
		"diff":     changesetDiff,
		"preview":  changesetPreview,
		"apply":    changesetApply,
		"abandon":  changesetAbandon,
	}
}

func changesetShow(e *env, _ *project.Descriptor, desk *changeset.Desk, id string) error {
	rec, err := desk.Store.Load(id)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, rec)
	}
	printRecord(e.stdout, rec)
	return nil
}

func changesetValidate(e *env, _ *project.Descriptor, desk *changeset.Desk, id string) error {
	_, c, _, err := desk.Validate(e.ctx, id)
	if err != nil {
		return err
	}
	if e.json {
		err = e.writeJSON(e.stdout, c.Report)
	} else {
		printReport(e.stdout, c.Report)
	}
	if err == nil && !c.Report.Valid {
		return exitError(exitValidation)
	}
	return err
}

func changesetDiff(e *env, d *project.Descriptor, desk *changeset.Desk, id string) error {
	rec, err := desk.Store.Load(id)
	if err != nil {
		return err
	}
	src, err := changeset.LoadSources(e.ctx, d, e.policy())
	if err != nil {
		return err
	}
	changes := src.Changes(src.Check(rec.Changeset, nil, false))
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"changeset_id": rec.Changeset.ID, "changeset_hash": rec.Hash, "operations": rec.Changeset.Operations, "changes": changes})
	}
	printChanges(e.stdout, changes)
	return nil
}

func changesetPreview(e *env, d *project.Descriptor, _ *changeset.Desk, id string) error {
	if e.view == "" {
		return usageError("docforge changeset preview needs --view ID (declared views: %s)", viewIDs(d.Views))
	}
	res, err := worker.PreviewChangeset(e.ctx, d, e.policy(), nil, id, e.view)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d bytes, %d nodes) for %s %s\n", res.Path, res.Bytes, res.Nodes, res.ChangesetID, res.Hash)
	return nil
}

func changesetApply(e *env, d *project.Descriptor, _ *changeset.Desk, id string) error {
	applier, err := chooseApplier(d, e.applier)
	if err != nil {
		return err
	}
	if e.hash == "" {
		return usageError("docforge changeset apply needs --hash: the exact changeset_hash you reviewed ('docforge changeset show %s' prints it)", id)
	}
	res, err := worker.ApplyChangeset(e.ctx, d, e.policy(), implementation(), applier, id, e.hash)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, res)
	}
	if res.Recovery != nil {
		fmt.Fprintf(e.stdout, "first finished an interrupted application of %s: %s\n", res.Recovery.ChangesetID, res.Recovery.Action)
	}
	fmt.Fprintf(e.stdout, "%s applied by %s: %d created, %d updated, %d removed\n", res.ChangesetID, applier, len(res.Created), len(res.Updated), len(res.Removed))
	fmt.Fprintf(e.stdout, "derived state: %s (index %s)\n", res.DerivedRefresh.State, res.DerivedRefresh.Index.State)
	if res.DerivedRefresh.Remediation != "" {
		fmt.Fprintf(e.stdout, "  %s\n", res.DerivedRefresh.Remediation)
	}
	return nil
}

func changesetAbandon(e *env, _ *project.Descriptor, desk *changeset.Desk, id string) error {
	res, err := desk.AbandonAsReviewer(e.ctx, person(), id, e.reason)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, res.Record)
	}
	fmt.Fprintf(e.stdout, "%s abandoned (receipt %d kept)\n", res.Record.Changeset.ID, len(res.Record.Receipts))
	return nil
}

// chooseApplier returns the applier to act as: the one named, which must be declared, or the
// only one declared.
func chooseApplier(d *project.Descriptor, named string) (string, error) {
	ids := make([]string, len(d.Proposals.Appliers))
	for i, a := range d.Proposals.Appliers {
		ids[i] = a.ID
	}
	switch {
	case named != "" && slices.Contains(ids, named):
		return named, nil
	case named != "":
		return "", usageError("--applier %q is not declared under [[proposals.appliers]] (declared: %s)", named, strings.Join(ids, ", "))
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) == 0:
		return "", usageError("no [[proposals.appliers]] is declared in docforge.toml, so nothing may apply changesets; declare one to enable application")
	}
	return "", usageError("several appliers are declared (%s): name one with --applier", strings.Join(ids, ", "))
}

func usageError(format string, args ...any) error {
	return problem.Errorf(problem.InvalidArgument, format, args...)
}

func viewIDs(views []project.View) string {
	ids := make([]string, len(views))
	for i, v := range views {
		ids[i] = v.ID
	}
	return strings.Join(ids, ", ")
}

// person names who runs the CLI, for the audit receipt.
func person() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return fmt.Sprint(os.Getuid())
}

func changesetList(e *env, desk *changeset.Desk) error {
	recs, bad, err := desk.ListCurrent(e.ctx)
	if err != nil {
		return err
	}
	statuses := map[string][]string{"": {changeset.Draft, changeset.Ready}, "open": {changeset.Draft, changeset.Ready, changeset.Stale},
		"all": {changeset.Draft, changeset.Ready, changeset.Stale, changeset.Applied, changeset.Abandoned}}[e.states]
	if statuses == nil {
		statuses = []string{e.states}
	}
	var shown []*changeset.Record
	for _, r := range recs {
		if slices.Contains(statuses, r.Status) {
			shown = append(shown, r)
		}
	}
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"changesets": shown, "unreadable": fmt.Sprint(bad)})
	}
	if len(shown) == 0 {
		fmt.Fprintf(e.stdout, "no %s changesets\n", strings.Join(statuses, " or "))
	}
	for _, r := range shown {
		fmt.Fprintf(e.stdout, "%-28s %-9s %-10s %3d ops  %s\n", r.Changeset.ID, r.Status, r.Changeset.Writer, len(r.Changeset.Operations), visible(r.Changeset.Title))
	}
	for _, b := range bad {
		fmt.Fprintf(e.stderr, "unreadable: %v\n", b)
	}
	return nil
}

func printRecord(w io.Writer, rec *changeset.Record) {
	cs := rec.Changeset
	fmt.Fprintf(w, "%s  %s\n  title:  %s\n  writer: %s\n  hash:   %s\n", cs.ID, rec.Status, visible(cs.Title), cs.Writer, rec.Hash)
	if cs.Description != "" {
		fmt.Fprintf(w, "  %s\n", visible(cs.Description))
	}
	fmt.Fprintln(w, "receipts:")
	for _, r := range rec.Receipts {
		fmt.Fprintf(w, "  %d  %-10s %-9s -> %-9s by %s at %s %s\n", r.Seq, r.Transition, r.From, r.To, r.Actor, r.At, visible(r.Reason))
	}
	fmt.Fprintln(w, "operations:")
	for i, op := range cs.Operations {
		data, _ := changeset.Canonical(op)
		fmt.Fprintf(w, "  [%d] %s\n", i, data)
	}
}

func printReport(w io.Writer, r *changeset.Report) {
	verdict := "valid"
	if !r.Valid {
		verdict = "NOT valid"
	}
	fmt.Fprintf(w, "%s (%s): %s, %s, %s\n", r.ChangesetID, r.Status, verdict, problem.Count(r.Errors, "error"), problem.Count(r.Warnings, "warning"))
	for _, s := range r.Stale {
		fmt.Fprintf(w, "  stale: operations[%d] %s expected %s, now %s\n", s.OperationIndex, s.NodeID, s.Expected, s.Current)
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "  conflict: %s (%s) also touches %s\n", c.ChangesetID, c.Status, visible(strings.Join(append(c.Nodes, c.Paths...), ", ")))
	}
	if r.BaseErrors > 0 {
		fmt.Fprintf(w, "  note: the project already has %d errors without this changeset\n", r.BaseErrors)
	}
	printProblems(w, r.Problems)
}

func printChanges(w io.Writer, changes []changeset.Change) {
	for _, c := range changes {
		where := c.PathAfter
		if c.PathBefore != c.PathAfter && c.PathBefore != "" {
			where = c.PathBefore + " -> " + c.PathAfter
		} else if where == "" {
			where = c.PathBefore
		}
		fmt.Fprintf(w, "== %s %s (%s)\n", c.Change, c.NodeID, visible(where))
		for _, e := range c.RelationsAdded {
			fmt.Fprintf(w, "  + %s %s\n", e.Relation, visible(e.Target))
		}
		for _, e := range c.RelationsRemoved {
			fmt.Fprintf(w, "  - %s %s\n", e.Relation, visible(e.Target))
		}
		fmt.Fprint(w, visible(c.FrontMatterDiff), visible(c.BodyDiff))
	}
}

// desk opens the project's changeset desk: proposals, and the store lock every canonical
// write takes.
func (e *env) desk() (*project.Descriptor, *changeset.Desk, error) {
	d, err := e.descriptor()
	if err != nil {
		return nil, nil, err
	}
	desk, err := changeset.NewDesk(d, e.policy())
	return d, desk, err
}

// visible is text as a terminal should show it for review: control characters (but newlines
// and tabs) and invisible format characters (Unicode Cf: U+202E and the other bidirectional
// controls, zero-width characters) written out as \u{XXXX}, so that a diff cannot hide or
// reorder what it changes.
func visible(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "\\u{%04X}", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hidden(r rune) bool { return r != '\n' && r != '\t' && changeset.Unseen(r) }
