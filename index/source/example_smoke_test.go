package source_test

import (
	"context"
	"testing"

	"github.com/docforge/docforge/index/project"
	"github.com/docforge/docforge/index/source"
)

func TestExampleProjectValidates(t *testing.T) {
	d, probs, err := project.Load("../../examples/courier")
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, probs)
	}
	problems, inv, err := source.Validate(context.Background(), d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	if len(inv.Files) != 18 {
		t.Errorf("files = %d, want 18", len(inv.Files))
	}
}
