package index

import (
	"context"
	"os"
	"path/filepath"

	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Status is the cheap staleness check: a stat walk of the sources and a stat of the index,
// compared with the publication receipt. It never opens SQLite, parses a source, or writes.
type Status struct {
	State          string                   `json:"staleness"`
	SourceIdentity string                   `json:"source_identity"`
	Publication    *publication.Publication `json:"publication,omitempty"`
	Reason         string                   `json:"reason,omitempty"`
}

// CheckStatus reports whether the published index of d is current. identity is the sources'
// cheap identity when the caller has proof of it (a worker whose watch saw no change since the
// index was proven current); empty, it is taken with a stat walk of the sources.
func CheckStatus(ctx context.Context, d *project.Descriptor, policy, identity string) (*Status, error) {
	identity, err := SourceIdentity(ctx, d, identity)
	if err != nil {
		return nil, err
	}
	st := &Status{SourceIdentity: identity}
	o := publication.Observe(publication.PathsFor(d, policy))
	if o.PubErr != nil {
		st.State, st.Reason = publication.Unknown, "no valid publication receipt"
		if isNotExist(o.PubErr) {
			st.Reason = "no index has been published"
		}
		return st, nil
	}
	pub := o.Pub
	st.Publication = pub
	switch {
	case o.SigErr != nil:
		st.State, st.Reason = publication.Unknown, "the published index file is missing"
	case !o.Matches():
		st.State, st.Reason = publication.Unknown, "the index file is not the one the receipt describes"
	case !receiptMatches(pub, bindingFor(d, policy, "")):
		st.State, st.Reason = publication.Stale, "the descriptor, adapter or policy changed"
	case pub.Graph.SourceIdentity != identity:
		st.State, st.Reason = publication.Stale, "sources changed since generation was published"
	default:
		st.State = publication.Current
	}
	return st, nil
}

// SourceIdentity is known, when the caller has proof of the sources' cheap identity (a
// worker whose watch saw no change since the index was proven current), or else the identity
// a stat walk takes.
func SourceIdentity(ctx context.Context, d *project.Descriptor, known string) (string, error) {
	if known != "" {
		return known, nil
	}
	inv, err := source.Scan(ctx, d)
	if err != nil {
		return "", err
	}
	return inv.Identity(), nil
}

// Receipt states of the generation-diff receipt, fail-closed.
const (
	ReceiptCurrent    = "current"    // proven against cheap source identity and exact file identities
	ReceiptStale      = "stale"      // a proven generation mismatch
	ReceiptMissing    = "missing"    // no receipt
	ReceiptUnsafe     = "unsafe"     // confinement or file-type checks failed
	ReceiptUnverified = "unverified" // corrupt, foreign, oversized or concurrently changed
	ReceiptUnknown    = "unknown"    // no cheap generation identity could be taken
)

// DiffReceiptStatus is the state of the latest generation-diff receipt and, when it can be
// read, the receipt.
type DiffReceiptStatus struct {
	State   string          `json:"receipt_state"`
	Reason  string          `json:"reason,omitempty"`
	Receipt *GenerationDiff `json:"-"`
	// concurrent says the receipts and the index file disagreed, as they do for a moment
	// while a merge signs the receipts over.
	concurrent bool
}

// CheckDiffReceipt classifies the latest generation-diff receipt. It is non-repairing: it
// never opens SQLite, parses a source, builds or writes; it stats files, reads the two
// receipts and takes the cheap source identity. identity is that identity when the caller
// has proof of it (a worker whose watch saw no change since the index was proven current);
// empty, it is taken with a stat walk of the sources.
func CheckDiffReceipt(ctx context.Context, d *project.Descriptor, policy, identity string) *DiffReceiptStatus {
	// A merge replaces the index file of an unchanged generation, then signs the two receipts
	// over to it one after the other, holding the index lock: a check in between finds them
	// disagreeing with the file. Such a disagreement is checked again under that lock, once
	// the writer is done, before it is reported.
	st := checkDiffReceipt(ctx, d, policy, identity)
	if st.State != ReceiptUnverified || !st.concurrent {
		return st
	}
	unlock, err := lockFile(ctx, publication.PathsFor(d, policy).Lock)
	if err != nil {
		return st
	}
	defer unlock()
	return checkDiffReceipt(ctx, d, policy, identity)
}

// readDiffReceipt reads the project's generation-diff receipt, or says why it cannot be
// trusted: its directory resolving outside the project, no regular file, a corrupt one, or
// one of another project, root, schema or adapter.
func readDiffReceipt(d *project.Descriptor, paths publication.Paths) (*GenerationDiff, string, string) {
	if real, err := filepath.EvalSymlinks(paths.Dir); err == nil {
		root, rerr := filepath.EvalSymlinks(d.Root)
		if rerr != nil || !project.Within(root, real) {
			return nil, ReceiptUnsafe, "the index directory resolves outside the project"
		}
	}
	st, err := os.Lstat(paths.Diff)
	switch {
	case isNotExist(err):
		return nil, ReceiptMissing, "no generation-diff receipt has been written; sync first"
	case err != nil:
		return nil, ReceiptUnverified, "the receipt cannot be read"
	case !st.Mode().IsRegular():
		return nil, ReceiptUnsafe, "the receipt is not a regular file"
	}
	r, err := ReadGenerationDiff(paths.Diff)
	if err != nil {
		return nil, ReceiptUnverified, "the receipt is corrupt, oversized or of another version"
	}
	if r.ProjectID != d.Project.ID || r.ProjectRoot != d.Root || r.IndexSchemaVersion != SchemaVersion || r.Adapter != publication.AdapterName+"@"+publication.AdapterVersion {
		return nil, ReceiptUnverified, "the receipt belongs to another project, root, schema or adapter"
	}
	return r, "", ""
}

func checkDiffReceipt(ctx context.Context, d *project.Descriptor, policy, identity string) *DiffReceiptStatus {
	paths := publication.PathsFor(d, policy)
	out := func(state, reason string, r *GenerationDiff) *DiffReceiptStatus {
		return &DiffReceiptStatus{State: state, Reason: reason, Receipt: r}
	}
	concurrent := func(st *DiffReceiptStatus) *DiffReceiptStatus { st.concurrent = true; return st }
	r, state, reason := readDiffReceipt(d, paths)
	if r == nil {
		return out(state, reason, nil)
	}
	sig, err := publication.Stat(paths.Index)
	if err != nil {
		return out(ReceiptUnverified, "the index the receipt names is gone", nil)
	}
	pub, perr := publication.Read(paths.Publication)
	switch {
	case perr != nil:
		return out(ReceiptUnverified, "the publication receipt is missing or corrupt, so no generation can be proven", nil)
	case !pub.Index.SameFile(sig):
		return concurrent(out(ReceiptUnverified, "the index file is not the one its publication receipt describes", nil))
	case pub.Graph.Generation != r.To.Generation:
		return out(ReceiptStale, "a later publication replaced the generation this receipt describes", r)
	case !sig.SameFile(r.Index):
		// The same generation in another file: nothing proves which one the receipt describes.
		return concurrent(out(ReceiptUnverified, "the index was replaced without a new generation", nil))
	}
	identity, err = SourceIdentity(ctx, d, identity)
	if err != nil {
		return out(ReceiptUnknown, "the cheap source identity could not be taken", nil)
	}
	if identity != r.To.SourceIdentity {
		return out(ReceiptStale, "the sources changed since this generation; sync to publish the next one", r)
	}
	if again, err := publication.Stat(paths.Index); err != nil || !again.SameFile(sig) {
		return concurrent(out(ReceiptUnverified, "the index changed while it was being checked", nil))
	}
	return out(ReceiptCurrent, "", r)
}
