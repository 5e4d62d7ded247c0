package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docforge/docforge/index/problem"
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
