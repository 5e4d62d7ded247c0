package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
)

// malformed writes a file of unit repeated to size bytes under root.
func malformed(t *testing.T, root, rel, unit string, size int) {
	t.Helper()
	fixture.WriteTree(t, root, map[string]string{rel: strings.Repeat(unit, size/len(unit))})
}

// A malformed code file costs a sync at most its bounds, however it is malformed, and is
// warned of: 2 MB of each kind that once stalled a project for minutes (wide ERROR nodes read
// child by child, nested declarations analyzed once each), beside the example's sources.
func TestMalformedFilesCostASyncTheirBounds(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	for rel, unit := range map[string]string{
		"code/gen/calls.py": "f(", "code/gen/angles.ts": "a < b > (", "code/gen/classes.ts": "class A { m() {} ",
		"code/gen/assign.py": "x = 1\n", "code/gen/brackets.js": "[",
	} {
		malformed(t, root, rel, unit, 2<<20)
	}
	start := time.Now()
	out, errOut, code := docforge(t, root, "sync", "--rebuild")
	took := time.Since(start)
	// Five files of at most 2 s each (treesit.DefaultBounds at 2 MB) on the machine's cores,
	// with room for a slow machine; before the bounds one such file took over ten minutes.
	if code != 0 || took > 30*time.Second {
		t.Fatalf("sync: exit %d after %v\n%s%s", code, took, out, errOut)
	}
	got, _, _ := docforge(t, root, "validate", "--json")
	for _, rel := range []string{"code/gen/calls.py", "code/gen/angles.ts", "code/gen/classes.ts", "code/gen/brackets.js"} {
		if !strings.Contains(got, `"path": "`+rel+`"`) || !strings.Contains(got, "code_parse_error") {
			t.Errorf("no code_parse_error warning for %s:\n%s", rel, got)
		}
	}
}

// SIGTERM stops a sync within a second, even one deep in parsing, and the index published
// before stays.
func TestSIGTERMStopsASync(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	if _, errOut, code := docforge(t, root, "sync"); code != 0 {
		t.Fatalf("first sync: %s", errOut)
	}
	for i := range 8 {
		malformed(t, root, filepath.Join("code", "gen", string(rune('a'+i))+".py"), "f(", 3<<19)
	}
	cmd := exec.Command(binary, "sync", "--rebuild")
	cmd.Dir = root
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if took := time.Since(sent); took > 1500*time.Millisecond || err == nil {
		t.Errorf("sync after SIGTERM: %v, %v later (want an error within a second)", err, took)
	}
	out, _, _ := docforge(t, root, "get", "arch.store")
	if !strings.Contains(out, "Shipment store") {
		t.Errorf("the index published before is gone:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "code", "gen", "a.py")); err != nil {
		t.Fatal(err)
	}
}

// With a bridge's worker running, a malformed file written beside the sources delays the
// next call by at most the file's bounds, and the calls after it answer at once.
func TestMalformedFileBesideARunningWorker(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	run, _ := managerEnv(t)
	if out, code := run("call", "--project-root", root, "docforge_bootstrap"); code != 0 {
		t.Fatalf("start the project's worker: %d %s", code, out)
	}
	// The file: 216 KB that blocked two bridges' every call for 97 s.
	malformed(t, root, "code/gen/angles.ts", "a < b > (", 216<<10)
	for i := range 3 {
		start := time.Now()
		out, code := run("call", "--project-root", root, "docforge_get_node", `{"node_id":"arch.store"}`)
		took := time.Since(start)
		// Its bounds are under 0.7 s; the rest is room for a slow machine.
		if code != 0 || !strings.Contains(out, "Shipment store") || took > 10*time.Second {
			t.Fatalf("call %d after the file: exit %d after %v\n%s", i, code, took, out)
		}
	}
	out, code := run("call", "--project-root", root, "docforge_search", `{"query":"angles"}`)
	if code != 0 || !strings.Contains(out, "code/gen/angles.ts") {
		t.Errorf("the malformed file is not indexed: %d %s", code, out)
	}
}
