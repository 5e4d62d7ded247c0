package worker

import (
	"context"
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
