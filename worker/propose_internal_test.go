package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/index/changeset"
)

// A proposal's result names the tool that queued it, and that tool exists.
func TestProposalResultsNameRealTools(t *testing.T) {
	var names []string
	for _, s := range ToolsFor(Binding{ProjectRoot: "x", CapabilityMode: ModeProposal}) {
		names = append(names, s.Name)
	}
	for _, op := range []string{changeset.OpCreate, changeset.OpUpdate, changeset.OpMove, changeset.OpRelationshipUpdate, changeset.OpDelete} {
		if !slices.Contains(names, proposeTool(op)) {
			t.Errorf("op %s is reported as %s, which is not a tool (%v)", op, proposeTool(op), names)
		}
	}
}

// An empty list is [], not null: a client iterating over it needs no special case.
func TestEmptyChangesetListIsAnEmptyArray(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	out, err := w.svc.Call(context.Background(), Binding{ProjectRoot: w.b.ProjectRoot}, "docforge_list_changesets", []byte(`{}`))
	if err != nil || !strings.Contains(string(out), `"changesets":[]`) || strings.Contains(string(out), `"changesets":null`) {
		t.Errorf("%v: %.300s", err, out)
	}
}

// A number below (or above) its schema's bound is refused with the bound, not replaced by the
// default.
func TestOutOfRangeNumbersAreRefused(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	for _, tc := range []struct{ tool, args string }{
		{"docforge_search", `{"query":"store","limit":0}`},
		{"docforge_search", `{"query":"store","limit":-1}`},
		{"docforge_impact", `{"node_id":"arch.store","depth":-1}`},
		{"docforge_backlinks", `{"node_id":"arch.store","limit":0}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store","budget":0}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store","budget":100000000}`},
		{"docforge_list_changesets", `{"limit":-5}`},
	} {
		out, err := w.svc.Call(context.Background(), w.b, tc.tool, []byte(tc.args))
		var te *ToolError
		if !errors.As(err, &te) || te.Code != "invalid_argument" || !strings.Contains(string(out), "must be at") {
			t.Errorf("%s %s: %v %.200s", tc.tool, tc.args, err, out)
		}
	}
}

// The contract's limits are named as the descriptor names them, not as Go does.
func TestSessionContractLimitsUseContractNames(t *testing.T) {
	w := newWatched(t, CopyExample(t, nil))
	out, _ := w.svc.Call(context.Background(), w.b, "docforge_bootstrap", []byte(`{}`))
	if !strings.Contains(string(out), `"max_results":`) || strings.Contains(string(out), `"MaxResults"`) {
		t.Errorf("%.600s", out)
	}
}
