package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// An application killed at a random point while a worker serves the project: the worker's
// next answer is the whole state before the application or the whole state after it, never a
// mix, and says current only when it is what the files hold; the journal and the temporary
// files of the killed write are gone once it has answered.
func TestKilledApplyWithALiveWorker(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	d, _, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatal(err)
	}
	socket := filepath.Join(t.TempDir(), "worker.sock")
	startWorker(t, root, socket)
	caller, err := protocol.DialWorker(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	ctx := context.Background()
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeProposal}
	// titles returns the answered titles of the two nodes every changeset retitles, and the
	// answer's staleness.
	titles := func() (string, string, string) {
		t.Helper()
		var got [2]string
		staleness := ""
		for i, id := range []string{"arch.store", "arch.api"} {
			out, err := caller.Call(ctx, b, "docforge_get_node", []byte(`{"node_id":"`+id+`"}`))
			var env struct {
				Staleness string `json:"staleness"`
				Result    struct {
					Title string `json:"title"`
				} `json:"result"`
			}
			if err != nil || json.Unmarshal(out, &env) != nil {
				t.Fatalf("get %s: %v %.300s", id, err, out)
			}
			got[i] = env.Result.Title
			if staleness == "" || env.Staleness != "current" {
				staleness = env.Staleness
			}
		}
		return got[0], got[1], staleness
	}
	onDisk := func(rel string) string {
		data, _ := os.ReadFile(filepath.Join(root, rel))
		for _, l := range strings.Split(string(data), "\n") {
			if s, ok := strings.CutPrefix(l, "title = "); ok {
				return strings.Trim(s, `"`)
			}
		}
		return ""
	}
	titles()
	desk, err := changeset.NewDesk(d, "")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(11))
	outcomes := map[string]int{}
	for round := range fixture.SoakRounds(8) {
		store, api := onDisk("docs/architecture/store.md"), onDisk("docs/architecture/api.md")
		nextStore, nextAPI := fmt.Sprintf("Store %d", round), fmt.Sprintf("API %d", round)
		id := fmt.Sprintf("cs-kill-%d", round)
		res, err := desk.Register(ctx, "agent", changeset.Request{ID: id, Title: "retitle", Operations: []changeset.Operation{
			{Op: changeset.OpUpdate, NodeID: "arch.store", Fields: &changeset.Fields{Title: &nextStore}},
			{Op: changeset.OpUpdate, NodeID: "arch.api", Fields: &changeset.Fields{Title: &nextAPI}}}})
		if err != nil {
			t.Fatal(err)
		}
		apply := exec.Command(binary, "changeset", "apply", id, "--hash", res.Record.Hash)
		apply.Dir = root
		if err := apply.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Intn(80)) * time.Millisecond)
		apply.Process.Signal(syscall.SIGKILL)
		apply.Wait()

		gotStore, gotAPI, staleness := titles()
		switch {
		case gotStore == store && gotAPI == api:
			outcomes["before"]++
		case gotStore == nextStore && gotAPI == nextAPI:
			outcomes["after"]++
		default:
			t.Fatalf("round %d: a mixed state answered: %q, %q (before %q, %q; after %q, %q)", round, gotStore, gotAPI, store, api, nextStore, nextAPI)
		}
		if staleness != "current" || gotStore != onDisk("docs/architecture/store.md") || gotAPI != onDisk("docs/architecture/api.md") {
			t.Fatalf("round %d: answered %q, %q (%s) but the files hold %q, %q", round, gotStore, gotAPI, staleness,
				onDisk("docs/architecture/store.md"), onDisk("docs/architecture/api.md"))
		}
		// A journal that the kill left with no canonical write yet changes no source; the
		// next sync settles it. Settle it now, as a sync would, before the next round.
		if _, err := changeset.Settle(ctx, d, ""); err != nil {
			t.Fatal(err)
		}
		if rec, err := desk.Store.Load(id); err == nil && changeset.Open(rec.Status) {
			if _, err := desk.Abandon(ctx, "agent", id, "rolled back: the next round retitles again"); err != nil {
				t.Fatal(err)
			}
		}
		filepath.WalkDir(filepath.Join(root, "docs"), func(p string, e fs.DirEntry, err error) error {
			if err == nil && strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("round %d: a temporary file of the killed write is left: %s", round, p)
			}
			return nil
		})
	}
	t.Logf("soak: %d applications killed at random points with a live worker: %d answered the state before, %d the state after, 0 a mix", outcomes["before"]+outcomes["after"], outcomes["before"], outcomes["after"])
}

// generated writes a project of n linked Markdown nodes: big enough that a cold build takes
// long enough to be interrupted.
func generated(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	desc := "schema_version = 1\n[project]\nid = \"gen\"\n[sources]\ncontent_roots = [\"docs\"]\n[relations]\nallowed = [\"depends_on\"]\n[families.arch]\nkinds = [\"component\"]\n"
	if err := os.WriteFile(filepath.Join(root, "docforge.toml"), []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		dir := filepath.Join(root, "docs", fmt.Sprintf("d%02d", i%50))
		os.MkdirAll(dir, 0o755)
		deps := ""
		if i > 0 {
			deps = fmt.Sprintf("[relations]\ndepends_on = [\"n%05d\"]\n", i/2)
		}
		body := fmt.Sprintf("+++\nid = \"n%05d\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"Node %d\"\n%s+++\n# Node %d\n\n%s\n", i, i, deps, i,
			strings.Repeat("Words about storage, replication and the write-ahead log. ", 20))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A caller that goes away while its call runs a cold build (a bridge killed, a client that
// hangs up) cancels the build; the worker goes on serving every other caller, round after
// round, and the published index is never lost.
func TestCallerVanishingDuringAColdBuild(t *testing.T) {
	root := generated(t, 3000)
	socket := filepath.Join(t.TempDir(), "worker.sock")
	cmd := startWorker(t, root, socket)
	caller, err := protocol.DialWorker(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	b := protocol.Binding{ProjectRoot: root}
	if _, err := caller.Call(context.Background(), b, "docforge_sync", nil); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	rounds := fixture.SoakRounds(5)
	defer func() {
		if !t.Failed() {
			t.Logf("soak: %d callers gone during a cold build: the worker served on, every next call current", rounds)
		}
	}()
	for round := range rounds {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(20+r.Intn(600))*time.Millisecond)
		caller.Call(ctx, b, "docforge_sync", []byte(`{"rebuild":true}`))
		cancel()
		if err := syscall.Kill(cmd.Process.Pid, 0); err != nil || processState(cmd.Process.Pid) == "Z" {
			t.Fatalf("round %d: the worker exited when a caller went away during a cold build", round)
		}
		out, err := caller.Call(context.Background(), b, "docforge_get_node", []byte(`{"node_id":"n00042"}`))
		if err != nil || !strings.Contains(string(out), `"title":"Node 42"`) || !strings.Contains(string(out), `"staleness":"current"`) {
			t.Fatalf("round %d: the next call: %v %.300s", round, err, out)
		}
	}
}

// processState is the state letter /proc gives a process ("Z" once it has exited and is not
// yet reaped), or "" when /proc does not say.
func processState(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) {
		return string(data[i+2])
	}
	return ""
}

// Hostile input on the command line: each bad invocation exits with its code and the error
// code it names, prints no raw control character, and changes no canonical file.
func TestHostileCLIInput(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	tree := func() string {
		var b strings.Builder
		filepath.WalkDir(filepath.Join(root, "docs"), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				data, _ := os.ReadFile(p)
				fmt.Fprintf(&b, "%s %x\n", p, data)
			}
			return nil
		})
		return b.String()
	}
	before := tree()
	for _, tc := range []struct {
		args []string
		code string
	}{
		{[]string{"get", "../../etc/passwd"}, "invalid_argument"},
		{[]string{"get", "arch\x1b[2Jstore"}, "invalid_argument"},
		{[]string{"search", strings.Repeat("x", 2000)}, "invalid_argument"},
		{[]string{"search", strings.Repeat("a* ", 100)}, "invalid_argument"},
		{[]string{"task-context", "--kind", "hack", "store"}, "invalid_argument"},
		{[]string{"task-context", "--kind", "change", strings.Repeat("word ", 3000)}, "invalid_argument"},
		{[]string{"impact", "arch.nope"}, "node_not_found"},
		{[]string{"changeset", "show", "../../x"}, ""},
		{[]string{"changeset", "apply", "cs-nope", "--hash", "sha256:00"}, ""},
	} {
		out, errOut, code := docforge(t, root, append(tc.args, "--json")...)
		if code == 0 {
			t.Errorf("docforge %.60q: exit 0", tc.args)
			continue
		}
		if tc.code != "" && !strings.Contains(out, `"code": "`+tc.code+`"`) && !strings.Contains(out, `"code":"`+tc.code+`"`) {
			t.Errorf("docforge %.60q: exit %d, want %s: %.300s %.300s", tc.args, code, tc.code, out, errOut)
		}
		if strings.ContainsAny(out+errOut, "\x1b\x00") {
			t.Errorf("docforge %.60q: a raw control character in the output", tc.args)
		}
	}
	if tree() != before {
		t.Error("hostile CLI input changed the canonical files")
	}
}
