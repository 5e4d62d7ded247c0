package worker

import (
	"context"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// The canonical application tool: registered only behind its own startup gate (a declared
// --canonical-applier and the application or operator capability mode).

func applyTool() ToolSpec {
	return define(ToolSpec{Name: "docforge_apply_changeset",
		Description: "Apply one reviewed changeset to the canonical Markdown/TOML files by its exact changeset_hash: everything is validated again, the files are written behind a journal, reloaded and checked against the approved projection (any mismatch restores them), then the applied receipt is recorded and the index and published views are refreshed. Runs no command, shell, Git or build.",
		mutates:     true, destructive: true}, runApply)
}

type applyInput struct {
	changesetInput
	Hash string `json:"changeset_hash" jsonschema:"the exact changeset_hash you reviewed"`
}

// Refresh reports how the derived state followed a canonical application.
type Refresh struct {
	State       string        `json:"state"` // refreshed or degraded
	Index       RefreshStep   `json:"index"`
	Views       []RefreshStep `json:"views"`
	Remediation string        `json:"remediation,omitempty"`
}

// RefreshStep is one derived artefact's refresh.
type RefreshStep struct {
	Name  string `json:"name"`
	State string `json:"state"` // refreshed, failed, skipped
	Error string `json:"error,omitempty"`
}

// ApplyResult is the full result of an application.
type ApplyResult struct {
	Operation         string               `json:"operation"`
	MutationCommitted bool                 `json:"mutation_committed"`
	ChangesetID       string               `json:"changeset_id"`
	Hash              string               `json:"changeset_hash"`
	Status            string               `json:"status"`
	Created           []string             `json:"created"`
	Updated           []string             `json:"updated"`
	Removed           []string             `json:"removed"`
	Recovery          *changeset.Recovery  `json:"recovery,omitempty"`
	Receipt           changeset.Receipt    `json:"receipt"`
	DerivedRefresh    *Refresh             `json:"derived_refresh"`
	Changeset         *changeset.Changeset `json:"changeset,omitempty"`
}

// ApplyChangeset applies a changeset canonically and then refreshes the index and every view
// that was published before. A refresh failure never fails the application: the result says
// the derived state is degraded and how to repair it.
func ApplyChangeset(ctx context.Context, d *project.Descriptor, policy string, impl *index.Implementation, applier, id, hash string) (*ApplyResult, error) {
	desk, err := changeset.NewDesk(d, policy)
	if err != nil {
		return nil, err
	}
	out, err := desk.Apply(ctx, applier, id, hash)
	if err != nil {
		return nil, err
	}
	rec := out.Record
	res := &ApplyResult{Operation: "docforge_apply_changeset", MutationCommitted: true, ChangesetID: id, Hash: rec.Hash, Status: rec.Status,
		Created: out.Created, Updated: out.Updated, Removed: out.Removed, Recovery: out.Recovery, Receipt: rec.Receipts[len(rec.Receipts)-1], Changeset: rec.Changeset}
	res.DerivedRefresh = refresh(ctx, d, policy, impl)
	return res, nil
}

func refresh(ctx context.Context, d *project.Descriptor, policy string, impl *index.Implementation) *Refresh {
	r := &Refresh{State: "refreshed", Index: RefreshStep{Name: "index", State: "refreshed"}, Views: []RefreshStep{}}
	if _, err := index.Sync(ctx, d, index.Options{Policy: policy, Implementation: impl}); err != nil {
		r.Index.State, r.Index.Error = "failed", err.Error()
	}
	// Views never published are not ours to create; the others are rendered from one load.
	st, err := render.Status(ctx, d, policy, render.StatusRequest{})
	if err != nil {
		r.Views = append(r.Views, RefreshStep{Name: "views", State: "failed", Error: err.Error()})
	} else {
		var published []string
		for _, v := range st.Views {
			if v.State == render.Missing {
				r.Views = append(r.Views, RefreshStep{Name: v.View, State: "skipped"})
			} else {
				published = append(published, v.View)
			}
		}
		if len(published) > 0 {
			_, perr := render.Publish(ctx, d, policy, published, render.PublishOptions{})
			for _, id := range published {
				step := RefreshStep{Name: id, State: "refreshed"}
				if perr != nil {
					step.State, step.Error = "failed", perr.Error()
				}
				r.Views = append(r.Views, step)
			}
		}
	}
	failed := r.Index.State == "failed"
	for _, v := range r.Views {
		failed = failed || v.State == "failed"
	}
	if failed {
		r.State = "degraded"
		r.Remediation = "the canonical change is applied; do not apply it again. Repair the derived state with 'docforge sync' and 'docforge render' (docforge_sync and docforge_render_status over MCP) once the reported error is fixed"
	}
	return r
}

type applyCompact struct {
	minimumReceipt
	Created        int    `json:"created"`
	Updated        int    `json:"updated"`
	Removed        int    `json:"removed"`
	DerivedRefresh string `json:"derived_refresh"`
	ReceiptSeq     int    `json:"receipt_seq"`
}

func runApply(c *call, a applyInput) (any, error) {
	if a.ChangesetID == "" || a.Hash == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset_id and changeset_hash are both required: application is by exact hash")
	}
	if !protocol.ApplicationEnabled(c.b) {
		return nil, problem.Errorf(problem.OperationNotPermitted, "canonical application is not enabled for this server: start it with --canonical-applier ID --capability-mode application")
	}
	if err := c.preflight("docforge_apply_changeset"); err != nil {
		return nil, err
	}
	res, err := ApplyChangeset(c.ctx, c.d, c.b.Policy(), c.svc.impl, c.b.CanonicalApplier, a.ChangesetID, a.Hash)
	if err != nil {
		return nil, err
	}
	// The application refreshed the index: answer with the generation it published.
	c.env.Revision = 0
	c.identify(nil)
	minimum := minimumReceipt{ReceiptVersion: 1, Compact: true, MutationCommitted: true, ChangesetID: res.ChangesetID, Hash: res.Hash, Status: res.Status, Operation: res.Operation}
	c.fallbacks = []any{applyCompact{minimumReceipt: minimum, Created: len(res.Created), Updated: len(res.Updated), Removed: len(res.Removed),
		DerivedRefresh: res.DerivedRefresh.State, ReceiptSeq: res.Receipt.Seq}, minimum}
	return res, nil
}
