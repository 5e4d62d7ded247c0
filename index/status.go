package index

import (
	"context"

	"github.com/docforge/docforge/index/project"
	"github.com/docforge/docforge/index/source"
)

// Staleness states.
const (
	Current = "current" // the published index was built from exactly the current sources
	Stale   = "stale"   // a source, the descriptor or the binding changed since publication
	Unknown = "unknown" // no verifiable publication to compare with
)

// Status is the cheap staleness check: a stat walk of the sources and a stat of the index,
// compared with the publication receipt. It never opens SQLite, parses a source, or writes.
type Status struct {
	State          string       `json:"staleness"`
	SourceIdentity string       `json:"source_identity"`
	Publication    *Publication `json:"publication,omitempty"`
	Reason         string       `json:"reason,omitempty"`
}

// CheckStatus reports whether the published index of d is current.
func CheckStatus(ctx context.Context, d *project.Descriptor, policy string) (*Status, error) {
	inv, err := source.Scan(ctx, d)
	if err != nil {
		return nil, err
	}
	st := &Status{SourceIdentity: inv.Identity()}
	paths := PathsFor(d)
	pub, err := ReadPublication(paths.Publication)
	if err != nil {
		st.State, st.Reason = Unknown, "no valid publication receipt"
		if isNotExist(err) {
			st.Reason = "no index has been published"
		}
		return st, nil
	}
	st.Publication = pub
	sig, err := statSignature(paths.Index)
	switch {
	case err != nil:
		st.State, st.Reason = Unknown, "the published index file is missing"
	case !pub.Index.sameFile(sig):
		st.State, st.Reason = Unknown, "the index file is not the one the receipt describes"
	case !pub.matches(bindingFor(d, policy, "")):
		st.State, st.Reason = Stale, "the descriptor, adapter or policy changed"
	case pub.Graph.SourceIdentity != inv.Identity():
		st.State, st.Reason = Stale, "sources changed since generation was published"
	default:
		st.State = Current
	}
	return st, nil
}
