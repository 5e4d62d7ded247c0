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

// The merge policy: deltas of like size fold into one delta, newest first; the base is
// rewritten once the deltas reach 1/baseShare of it; MergeDeltas deltas grown apart in size
// fold all together; a base alone, or one delta much smaller than the one before it, needs
// nothing.
func TestMergeRun(t *testing.T) {
	manifest := func(base int64, deltas ...int64) *Manifest {
		m := &Manifest{Segments: []Segment{{Name: "base", Signature: publication.Signature{Size: base}}}}
		for _, size := range deltas {
			m.Segments = append(m.Segments, Segment{Name: "delta", Signature: publication.Signature{Size: size}})
		}
		return m
	}
	const mb = 1 << 20
	for _, tc := range []struct {
		name     string
		m        *Manifest
		wantFrom int
		wantOK   bool
		due      MergeReason
	}{
		{"a base alone", manifest(mb), 0, false, MergeNone},
		{"one small delta", manifest(512*mb, mb/2), 0, false, MergeNone},
		{"two deltas of one size", manifest(512*mb, mb/2, mb/2), 1, true, MergeQuiet},
		{"a large delta, then a small one", manifest(512*mb, 10*mb, mb/2), 0, false, MergeNone},
		{"a large delta, then two small ones", manifest(512*mb, 10*mb, mb/2, mb/2), 2, true, MergeQuiet},
		{"sizes halving from oldest to newest", manifest(512*mb, 40*mb, 10*mb, 2*mb), 0, false, MergeNone},
		{"MergeDeltas deltas grown apart", manifest(512*mb, 40*mb, 10*mb, 2*mb, mb/4), 1, true, MergeCount},
		{"deltas at 1/baseShare of the base", manifest(8*mb, mb/2, mb/2), 0, true, MergeQuiet},
		{"one delta at 1/baseShare of the base", manifest(8*mb, mb), 0, true, MergeQuiet},
		{"one delta just under it", manifest(8*mb, mb-1), 0, false, MergeNone},
		{"MergeDeltas deltas at the share", manifest(4*mb, mb/8, mb/8, mb/8, mb/8), 0, true, MergeCount},
	} {
		from, ok := mergeRun(tc.m)
		if from != tc.wantFrom || ok != tc.wantOK {
			t.Errorf("%s: run from %d (%v), want from %d (%v)", tc.name, from, ok, tc.wantFrom, tc.wantOK)
		}
		if got := mergeDue(tc.m); got != tc.due {
			t.Errorf("%s: merge due %q, want %q", tc.name, got, tc.due)
		}
	}
}
