package changeset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/source/project"
)

// Canonical application. The applier writes the projected files into the content roots
// behind a write-ahead journal: the original bytes of every file it will touch are saved and
// the journal is durable before the first canonical write. It then reloads the sources from
// disk and checks that they reproduce the approved projection node for node; on any
// mismatch it restores every file. The applied receipt, bound to the reviewed hash, is the
// commit point: a journal found at the next start is rolled forward when that receipt
// exists and back when it does not.

// journal is the write-ahead record of one application in progress.
type journal struct {
	SchemaVersion int            `json:"schema_version"`
	ChangesetID   string         `json:"changeset_id"`
	Hash          string         `json:"changeset_hash"`
	Files         []journalEntry `json:"files"`
}

type journalEntry struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Mode    uint32 `json:"mode,omitempty"`
	Before  string `json:"before_hash,omitempty"`
	After   string `json:"after_hash,omitempty"` // "" when the file is removed
}

// Application is the canonical outcome of an application.
type Application struct {
	Record   *Record   `json:"record"`
	Created  []string  `json:"created"`
	Updated  []string  `json:"updated"`
	Removed  []string  `json:"removed"`
	Recovery *Recovery `json:"recovery,omitempty"` // an earlier interrupted application found first
}

// Recovery says what was done with an interrupted application's journal.
type Recovery struct {
	ChangesetID string `json:"changeset_id"`
	Action      string `json:"action"` // rolled_back or rolled_forward
	Files       int    `json:"files"`
}

func (k *Desk) applyDir() string { return k.d.StatePath("apply") }

func (k *Desk) journalPath() string { return journalPath(k.d) }

// journalPath is where an application in progress keeps its journal.
func journalPath(d *project.Descriptor) string { return d.StatePath("apply", "journal.json") }

func (k *Desk) backupPath(i int) string {
	return filepath.Join(k.applyDir(), "before", fmt.Sprintf("%04d", i))
}

// Recover finishes an interrupted application, if there is one. The caller holds the lock.
func (k *Desk) Recover(ctx context.Context) (*Recovery, error) {
	data, err := os.ReadFile(k.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read apply journal: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("apply journal %s is unreadable: %w; restore the files listed in it by hand", k.journalPath(), err)
	}
	rec := &Recovery{ChangesetID: j.ChangesetID, Files: len(j.Files), Action: "rolled_back"}
	if r, err := k.Store.Load(j.ChangesetID); err == nil && r.Status == Applied && r.Hash == j.Hash {
		rec.Action = "rolled_forward" // the receipt is the commit point: the files were verified
	} else if err := k.rollback(&j); err != nil {
		return nil, err
	}
	k.removeTemps(&j)
	if err := k.clearJournal(); err != nil {
		return nil, err
	}
	return rec, nil
}

// removeTemps removes the temporary files a killed write of a journaled file left beside it
// (safefile's ".NAME.tmp-*"), which nothing else would remove and git would pick up.
func (k *Desk) removeTemps(j *journal) {
	for _, f := range j.Files {
		abs := filepath.Join(k.d.Root, filepath.FromSlash(f.Path))
		temps, _ := filepath.Glob(filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-*"))
		for _, t := range temps {
			os.Remove(t)
		}
	}
}

// Settle finishes, before anything reads the sources, an application that is still running
// (it waits for the changeset lock) or that a killed process left half done (its journal is
// rolled forward or back, its temporary files removed). Every sync runs it first, so a half
// applied tree is never indexed. With no journal it costs one stat.
func Settle(ctx context.Context, d *project.Descriptor, policy string) (*Recovery, error) {
	if !Journaled(d) {
		return nil, nil
	}
	desk, err := NewDesk(d, policy)
	if err != nil {
		return nil, err
	}
	return desk.RecoverNow(ctx)
}

// Journaled reports whether an application's journal exists: one is running, or was killed.
func Journaled(d *project.Descriptor) bool {
	_, err := os.Stat(journalPath(d))
	return !errors.Is(err, fs.ErrNotExist)
}

// rollback restores every journaled file to its saved bytes (or removes it). The files the
// application created go first: on a full disk, removing them frees the room that restoring
// the others needs.
func (k *Desk) rollback(j *journal) error {
	for _, f := range j.Files {
		if !f.Existed {
			abs := filepath.Join(k.d.Root, filepath.FromSlash(f.Path))
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("roll back %s: %w", f.Path, err)
			}
		}
	}
	for i, f := range j.Files {
		abs := filepath.Join(k.d.Root, filepath.FromSlash(f.Path))
		if !f.Existed {
			continue
		}
		data, err := os.ReadFile(k.backupPath(i))
		if err != nil {
			return fmt.Errorf("roll back %s: saved copy: %w", f.Path, err)
		}
		if HashBytes(data) != f.Before {
			return fmt.Errorf("roll back %s: the saved copy does not match the journal", f.Path)
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("roll back %s: %w", f.Path, err)
		}
		if err := safefile.WriteFile(abs, data, fs.FileMode(f.Mode)); err != nil {
			return fmt.Errorf("roll back %s: %w", f.Path, err)
		}
	}
	return nil
}

func (k *Desk) clearJournal() error {
	if err := os.Remove(k.journalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove apply journal: %w", err)
	}
	_ = safefile.SyncDir(k.applyDir())
	return os.RemoveAll(filepath.Join(k.applyDir(), "before"))
}

// step runs the fault hook of a test.
func (k *Desk) step(name string) error {
	if k.Store.beforeCommit == nil {
		return nil
	}
	return k.Store.beforeCommit("apply:" + name)
}

// FaultHook sets a function run before every commit and application step; an error stops the
// operation there as a crash would. For tests of the crash points.
func (k *Desk) FaultHook(f func(step string) error) { k.Store.beforeCommit = f }

// Apply writes an approved changeset into the canonical files. hash must be the changeset's
// exact current hash; everything is validated again first.
func (k *Desk) Apply(ctx context.Context, applier, id, hash string) (*Application, error) {
	if !slices.ContainsFunc(k.d.Proposals.Appliers, func(a project.Applier) bool { return a.ID == applier }) {
		return nil, problem.Errorf(problem.OperationNotPermitted, "applier %q is not declared in [[proposals.appliers]]", applier)
	}
	unlock, err := k.Store.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	recovered, err := k.Recover(ctx)
	if err != nil {
		return nil, err
	}
	rec, err := k.Store.Load(id)
	if err != nil {
		return nil, err
	}
	if err := k.applicable(rec, id, hash); err != nil {
		return nil, err
	}
	all, _, err := k.Store.List()
	if err != nil {
		return nil, err
	}
	src, err := LoadSources(ctx, k.d, k.policy) // never the cache: the base must be what is on disk now
	if err != nil {
		return nil, err
	}
	c := src.Check(rec.Changeset, all, false)
	if err := refusal(c, true); err != nil {
		return nil, err
	}
	if src.Errors() > 0 {
		return nil, problem.Errorf(problem.ProjectInvalid, "the project has %d validation errors without the changeset; fix them before applying", src.Errors())
	}
	out := &Application{Recovery: recovered, Created: []string{}, Updated: []string{}, Removed: []string{}}
	j, err := k.prepare(src, c, rec.Hash, out)
	if err != nil {
		return nil, err
	}
	fail := func(cause error) (*Application, error) {
		if safefile.NoSpace(cause) {
			cause = problem.Wrap(problem.DiskFull, cause, "the disk filled up while applying %s; every file was restored", id)
		}
		if rerr := k.rollback(j); rerr != nil {
			return nil, fmt.Errorf("apply %s: %w; rolling back also failed: %v (the journal %s stays for the next start)", id, cause, rerr, k.journalPath())
		}
		if cerr := k.clearJournal(); cerr != nil {
			return nil, cerr
		}
		return nil, cause
	}
	if err := k.writeAndVerify(ctx, src, c, j); err != nil {
		return fail(err)
	}
	if err := k.step("receipt"); err != nil {
		return fail(err)
	}
	next, err := k.Store.Commit(rec, rec.Changeset, "applied", Applied, applier, "applied by "+applier, k.now())
	if err != nil {
		return fail(err)
	}
	out.Record = next
	// Committed: from here a failure leaves the journal, which the next start rolls forward.
	if err := k.step("cleanup"); err != nil {
		return out, nil
	}
	_ = k.clearJournal()
	return out, nil
}

// applicable refuses a changeset that may not be applied: already applied or closed, not at
// the reviewed hash, of another project, or by an author no longer allowed every operation it
// queued.
func (k *Desk) applicable(rec *Record, id, hash string) error {
	switch {
	case rec.Status == Applied:
		return problem.Errorf(problem.ChangesetState, "changeset %s was already applied (hash %s); applying it again is refused", id, rec.Hash)
	case !Open(rec.Status):
		return problem.Errorf(problem.ChangesetState, "changeset %s is %s", id, rec.Status)
	case hash != rec.Hash:
		pe := problem.Errorf(problem.ChangesetStale, "hash %s is not changeset %s's current hash %s; review the current version and apply that hash", hash, id, rec.Hash)
		pe.Problem.Remediation = "fetch the changeset with docforge_get_changeset, review it, and pass its changeset_hash"
		return pe
	case rec.Changeset.ProjectID != k.d.Project.ID:
		return problem.Errorf(problem.OperationNotPermitted, "changeset %s was written for project %q, not %q", id, rec.Changeset.ProjectID, k.d.Project.ID)
	}
	return k.permit(rec.Changeset.Writer, rec.Changeset.Operations)
}

// writeAndVerify writes every journaled file, then checks that the files reproduce the
// approved projection; a step hook may stop it between files, as a crash would.
func (k *Desk) writeAndVerify(ctx context.Context, src *Sources, c *Checked, j *journal) error {
	for i, f := range j.Files {
		if err := k.step(fmt.Sprintf("write:%d", i)); err != nil {
			return err
		}
		if err := k.writeCanonical(src, f, c.Projection.Overlay.Files[f.Path]); err != nil {
			return err
		}
	}
	if err := k.step("verify"); err != nil {
		return err
	}
	return k.verify(ctx, src, c)
}

// prepare saves every file the application touches and writes the journal.
func (k *Desk) prepare(src *Sources, c *Checked, hash string, out *Application) (*journal, error) {
	j := &journal{SchemaVersion: SchemaVersion, ChangesetID: c.Changeset.ID, Hash: hash, Files: []journalEntry{}}
	if err := Confined(k.d.Root, k.d.StatePath(), k.applyDir(), project.StateDir); err != nil {
		return nil, err
	}
	if err := k.checkSpace(src, c); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(k.applyDir(), "before"), 0o755); err != nil {
		return nil, fmt.Errorf("prepare apply: %w", err)
	}
	for i, rel := range c.Projection.Paths {
		abs, err := src.contentPath(rel)
		if err != nil {
			return nil, err
		}
		e := journalEntry{Path: rel, Mode: 0o644}
		data, err := os.ReadFile(abs)
		switch {
		case err == nil:
			st, _ := os.Stat(abs)
			e.Existed, e.Before, e.Mode = true, HashBytes(data), uint32(st.Mode().Perm())
			if err := safefile.WriteFile(k.backupPath(i), data, 0o600); err != nil {
				return nil, fmt.Errorf("prepare apply: save %s: %w", rel, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("prepare apply: read %s: %w", rel, err)
		}
		after, writes := c.Projection.Overlay.Files[rel]
		switch {
		case writes && e.Existed:
			out.Updated = append(out.Updated, rel)
		case writes:
			out.Created = append(out.Created, rel)
		case e.Existed:
			out.Removed = append(out.Removed, rel)
		}
		if writes {
			e.After = HashBytes(after)
		}
		j.Files = append(j.Files, e)
	}
	if err := k.step("journal"); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(j)
	if err := safefile.WriteFile(k.journalPath(), data, 0o600); err != nil {
		return nil, fmt.Errorf("prepare apply: journal: %w", err)
	}
	return j, nil
}

// spaceMargin is room kept free beyond what an application writes: the journal, the
// receipt and the changeset's new version.
const spaceMargin = 1 << 20

// checkSpace refuses an application that the disk has no room for, before anything is
// written: saved copies of the files it replaces, and each new file beside its temporary
// copy, plus a margin.
func (k *Desk) checkSpace(src *Sources, c *Checked) error {
	need := int64(spaceMargin)
	for _, rel := range c.Projection.Paths {
		if abs, err := src.contentPath(rel); err == nil {
			if st, err := os.Stat(abs); err == nil {
				need += st.Size()
			}
		}
		need += 2 * int64(len(c.Projection.Overlay.Files[rel]))
	}
	for _, dir := range []string{k.d.Root, k.d.StatePath()} {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(dir, &fs); err != nil {
			continue // no figure to check against: the writes will say
		}
		if free := int64(fs.Bavail) * int64(fs.Bsize); free < need {
			return problem.Errorf(problem.DiskFull, "applying needs about %d bytes free on the disk holding %s and %d are; nothing was written", need, dir, free)
		}
	}
	return nil
}

// writeCanonical writes (or removes) one content file, confined to its content root.
func (k *Desk) writeCanonical(src *Sources, f journalEntry, data []byte) error {
	abs, err := src.contentPath(f.Path)
	if err != nil {
		return err
	}
	if f.After == "" {
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("apply: remove %s: %w", f.Path, err)
		}
		return safefile.SyncDir(filepath.Dir(abs))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if _, err := src.contentPath(f.Path); err != nil {
		return err // a symlink raced in while the folders were made
	}
	return safefile.WriteFile(abs, data, fs.FileMode(f.Mode))
}

// verify reloads the sources from disk and checks that they are exactly the projection:
// the same node IDs, each with the same record (fields, path, anchor, content hash).
func (k *Desk) verify(ctx context.Context, base *Sources, c *Checked) error {
	now, err := LoadSources(ctx, k.d, k.policy)
	if err != nil {
		return fmt.Errorf("apply: reload: %w", err)
	}
	want := map[string]string{}
	for id, at := range base.nodes {
		if _, touched := c.after[at.path]; !touched {
			want[id] = at.node.Record.Hash()
		}
	}
	for _, f := range c.after {
		if f == nil {
			continue
		}
		for i := range f.Nodes {
			want[f.Nodes[i].ID] = f.Nodes[i].Record.Hash()
		}
	}
	got := map[string]string{}
	for id, at := range now.nodes {
		got[id] = at.node.Record.Hash()
	}
	for id, h := range want {
		if got[id] != h {
			return problem.Errorf(problem.ChangesetInvalid, "the written files do not reproduce the approved projection at node %s; every file was restored", id)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			return problem.Errorf(problem.ChangesetInvalid, "the written files define node %s, which the approved projection does not; every file was restored", id)
		}
	}
	if now.Errors() > 0 {
		return problem.Errorf(problem.ChangesetInvalid, "the written files have %d validation errors; every file was restored", now.Errors())
	}
	return nil
}

// RecoverNow takes the lock and finishes an interrupted application: what a worker does when
// it starts serving a project.
func (k *Desk) RecoverNow(ctx context.Context) (*Recovery, error) {
	if _, err := os.Stat(k.journalPath()); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	unlock, err := k.Store.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return k.Recover(ctx)
}
