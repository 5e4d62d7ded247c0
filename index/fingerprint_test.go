package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
)

// A process fingerprints its executable at start; replacing the file on disk must make the
// next check fail with adapter_restart_required, and an unchanged file must keep passing.
func TestImplementationCheck(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "docforge")
	if err := os.WriteFile(exe, []byte("version one"), 0o755); err != nil {
		t.Fatal(err)
	}
	started, err := startFingerprint(exe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := started.SHA256(); err != nil { // the start hash is taken in the background
		t.Fatal(err)
	}
	if err := started.Check(); err != nil {
		t.Fatalf("unchanged executable: %v", err)
	}
	if err := os.WriteFile(exe, []byte("version two!"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = started.Check()
	if problem.CodeOf(err) != problem.AdapterRestartRequired {
		t.Fatalf("replaced executable: got %v, want adapter_restart_required", err)
	}
	var pe *problem.Error
	if !asProblem(err, &pe) || pe.Problem.Remediation != "restart_project_server" {
		t.Fatalf("remediation = %+v", err)
	}
	os.Remove(exe)
	if problem.CodeOf(started.Check()) != problem.AdapterRestartRequired {
		t.Fatal("a removed executable must also require a restart")
	}
}

func asProblem(err error, out **problem.Error) bool {
	pe, ok := err.(*problem.Error)
	*out = pe
	return ok
}

// A build records the fingerprint of the implementation that made it; a sync that builds
// nothing does not need it.
func TestBuildRecordsTheFingerprint(t *testing.T) {
	ctx := t.Context()
	exe := filepath.Join(t.TempDir(), "docforge")
	if err := os.WriteFile(exe, []byte("some build"), 0o755); err != nil {
		t.Fatal(err)
	}
	im, err := startFingerprint(exe)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docforge.toml"), []byte("schema_version = 1\n[project]\nid = \"p\"\n[sources]\ncontent_roots = [\"docs\"]\n[families.a]\nkinds = [\"k\"]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "docs", "n.md"), []byte("+++\nid = \"n\"\nkind = \"k\"\nfamily = \"a\"\n+++\n"), 0o644)
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("%v %v", err, probs)
	}
	if _, err := Sync(ctx, d, Options{Implementation: im}); err != nil {
		t.Fatal(err)
	}
	snap, err := Open(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if got := snap.Info().Fingerprint; got != im.Fingerprint() || !strings.HasPrefix(got, publication.AdapterName+"@") {
		t.Errorf("recorded fingerprint %q, want %q", got, im.Fingerprint())
	}
}
