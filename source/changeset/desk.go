package changeset

import (
	"context"
	"fmt"
	"github.com/docforge/docforge/base/lexicon"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/project"
)

// Desk carries out proposal work for one project: every mutation takes the store lock,
// reads the current sources inside it, checks, and commits one receipt.
type Desk struct {
	Store  *Store
	d      *project.Descriptor
	policy string
	now    func() time.Time
	cache  *Cache
}

// UseCache makes the desk reuse parsed sources from c.
func (k *Desk) UseCache(c *Cache) { k.cache = c }

// Sources returns the project's current sources, through the desk's cache.
func (k *Desk) Sources(ctx context.Context) (*Sources, error) {
	return k.cache.Load(ctx, k.d, k.policy)
}

// NewDesk returns the desk of d under the adapter policy.
func NewDesk(d *project.Descriptor, policy string) (*Desk, error) {
	st, err := OpenStore(d)
	if err != nil {
		return nil, err
	}
	return &Desk{Store: st, d: d, policy: policy, now: time.Now}, nil
}

// Result is a committed mutation: the stored record and the check made before committing.
type Result struct {
	Record *Record `json:"record"`
	Report *Report `json:"report"`
}

// Request is what a writer asks to register or create.
type Request struct {
	ID          string      `json:"changeset_id,omitempty"`
	Title       string      `json:"title"`
	Description string      `json:"description,omitempty"`
	Operations  []Operation `json:"operations,omitempty"`
}

// permit checks that writer is declared and may queue every operation of ops.
func (k *Desk) permit(writer string, ops []Operation) error {
	if writer == "" {
		return problem.Errorf(problem.ProposalAccessDisabled, "no proposal writer is bound")
	}
	i := slices.IndexFunc(k.d.Proposals.Writers, func(w project.Writer) bool { return w.ID == writer })
	if i < 0 {
		return problem.Errorf(problem.OperationNotPermitted, "writer %q is not declared in [[proposals.writers]]", writer)
	}
	allowed := k.d.Proposals.Writers[i].Operations
	for _, op := range ops {
		if !slices.Contains(allowed, op.Op) {
			return problem.Errorf(problem.OperationNotPermitted, "writer %q may not queue %s operations (it may: %s)", writer, op.Op, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func owned(rec *Record, writer string) error {
	if rec.Changeset.Writer != writer {
		return problem.Errorf(problem.OperationNotPermitted, "changeset %s belongs to writer %q, not %q", rec.Changeset.ID, rec.Changeset.Writer, writer)
	}
	if !Open(rec.Status) {
		return problem.Errorf(problem.ChangesetState, "changeset %s is %s; it no longer changes", rec.Changeset.ID, rec.Status)
	}
	return nil
}

// locked runs fn holding the store lock, with the current sources and every stored record.
func (k *Desk) locked(ctx context.Context, fn func(src *Sources, all []*Record) error) error {
	unlock, err := k.Store.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	all, _, err := k.Store.List()
	if err != nil {
		return err
	}
	src, err := k.Sources(ctx)
	if err != nil {
		return err
	}
	return fn(src, all)
}

// ownedIn finds changeset id among the stored records and checks that writer may change it.
func ownedIn(all []*Record, id, writer string) (*Record, error) {
	for _, r := range all {
		if r.Changeset.ID == id {
			return r, owned(r, writer)
		}
	}
	if !ValidID(id) {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset ID %q is malformed (expected something like cs-20261202-1a2b3c4d)", id)
	}
	return nil, problem.Errorf(problem.ChangesetNotFound, "no changeset %q", id)
}

// commit records a checked changeset's transition and returns it with its report.
func (k *Desk) commit(rec *Record, c *Checked, transition, status, actor, reason string) (*Result, error) {
	next, err := k.Store.Commit(rec, c.Changeset, transition, status, actor, reason, k.now())
	if err != nil {
		return nil, err
	}
	c.Report.Hash, c.Report.Status = next.Hash, next.Status
	return &Result{Record: next, Report: c.Report}, nil
}

func (k *Desk) newChangeset(writer string, dr Request) (*Changeset, error) {
	id := dr.ID
	if id == "" {
		id = NewID(k.now())
	}
	if !ValidID(id) {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset_id %q must match [a-z0-9][a-z0-9._-]{0,63}", id)
	}
	if err := Confined(k.d.Root, k.Store.root, k.Store.dir(id), k.d.Proposals.ChangesetRoot); err != nil {
		return nil, err
	}
	if k.Store.Exists(id) {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset %s already exists; choose another changeset_id or omit it", id)
	}
	if strings.TrimSpace(dr.Title) == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "title is required: one line saying what the change is for")
	}
	if err := checkText("title", dr.Title, MaxTitleChars, false); err != nil {
		return nil, err
	}
	if err := checkText("description", dr.Description, MaxDescriptionChars, true); err != nil {
		return nil, err
	}
	return &Changeset{SchemaVersion: SchemaVersion, ID: id, ProjectID: k.d.Project.ID, Writer: writer,
		Title: dr.Title, Description: dr.Description, Operations: slices.Clone(dr.Operations)}, nil
}

// refusal turns a check that must not be stored into its error: operation problems first
// (bad input, with the first problem's own code), then staleness, conflicts and graph errors.
func refusal(c *Checked, graphErrors bool) error {
	rep := c.Report
	if len(c.Projection.Problems) > 0 {
		first := c.Projection.Problems[0]
		pe := problem.Errorf(first.Code, "%s", first.Message)
		pe.Problems = c.Projection.Problems
		return pe
	}
	if len(rep.Stale) > 0 {
		s := rep.Stale[0]
		return problem.Errorf(problem.ChangesetStale, "node %s changed since expected_content_hash %s was taken (now %s); fetch it again with docforge_get_node", s.NodeID, s.Expected, orGone(s.Current))
	}
	if len(rep.Conflicts) > 0 {
		c0 := rep.Conflicts[0]
		return problem.Errorf(problem.ChangesetConflict, "open changeset %s (%s) already touches %s", c0.ChangesetID, c0.Status, strings.Join(append(c0.Nodes, c0.Paths...), ", "))
	}
	if graphErrors && rep.Errors > 0 {
		pe := problem.Errorf(problem.ChangesetInvalid, "with this changeset the project would have %d new validation errors; nothing was stored", rep.Errors)
		pe.Problems = rep.Problems
		return pe
	}
	return nil
}

func orGone(h string) string {
	if h == "" {
		return "deleted"
	}
	return h
}

func statusOf(rep *Report) string {
	switch {
	case len(rep.Stale) > 0:
		return Stale
	case rep.Valid:
		return Ready
	}
	return Draft
}

// Create starts a changeset, with or without operations; it is ready when it validates.
func (k *Desk) Create(ctx context.Context, writer string, dr Request) (*Result, error) {
	return k.register(ctx, writer, dr, false)
}

// Register creates, populates, projects, conflict-checks and validates one complete
// changeset in one locked operation, capturing omitted expected content hashes; a changeset
// that would not validate is refused and nothing is stored.
func (k *Desk) Register(ctx context.Context, writer string, dr Request) (*Result, error) {
	if len(dr.Operations) == 0 {
		return nil, problem.Errorf(problem.InvalidArgument, "operations are required: register_changes stores one complete changeset")
	}
	return k.register(ctx, writer, dr, true)
}

func (k *Desk) register(ctx context.Context, writer string, dr Request, complete bool) (*Result, error) {
	if err := k.permit(writer, dr.Operations); err != nil {
		return nil, err
	}
	var res *Result
	err := k.locked(ctx, func(src *Sources, all []*Record) error {
		cs, err := k.newChangeset(writer, dr)
		if err != nil {
			return err
		}
		c := src.Check(cs, all, true)
		if err := refusal(c, complete); err != nil {
			return err
		}
		status := Draft
		if len(cs.Operations) > 0 {
			status = statusOf(c.Report)
		}
		res, err = k.commit(nil, c, "created", status, writer, "")
		return err
	})
	return res, err
}

// Propose appends one operation to a writer's open changeset. Operations that cannot be
// carried out, stale hashes and conflicts are refused; graph problems (a target another
// operation will create, say) leave the changeset a draft.
func (k *Desk) Propose(ctx context.Context, writer, id string, op Operation) (*Result, error) {
	if err := k.permit(writer, []Operation{op}); err != nil {
		return nil, err
	}
	var res *Result
	err := k.locked(ctx, func(src *Sources, all []*Record) error {
		rec, err := ownedIn(all, id, writer)
		if err != nil {
			return err
		}
		cs := clone(rec.Changeset)
		cs.Operations = append(cs.Operations, op)
		c := src.Check(cs, all, true)
		if err := refusal(c, false); err != nil {
			return err
		}
		res, err = k.commit(rec, c, "updated", statusOf(c.Report), writer, op.Op+" "+op.NodeID)
		return err
	})
	return res, err
}

// Rebase moves a stale changeset onto the current content: every stale operation takes the
// node's current hash, and the result must validate in full. An update that rewrites a
// body whose node changed is refused: prose is never merged.
func (k *Desk) Rebase(ctx context.Context, writer, id string) (*Result, error) {
	var res *Result
	err := k.locked(ctx, func(src *Sources, all []*Record) error {
		rec, err := ownedIn(all, id, writer)
		if err != nil {
			return err
		}
		cs := clone(rec.Changeset)
		moved := 0
		for i := range cs.Operations {
			op := &cs.Operations[i]
			for _, cf := range op.Confirm {
				if now := src.ContentHash(cf.Target); now != cf.ContentHash {
					return problem.Errorf(problem.ChangesetStale, "operations[%d]: %s confirms %s as it was, and it changed since; a confirmation is never moved: read the target again and confirm it in a new changeset", i, op.NodeID, cf.Target)
				}
			}
			if op.ExpectedContentHash == "" {
				continue
			}
			current := src.ContentHash(op.NodeID)
			if current == op.ExpectedContentHash {
				continue
			}
			if current == "" {
				return problem.Errorf(problem.ChangesetStale, "operations[%d]: node %s no longer exists; the changeset cannot be rebased", i, op.NodeID)
			}
			if op.Op == OpUpdate && op.Fields != nil && op.Fields.Body != nil {
				return problem.Errorf(problem.ChangesetStale, "operations[%d]: node %s changed and this update rewrites its body; prose is never merged: create a new changeset from the current text", i, op.NodeID)
			}
			op.ExpectedContentHash = current
			moved++
		}
		if moved == 0 && rec.Status != Stale {
			return problem.Errorf(problem.ChangesetState, "changeset %s is not stale: every expected hash is current", id)
		}
		c := src.Check(cs, all, false)
		if err := refusal(c, true); err != nil {
			return err
		}
		res, err = k.commit(rec, c, "rebased", Ready, writer, fmt.Sprintf("%d operations moved to the current base", moved))
		return err
	})
	return res, err
}

// Abandon closes a writer's open changeset; its folder and receipts stay.
func (k *Desk) Abandon(ctx context.Context, writer, id, reason string) (*Result, error) {
	return k.abandon(ctx, writer, writer, id, reason)
}

// AbandonAsReviewer closes any open changeset on a person's behalf (the CLI); the receipt
// names the person.
func (k *Desk) AbandonAsReviewer(ctx context.Context, person, id, reason string) (*Result, error) {
	return k.abandon(ctx, "", "person:"+person, id, reason)
}

func (k *Desk) abandon(ctx context.Context, writer, actor, id, reason string) (*Result, error) {
	if err := checkText("reason", reason, MaxDescriptionChars, true); err != nil {
		return nil, err
	}
	unlock, err := k.Store.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := k.Store.Load(id)
	if err != nil {
		return nil, err
	}
	if writer != "" {
		if err := owned(rec, writer); err != nil {
			return nil, err
		}
	} else if !Open(rec.Status) {
		return nil, problem.Errorf(problem.ChangesetState, "changeset %s is %s; it no longer changes", id, rec.Status)
	}
	next, err := k.Store.Commit(rec, rec.Changeset, "abandoned", Abandoned, actor, reason, k.now())
	if err != nil {
		return nil, err
	}
	return &Result{Record: next}, nil
}

// Validate checks a stored changeset against the current sources. A changeset found stale is
// recorded as stale (a receipt by "docforge"), so that listing shows it without checking.
func (k *Desk) Validate(ctx context.Context, id string) (*Record, *Checked, *Sources, error) {
	rec, err := k.Store.Load(id)
	if err != nil {
		return nil, nil, nil, err
	}
	src, err := k.Sources(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	all, _, err := k.Store.List()
	if err != nil {
		return nil, nil, nil, err
	}
	c := src.Check(rec.Changeset, all, false)
	c.Report.Hash, c.Report.Status = rec.Hash, rec.Status
	if len(c.Report.Stale) > 0 && (rec.Status == Draft || rec.Status == Ready) {
		if next, err := k.markStale(ctx, id); err == nil && next != nil {
			rec = next
			c.Report.Status = next.Status
		}
	}
	if !Open(rec.Status) {
		c.Report.Valid = false
	}
	return rec, c, src, nil
}

func (k *Desk) markStale(ctx context.Context, id string) (*Record, error) {
	unlock, err := k.Store.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := k.Store.Load(id)
	if err != nil || (rec.Status != Draft && rec.Status != Ready) {
		return rec, err
	}
	return k.Store.Commit(rec, rec.Changeset, "stale", Stale, "docforge", "a node it touches changed since its hash was captured", k.now())
}

// Bounds of a changeset's own text: people read it in lists and reviews.
const (
	MaxTitleChars       = 200
	MaxDescriptionChars = 8000
)

// checkText refuses text longer than limit characters, or holding a character a reader
// cannot see for what it is (checkChars).
func checkText(field, text string, limit int, multiline bool) error {
	if n := utf8.RuneCountInString(text); n > limit {
		return problem.Errorf(problem.InvalidArgument, "%s holds at most %d characters; this one has %d", field, limit, n)
	}
	return checkChars(field, text, multiline)
}

// checkChars refuses text holding an Unseen character: a terminal acts on a control character
// (clears a line, moves the cursor), and an invisible format character such as U+202E
// reorders what is shown. Multiline text may hold newlines and tabs, and format characters
// (right-to-left prose and emoji sequences use them; the CLI shows them escaped).
func checkChars(field, text string, multiline bool) error {
	for i, r := range text {
		if multiline && (r == '\n' || r == '\t' || unicode.Is(unicode.Cf, r) && !lexicon.BidiControl(r)) {
			continue
		}
		if Unseen(r) {
			kind := "invisible format character"
			if unicode.IsControl(r) {
				kind = "control character"
			}
			return problem.Errorf(problem.InvalidArgument, "%s holds the %s U+%04X at byte %d; use plain text", field, kind, r, i)
		}
	}
	return nil
}

// Unseen reports a character a reader cannot see for what it is (lexicon.Unseen).
func Unseen(r rune) bool { return lexicon.Unseen(r) }

// checkFields refuses node fields of one line (kind, family, title, status, authority, tags)
// that hold a character a reviewer cannot see: a title is what every list and review shows.
func checkFields(f *Fields) error {
	if f == nil {
		return nil
	}
	for _, kv := range []struct {
		key string
		v   *string
	}{{"kind", f.Kind}, {"family", f.Family}, {"title", f.Title}, {"status", f.Status}, {"authority", f.Authority}} {
		if kv.v != nil {
			if err := checkChars("fields."+kv.key, *kv.v, false); err != nil {
				return err
			}
		}
	}
	if f.Tags != nil {
		for _, tag := range *f.Tags {
			if err := checkChars("fields.tags", tag, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// ListCurrent is Store.List with each draft or ready changeset whose base moved listed as
// what it is, stale, though no validation has recorded it yet. It only reads: no stale
// receipt is written.
func (k *Desk) ListCurrent(ctx context.Context) ([]*Record, []error, error) {
	recs, bad, err := k.Store.List()
	if err != nil {
		return nil, nil, err
	}
	var src *Sources
	for _, r := range recs {
		if r.Status != Draft && r.Status != Ready {
			continue
		}
		if src == nil {
			if src, err = k.Sources(ctx); err != nil {
				return nil, nil, err
			}
		}
		if len(src.Check(r.Changeset, recs, false).Report.Stale) > 0 {
			r.Status = Stale
		}
	}
	return recs, bad, nil
}
