package main_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
)

// The review CLI on a changeset an agent registered: list, show, validate, diff, preview,
// then apply by exact hash (refused with a wrong one).
func TestChangesetCommands(t *testing.T) {
	root := fixture.Temp(t, filepath.Join("..", "..", "examples", "courier"))
	d, _, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatal(err)
	}
	desk, _ := changeset.NewDesk(d, "")
	title := "Event store"
	res, err := desk.Register(context.Background(), "agent", changeset.Request{ID: "cs-cli", Title: "rename",
		Operations: []changeset.Operation{{Op: changeset.OpUpdate, NodeID: "arch.store", Fields: &changeset.Fields{Title: &title}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    []string
		code    int
		contain string
	}{
		{[]string{"changeset", "list"}, 0, "cs-cli"},
		{[]string{"changeset", "show", "cs-cli"}, 0, res.Record.Hash},
		{[]string{"changeset", "validate", "cs-cli"}, 0, "valid, 0 errors"},
		{[]string{"changeset", "diff", "cs-cli"}, 0, `+title = "Event store"`},
		{[]string{"changeset", "preview", "cs-cli", "--view", "architecture"}, 0, ".docforge/previews/cs-cli/architecture.html"},
		{[]string{"changeset", "show"}, 2, ""},
		{[]string{"changeset", "apply", "cs-cli"}, 2, ""},
		{[]string{"changeset", "apply", "cs-cli", "--hash", "sha256:00"}, 2, ""},
		{[]string{"changeset", "apply", "cs-cli", "--hash", res.Record.Hash}, 0, "cs-cli applied by maintainer: 0 created, 1 updated, 0 removed"},
		{[]string{"changeset", "list", "--status", "applied"}, 0, "applied"},
		{[]string{"get", "arch.store"}, 0, "Event store"},
	}
	for _, tc := range tests {
		out, errOut, code := docforge(t, root, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.contain) {
			t.Errorf("docforge %v: exit %d (want %d)\n%s%s", tc.args, code, tc.code, out, errOut)
		}
	}
}

// A changeset body may hold invisible format characters (right-to-left prose uses them), and
// its description a joiner (bidi controls are refused there), but the review CLI never prints
// one raw: a diff cannot reorder or hide what it changes.
func TestChangesetDiffShowsInvisibleCharacters(t *testing.T) {
	root := fixture.Temp(t, filepath.Join("..", "..", "examples", "courier"))
	d, _, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatal(err)
	}
	desk, _ := changeset.NewDesk(d, "")
	body := "Shipment store.\n\nRun safe\u202egnp.exe\u202c and\u200b more.\n"
	if _, err := desk.Register(context.Background(), "agent", changeset.Request{ID: "cs-bidi", Title: "bidi", Description: "a description\u200d with a joiner",
		Operations: []changeset.Operation{{Op: changeset.OpUpdate, NodeID: "arch.store", Fields: &changeset.Fields{Body: &body}}}}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"changeset", "diff", "cs-bidi"}, {"changeset", "show", "cs-bidi"}} {
		out, errOut, code := docforge(t, root, args...)
		if code != 0 || strings.ContainsAny(out, "\u202e\u202c\u200b\u200d") {
			t.Errorf("docforge %v: exit %d, a raw invisible character in:\n%s%s", args, code, out, errOut)
		}
	}
	if out, _, _ := docforge(t, root, "changeset", "diff", "cs-bidi"); !strings.Contains(out, `safe\u{202E}gnp.exe\u{202C} and\u{200B} more.`) {
		t.Errorf("the diff does not show the characters escaped:\n%s", out)
	}
}
