package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index/publication"
)

// answer is what the tests read from a tool result envelope.
type answer struct {
	Project struct {
		ID, Root string
	}
	Revision   int64
	SourceHash string `json:"source_hash"`
	Staleness  string
	Result     struct{ Title string }
	Error      *struct{ Code string }
}

func call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (answer, error) {
	var a answer
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return a, err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		return a, fmt.Errorf("%v: %.300s", err, text)
	}
	if res.IsError != (a.Error != nil) {
		return a, fmt.Errorf("isError %v but envelope error %+v", res.IsError, a.Error)
	}
	return a, nil
}

// retitle rewrites a node's title the way an editor saves: a new file renamed over the old.
func retitle(t *testing.T, path, title string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "title = ") {
			line = fmt.Sprintf("title = %q", title)
		}
		out = append(out, line)
	}
	tmp := filepath.Join(filepath.Dir(path), ".edit.tmp")
	if err := os.WriteFile(tmp, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil && !zombie(pid) }

func zombie(pid int) bool { return procState(fmt.Sprintf("/proc/%d/stat", pid)) == 'Z' }

// procState is the state letter of a /proc stat file, 0 when it cannot be read.
func procState(stat string) byte {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// stop sends SIGSTOP and waits until every thread of pid has stopped: the stop takes effect
// asynchronously, and on a loaded machine a thread can still run (and answer a call) for
// tens of milliseconds after kill returns.
func stop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop %d: %v", pid, err)
	}
	eventually(t, fmt.Sprintf("process %d stopped after SIGSTOP", pid), func() bool {
		threads, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		for _, th := range threads {
			if st := procState(th); st != 'T' && st != 't' && st != 0 { // 0: the thread is gone
				return false
			}
		}
		return len(threads) > 0
	})
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	eventually(t, fmt.Sprintf("process %d ended", pid), func() bool { return !alive(pid) })
}

// eventually polls cond until it holds, failing the test after 15 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s, still not: %s", what)
		}
	}
}

// Eight bridges share one worker through one manager, 200 calls each, with edits between
// rounds: no call fails, every answer reflects every edit made before it (the check before
// every call), every edit makes exactly one new generation, and syncs never overlap. Closing
// the bridges' stdin ends them, not the worker.
func TestConcurrentBridgesWithEdits(t *testing.T) {
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	node := filepath.Join(root, "docs", "architecture", "store.md")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const bridges, editEvery = 8, 10
	rounds := fixture.SoakRounds(200)
	sessions := make([]*mcp.ClientSession, bridges)
	for i := range sessions {
		sessions[i] = rt.bridge(t, ctx, root)
	}
	first, err := call(ctx, sessions[0], "docforge_get_node", map[string]any{"node_id": "arch.store"})
	if err != nil || first.Error != nil {
		t.Fatalf("first call: %v %+v", err, first.Error)
	}
	title, generation := first.Result.Title, first.Revision
	for round := 0; round < rounds; round++ {
		if round%editEvery == editEvery-1 {
			title = fmt.Sprintf("Shipment store, edit %d", round)
			retitle(t, node, title)
			generation++
			if round%(2*editEvery) == editEvery-1 {
				// Every other edit, the background rebuild publishes before the next calls
				// (the rest race it): wait for that generation's receipt.
				eventually(t, fmt.Sprintf("generation %d published in the background", generation), func() bool {
					pub, err := publication.Read(filepath.Join(root, ".docforge", "index", "publication.json"))
					return err == nil && pub.Graph.Generation >= generation
				})
			}
		}
		var wg sync.WaitGroup
		for i, cs := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := call(ctx, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"})
				switch {
				case err != nil:
					t.Errorf("round %d bridge %d: %v", round, i, err)
				case a.Error != nil:
					t.Errorf("round %d bridge %d: %s", round, i, a.Error.Code)
				case a.Result.Title != title || a.Revision != generation || a.Staleness != "current":
					t.Errorf("round %d bridge %d: title %q generation %d (%s), want %q generation %d",
						round, i, a.Result.Title, a.Revision, a.Staleness, title, generation)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	st := rt.status(t)
	if len(st.Workers) != 1 {
		t.Fatalf("workers %+v, want one for the project", st.Workers)
	}
	w := st.Workers[0]
	if w.Stats.MaxConcurrentSyncs != 1 || w.Stats.BackgroundSyncs < 1 || w.Stats.Calls < int64(bridges*rounds) {
		t.Errorf("worker stats %+v: want syncs never overlapping, background rebuilds, every call", *w.Stats)
	}
	if w.Index == nil || w.Index.Generation != generation || w.Freshness != "current" {
		t.Errorf("worker index %+v %s, want generation %d current", w.Index, w.Freshness, generation)
	}
	// Close ends each bridge's stdin and waits for the bridge to exit (or signals it); every
	// bridge is gone after this loop, so the worker's state below is what their end left.
	for i, cs := range sessions {
		if err := cs.Close(); err != nil {
			t.Errorf("bridge %d did not end cleanly when its stdin closed: %v", i, err)
		}
	}
	if after := rt.status(t); len(after.Workers) != 1 || after.Workers[0].Pid != w.Pid {
		t.Errorf("after every bridge's stdin closed: %+v, want worker %d still running", after.Workers, w.Pid)
	}
	// 'manager stop' returns once the manager has exited, and it exits after its workers: a
	// caller may remove the project then (the worker may have been merging segments in it).
	if out, err := rt.docforge(t, "manager", "stop"); err != nil {
		t.Fatalf("manager stop: %v %s", err, out)
	}
	if fixture.Running(w.Pid) {
		t.Errorf("worker %d still runs after 'manager stop' returned", w.Pid)
	}
}

// servingBridge is a bridge on the example whose first call succeeded: manager and worker run.
func servingBridge(t *testing.T) (*runtime, context.Context, *mcp.ClientSession) {
	t.Helper()
	rt := newRuntime(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cs := rt.bridge(t, ctx, rt.exampleRoot(t))
	if a, err := call(ctx, cs, "docforge_get_node", map[string]any{"node_id": "arch.store"}); err != nil || a.Error != nil {
		t.Fatalf("first call: %v %+v", err, a.Error)
	}
	return rt, ctx, cs
}

// A worker that stops answering, then one killed mid-call: the call ends with
// worker_unavailable within a bounded time, and the next call reaches a new worker.
func TestWorkerDyingMidCall(t *testing.T) {
	rt, ctx, cs := servingBridge(t)
	get := map[string]any{"node_id": "arch.store"}
	pid := rt.status(t).Workers[0].Pid

	for _, kill := range []bool{false, true} {
		stop(t, pid)
		done := make(chan answer, 1)
		start := time.Now()
		go func() {
			a, err := call(ctx, cs, "docforge_get_node", get)
			if err != nil {
				t.Error(err)
			}
			done <- a
		}()
		if kill {
			time.Sleep(300 * time.Millisecond) // the call is in flight, unanswered
			syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case a := <-done:
			if a.Error == nil || a.Error.Code != "worker_unavailable" {
				t.Errorf("kill=%v: %+v, want worker_unavailable", kill, a.Error)
			}
			// The bridge's own error names the binding as a worker's answer would.
			if a.Project.ID != "courier" || a.Revision == 0 || a.SourceHash == "" {
				t.Errorf("kill=%v: worker_unavailable without the binding's identity: %+v %d %q", kill, a.Project, a.Revision, a.SourceHash)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("kill=%v: the call did not end within 30 s (started %v ago)", kill, time.Since(start))
		}
		a, err := call(ctx, cs, "docforge_get_node", get)
		if err != nil || a.Error != nil || a.Result.Title != "Shipment store" {
			t.Fatalf("kill=%v: the next call: %v %+v", kill, err, a.Error)
		}
		waitDead(t, pid) // the stopped one was replaced, the killed one reaped
		next := rt.status(t).Workers
		if len(next) != 1 || next[0].Pid == pid {
			t.Fatalf("kill=%v: workers %+v, want one new worker", kill, next)
		}
		pid = next[0].Pid
	}
}

// A manager killed with SIGKILL takes its workers with it (their lifeline closes); the
// bridge's next call starts a new manager and worker.
func TestManagerKilled(t *testing.T) {
	rt, ctx, cs := servingBridge(t)
	get := map[string]any{"node_id": "arch.store"}
	st := rt.status(t)
	syscall.Kill(st.Pid, syscall.SIGKILL)
	waitDead(t, st.Workers[0].Pid)
	a, err := call(ctx, cs, "docforge_get_node", get)
	if err != nil || a.Error != nil || a.Result.Title != "Shipment store" {
		t.Fatalf("call after the manager died: %v %+v", err, a.Error)
	}
	if again := rt.status(t); again.Pid == st.Pid || len(again.Workers) != 1 {
		t.Errorf("status %+v, want a new manager (not %d) with one worker", again, st.Pid)
	}
}

// With --no-autostart and no manager, a call is a structured manager_unavailable error and
// nothing is started.
func TestNoAutostart(t *testing.T) {
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := rt.bridge(t, ctx, root, "--no-autostart")
	a, err := call(ctx, cs, "docforge_bootstrap", nil)
	if err != nil || a.Error == nil || a.Error.Code != "manager_unavailable" {
		t.Fatalf("call without a manager: %v %+v", err, a.Error)
	}
	if out, err := rt.docforge(t, "manager", "status"); err == nil || !strings.Contains(out, "manager_unavailable") {
		t.Errorf("status: %v %s, want no manager", err, out)
	}
}

// Upgrading docforge under a running worker: the worker answers adapter_restart_required once
// and stops, and the next call runs on a worker started from the new executable.
func TestExecutableReplacedUnderTheWorker(t *testing.T) {
	rt := newRuntime(t)
	dir := t.TempDir()
	mcpCopy, dfCopy := filepath.Join(dir, "docforge-mcp"), filepath.Join(dir, "docforge")
	for src, dst := range map[string]string{bin: mcpCopy, docforgeBin: dfCopy} {
		b, err := os.ReadFile(src)
		if err != nil || os.WriteFile(dst, b, 0o755) != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(mcpCopy, "--project-root", rt.exampleRoot(t))
	cmd.Env = rt.env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "upgrade-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	get := map[string]any{"node_id": "arch.store"}
	if a, err := call(ctx, cs, "docforge_get_node", get); err != nil || a.Error != nil {
		t.Fatalf("first call: %v %+v", err, a.Error)
	}
	old := rt.status(t).Workers[0].Pid
	// A new build: different bytes (trailing data an ELF loader ignores), renamed into place
	// as an installer does, so the running process keeps its own inode.
	b, _ := os.ReadFile(dfCopy)
	os.WriteFile(dfCopy+".new", append(b, []byte("new build")...), 0o755)
	if err := os.Rename(dfCopy+".new", dfCopy); err != nil {
		t.Fatal(err)
	}
	a, err := call(ctx, cs, "docforge_get_node", get)
	if err != nil || a.Error == nil || a.Error.Code != "adapter_restart_required" {
		t.Fatalf("call after the upgrade: %v %+v", err, a.Error)
	}
	waitDead(t, old)
	a, err = call(ctx, cs, "docforge_get_node", get)
	if err != nil || a.Error != nil || a.Result.Title != "Shipment store" {
		t.Fatalf("call after the old worker stopped: %v %+v", err, a.Error)
	}
	if w := rt.status(t).Workers; len(w) != 1 || w[0].Pid == old {
		t.Errorf("workers %+v, want one new worker", w)
	}
}
