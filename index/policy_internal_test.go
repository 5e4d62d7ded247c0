package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Under the no-AST policy a built file that holds Logic must fail verification, which runs
// before fsync and rename, so it can never be published. The no-AST loader produces no Logic,
// so the test verifies an AST-built file against the no-AST policy.
func TestVerifyRefusesLogicUnderNoAST(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"docforge.toml": "schema_version = 1\n[project]\nid = \"p\"\n[sources]\ncontent_roots = [\"docs\"]\ncode_roots = [\"code\"]\n" +
			"[relations]\nallowed = [\"calls\", \"contains\", \"defines\", \"imports\", \"tested_by\"]\n[families.arch]\nkinds = [\"component\"]\n",
		"docs/a.md":   "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\n+++\n",
		"code/go.mod": "module example.com/p\n",
		"code/p/p.go": "package p\n\nfunc F(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn -x\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	if _, err := Sync(ctx, d, Options{}); err != nil {
		t.Fatal(err)
	}
	paths := publication.PathsFor(d, "")
	m0, err := ReadManifest(paths.Index)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(paths.Dir, m0.Segments[0].Name)
	conn, err := openRead(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := readMeta(conn)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	st, err := stateFromMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(ctx, path, st, golang.PolicyAST, true); err != nil {
		t.Fatalf("verify under AST: %v", err)
	}
	if err := verify(ctx, path, st, golang.PolicyNoAST, true); problem.CodeOf(err) != problem.AdapterPolicyForbidsLogic {
		t.Fatalf("verify a Logic projection under no-AST: %v, want adapter_policy_forbids_logic", err)
	}
}

// A merge is due at MergeDeltas deltas, and after any delta over a small base or a delta
// that read many files again for their links; a base alone needs none.
func TestMergeDue(t *testing.T) {
	manifest := func(baseSize int64, deltas int) *Manifest {
		m := &Manifest{Segments: []Segment{{Name: "base", Signature: publication.Signature{Size: baseSize}}}}
		for range deltas {
			m.Segments = append(m.Segments, Segment{Name: "delta", Signature: publication.Signature{Size: 1 << 10}})
		}
		return m
	}
	for _, tc := range []struct {
		name     string
		baseSize int64
		deltas   int
		widened  bool
		want     MergeReason
	}{
		{"a small base alone", smallBase / 2, 0, false, MergeNone},
		{"a delta over a small base", smallBase, 1, false, MergeQuiet},
		{"a delta over a large base", smallBase + 1, 1, false, MergeNone},
		{"a widened delta over a large base", 1 << 30, 1, true, MergeQuiet},
		{"MergeDeltas deltas over a large base", 1 << 30, MergeDeltas, false, MergeCount},
		{"MergeDeltas deltas over a small base", smallBase, MergeDeltas, false, MergeCount},
		{"one delta fewer", 1 << 30, MergeDeltas - 1, false, MergeNone},
	} {
		if got := mergeDue(manifest(tc.baseSize, tc.deltas), tc.widened); got != tc.want {
			t.Errorf("%s: merge due %q, want %q", tc.name, got, tc.want)
		}
	}
}
