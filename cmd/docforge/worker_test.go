package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

// startWorker runs 'docforge worker' as a real child process and waits for its socket.
func startWorker(t *testing.T, root, socket string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, "worker", "--project-root", root, "--socket", socket)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if st, err := os.Stat(socket); err == nil {
			if st.Mode().Perm() != 0o600 {
				t.Fatalf("worker socket mode %v, want 0600", st.Mode().Perm())
			}
			return cmd
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("the worker socket never appeared")
	return nil
}

// A worker process serves the tools over its socket (version 2 only), reports its health
// without opening SQLite, and a killed worker is worker_unavailable, promptly.
func TestWorkerProcessOverGRPC(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	socket := filepath.Join(t.TempDir(), "run", "worker.sock")
	cmd := startWorker(t, root, socket)
	caller, err := protocol.DialWorker(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeProposal}
	out, err := caller.Call(ctx, b, "docforge_get_node", []byte(`{"node_id":"arch.store"}`))
	if err != nil || !strings.Contains(string(out), `"title":"Shipment store"`) {
		t.Fatalf("call: %v %.200s", err, out)
	}
	out, err = caller.Call(ctx, b, "docforge_get_node", []byte(`{"node_id":"no.such"}`))
	var te *protocol.ToolError
	if !errors.As(err, &te) || te.Code != problem.NodeNotFound || !strings.Contains(string(out), `"code":"node_not_found"`) {
		t.Errorf("missing node: %v %.200s", err, out)
	}

	conn, err := protocol.DialRaw(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := docforgev2.NewWorkerClient(conn)
	if _, err := client.Call(ctx, &docforgev2.CallRequest{ProtocolVersion: 1, Tool: "docforge_bootstrap"}); err == nil ||
		!strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a version-1 client: %v, want an error naming both versions", err)
	}
	h, err := client.Health(ctx, &docforgev2.HealthRequest{ProtocolVersion: docforgev2.ProtocolVersion})
	if err != nil || h.Freshness != "current" || h.Index == nil || h.Index.Generation < 1 || h.Binding.ProjectRoot != root {
		t.Errorf("health: %v %+v", err, h)
	}
	// The watch proves the sources current without a walk, and sees an edit: health then says
	// stale, and syncs nothing.
	node := filepath.Join(root, "docs", "architecture", "store.md")
	data, _ := os.ReadFile(node)
	os.WriteFile(node, append(data, []byte("\nOne more line for the health check.\n")...), 0o644)
	if h, err := client.Health(ctx, &docforgev2.HealthRequest{ProtocolVersion: docforgev2.ProtocolVersion}); err != nil || h.Freshness != "stale" {
		t.Errorf("health after an edit: %v %+v", err, h)
	}
	if h, err := client.Health(ctx, &docforgev2.HealthRequest{ProtocolVersion: docforgev2.ProtocolVersion}); err != nil || h.Freshness != "stale" || h.Index.Generation != 1 {
		t.Errorf("health again: %v %+v (health must not sync)", err, h)
	}

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	start := time.Now()
	callCtx, callCancel := context.WithTimeout(ctx, 5*time.Second)
	defer callCancel()
	out, err = caller.Call(callCtx, b, "docforge_get_node", []byte(`{"node_id":"arch.store"}`))
	if !errors.As(err, &te) || te.Code != problem.WorkerUnavailable || !strings.Contains(string(out), `"code":"worker_unavailable"`) || time.Since(start) > 6*time.Second {
		t.Errorf("after SIGKILL: %v after %s, want worker_unavailable promptly", err, time.Since(start))
	}
}

// SIGTERM stops a worker cleanly and removes its socket.
func TestWorkerStopsOnSIGTERM(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	socket := filepath.Join(t.TempDir(), "worker.sock")
	cmd := startWorker(t, root, socket)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("worker exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop on SIGTERM")
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

// managerEnv runs docforge commands against a private manager runtime directory.
func managerEnv(t *testing.T) (run func(args ...string) (string, int), dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "dfcli")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+dir)
	run = func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	t.Cleanup(func() { run("manager", "stop"); os.RemoveAll(dir) })
	return run, dir
}

// The manager commands: start (idempotent), status, a second 'manager run' refused with the
// first one's pid, stop.
func TestManagerCommands(t *testing.T) {
	run, dir := managerEnv(t)
	out, code := run("manager", "status")
	if code != 3 || !strings.Contains(out, "manager_unavailable") || !strings.Contains(out, "docforge manager start") {
		t.Errorf("status with no manager: %d %s", code, out)
	}
	out, code = run("manager", "start")
	if code != 0 || !strings.Contains(out, "manager running (pid ") {
		t.Fatalf("start: %d %s", code, out)
	}
	again, code := run("manager", "start")
	if code != 0 || firstLine(again) != firstLine(out) {
		t.Errorf("second start: %d %q, want the same manager %q", code, again, out)
	}
	out, code = run("manager", "run")
	if code == 0 || !strings.Contains(out, "manager_running") || !strings.Contains(out, "pid ") {
		t.Errorf("a second manager: %d %s", code, out)
	}
	out, code = run("manager", "status", "--json")
	var st struct {
		Pid     int
		Socket  string
		Workers []any
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Pid == 0 || st.Socket != filepath.Join(dir, "docforge", "manager.sock") {
		t.Errorf("status: %d %s", code, out)
	}
	out, code = run("manager", "stop")
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Errorf("stop: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "docforge", "manager.sock")); !os.IsNotExist(err) {
		t.Errorf("socket after stop: %v", err)
	}
	if fixture.Running(st.Pid) {
		t.Errorf("manager %d still runs after 'manager stop' returned: stop must wait for it (and its workers) to exit", st.Pid)
	}
	if out, code = run("manager", "bogus"); code != 2 || !strings.Contains(out, "run, start, stop, status or install") {
		t.Errorf("unknown subcommand: %d %s", code, out)
	}
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// 'manager install' writes the service definitions for this user, naming this executable.
func TestManagerInstall(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(binary, "manager", "install")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install: %v %s", err, out)
	}
	exe, _ := filepath.EvalSymlinks(binary)
	unit, err := os.ReadFile(filepath.Join(home, ".config", "systemd", "user", "docforge-manager.service"))
	if err != nil || !strings.Contains(string(unit), "ExecStart="+exe+" manager run") {
		t.Errorf("service unit: %v\n%s", err, unit)
	}
	sock, err := os.ReadFile(filepath.Join(home, ".config", "systemd", "user", "docforge-manager.socket"))
	if err != nil || !strings.Contains(string(sock), "ListenStream=%t/docforge/manager.sock") || !strings.Contains(string(sock), "SocketMode=0600") {
		t.Errorf("socket unit: %v\n%s", err, sock)
	}
	if !strings.Contains(string(out), "systemctl --user enable --now docforge-manager.socket") {
		t.Errorf("install output: %s", out)
	}
}

// Under systemd socket activation the manager serves the socket it inherits as descriptor 3
// (LISTEN_PID, LISTEN_FDS) and leaves the socket file alone when it stops: systemd owns it.
func TestManagerSocketActivation(t *testing.T) {
	dir, err := os.MkdirTemp("", "dfsa")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	rt := filepath.Join(dir, "docforge")
	os.Mkdir(rt, 0o700)
	sockPath := filepath.Join(rt, "manager.sock")
	ln, err := net.Listen("unix", sockPath)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sockPath, 0o600)
	f, err := ln.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	// sh sets LISTEN_PID to its own pid and execs the manager in place, as systemd does.
	cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" manager run`, binary)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir)
	cmd.ExtraFiles = []*os.File{f}
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer cmd.Process.Kill()
	status := exec.Command(binary, "manager", "status", "--json")
	status.Env = cmd.Env
	out, err := status.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf(`"pid": %d`, cmd.Process.Pid)) {
		t.Fatalf("status through the inherited socket: %v %s (manager: %s)", err, out, logs.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("manager exit: %v %s", err, logs.String())
	}
	if _, err := os.Stat(sockPath); err != nil {
		t.Errorf("the activated manager removed systemd's socket: %v", err)
	}
}

// 'docforge view' gets a viewer from the manager's worker, prints its URL, and returns while
// the viewer keeps serving; a second run reuses it; a bad view is refused with its code;
// 'view --stop' stops it.
func TestViewCommand(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	run, _ := managerEnv(t)
	out, code := run("view", "--project-root", root, "--no-open", "arch.store")
	if code != 0 || !strings.Contains(out, "started a viewer of generation 1") {
		t.Fatalf("view: %d %s", code, out)
	}
	// No manager ran: the command started one, and says so, with how to stop it.
	if !strings.Contains(out, "started the background manager (pid ") || !strings.Contains(out, "'docforge manager stop'") {
		t.Errorf("view does not say it started a manager: %s", out)
	}
	var url string
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "http://127.0.0.1:") {
			url = f
		}
	}
	if !strings.Contains(url, "?focus=arch.store#token=") {
		t.Fatalf("no viewer URL in %q", out)
	}
	origin := url[:strings.Index(url, "/?")]
	resp, err := http.Get(origin + "/")
	if err != nil {
		t.Fatalf("the viewer stopped with the command: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("page: %s %v", resp.Status, resp.Header)
	}
	out, code = run("view", "--project-root", root, "--no-open", "--view", "flow", "arch.store")
	if code != 0 || !strings.Contains(out, "reusing the running viewer") || !strings.Contains(out, origin) || strings.Contains(out, "background manager") {
		t.Errorf("second view: %d %s", code, out)
	}
	out, code = run("view", "--project-root", root, "--no-open", "--view", "logic")
	if code != 2 || !strings.Contains(out, "invalid_argument") || !strings.Contains(out, "node_id") {
		t.Errorf("logic without a node: %d %s", code, out)
	}
	out, code = run("manager", "status")
	if code != 0 || !strings.Contains(out, "port "+origin[strings.LastIndex(origin, ":")+1:]) {
		t.Errorf("manager status does not show the viewer: %s", out)
	}
	// view --stop stops it: its URL no longer answers.
	out, code = run("view", "--project-root", root, "--stop")
	if code != 0 || !strings.Contains(out, "the viewer stopped") {
		t.Errorf("view --stop: %d %s", code, out)
	}
	if resp, err := http.Get(origin + "/"); err == nil {
		resp.Body.Close()
		t.Errorf("the viewer still answers after view --stop: %s", resp.Status)
	}
}

// With the project's worker running, the CLI asks it: a query is answered by it, and a
// no-change sync is proven by its source watch without a walk; the answer after an edit has
// it. A query starts no worker: with none running (or no manager) the CLI answers itself.
func TestCLIAsksTheRunningWorker(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	run, _ := managerEnv(t)
	if out, code := run("manager", "start"); code != 0 {
		t.Fatalf("manager start: %d %s", code, out)
	}
	workers := func() int {
		out, _ := run("manager", "status", "--json")
		return strings.Count(out, `"project_root"`)
	}
	if out, code := run("get", "--project-root", root, "arch.store"); code != 0 || !strings.Contains(out, "Shipment store") || workers() != 0 {
		t.Fatalf("a query with no worker running: %d, %d workers started: %s", code, workers(), out)
	}
	if out, code := run("call", "--project-root", root, "docforge_bootstrap"); code != 0 {
		t.Fatalf("start the project's worker: %d %s", code, out)
	}
	stats := func() (calls, walksSkipped int64) {
		out, code := run("manager", "status", "--json")
		var st struct {
			Workers []struct {
				ProjectRoot string `json:"project_root"`
				Stats       struct {
					Calls        int64 `json:"calls"`
					WalksSkipped int64 `json:"walks_skipped"`
				}
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("manager status: %d %s", code, out)
		}
		for _, w := range st.Workers {
			return w.Stats.Calls, w.Stats.WalksSkipped
		}
		return 0, 0
	}
	before, _ := stats()
	if out, code := run("get", "--project-root", root, "arch.store"); code != 0 || !strings.Contains(out, "Shipment store") {
		t.Fatalf("get through the worker: %d %s", code, out)
	}
	calls, skipped := stats()
	if calls != before+1 {
		t.Fatalf("the query did not reach the worker: %d calls, then %d", before, calls)
	}
	out, code := run("sync", "--project-root", root)
	if code != 0 || !strings.Contains(out, "index is current: generation 1") {
		t.Fatalf("no-change sync: %d %s", code, out)
	}
	if _, after := stats(); after != skipped+1 {
		t.Errorf("the no-change sync walked: walks skipped %d, then %d", skipped, after)
	}
	retitle := filepath.Join(root, "docs", "architecture", "store.md")
	src, _ := os.ReadFile(retitle)
	os.WriteFile(retitle, []byte(strings.Replace(string(src), "Shipment store", "Shipment store, edited", 1)), 0o644)
	// The next answer reflects the edit: the worker's watch barrier orders it after the write.
	if out, code = run("get", "--project-root", root, "arch.store"); code != 0 || !strings.Contains(out, "Shipment store, edited") {
		t.Errorf("the answer after an edit: %d %s", code, out)
	}
}

// No program that the repository or the environment configures runs during a sync, a task
// context in the CLI, or a task context through the manager's worker (a child of a child,
// with the environment the CLI had), and each reads the history as committed.
func TestNoProgramARepositoryConfiguresRuns(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	fixture.Git(t, root, "init", "-q")
	fixture.Git(t, root, "add", "-A")
	fixture.Git(t, root, "commit", "-q", "-m", "Import the courier")
	armed := fixture.ArmGitTraps(t, root)
	read := "1 commits to " + armed.Head[:12]
	if out, _, code := docforge(t, root, "sync", "--rebuild"); code != 0 || !strings.Contains(out, read) {
		t.Errorf("sync: %d %s, want the history %q", code, out, read)
	}
	task := `{"kind":"change","task":"make the store keep late events"}`
	read = "the messages of 1 commits to " + armed.Head
	if out, _, code := docforge(t, root, "task-context", "--kind", "change", "--json", "make the store keep late events"); code != 0 || !strings.Contains(out, read) {
		t.Errorf("task-context: %d %s, want %q", code, out, read)
	}
	run, _ := managerEnv(t)
	if out, code := run("call", "--project-root", root, "--json", "docforge_get_task_context", task); code != 0 || !strings.Contains(out, read) {
		t.Errorf("docforge_get_task_context through the worker: %d %s, want %q", code, out, read)
	}
	if ran := armed.Ran(t); ran != "" {
		t.Errorf("a trap ran:\n%s", ran)
	}
}

// Task context answers with evidence on a clone whose history git cannot fully read (a
// blobless clone, a shallow one, one missing a blob, one missing a commit), in the CLI and
// through a worker, and says how the history falls short and how to turn it off.
func TestTaskContextOnDegradedClones(t *testing.T) {
	origin := fixture.Temp(t, "../../examples/courier")
	fixture.Git(t, origin, "init", "-q")
	store := filepath.Join(origin, "code", "store", "store.go")
	src, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := os.WriteFile(store, fmt.Appendf(nil, "%s\n// Late events are kept (revision %d).\n", src, i), 0o644); err != nil {
			t.Fatal(err)
		}
		fixture.Git(t, origin, "add", "-A")
		fixture.Git(t, origin, "commit", "-q", "-m", fmt.Sprintf("Keep late events in the store, step %d", i))
	}
	fixture.Git(t, origin, "config", "uploadpack.allowFilter", "true")
	clone := func(args ...string) string {
		dst := filepath.Join(t.TempDir(), "courier")
		fixture.Git(t, origin, append(append([]string{"clone", "-q"}, args...), "file://"+origin, dst)...)
		return dst
	}
	pruned := clone()
	fixture.RemoveGitObject(t, pruned, fixture.Git(t, pruned, "rev-parse", "HEAD~2:code/store/store.go"))
	noCommit := clone()
	fixture.RemoveGitObject(t, noCommit, fixture.Git(t, noCommit, "rev-parse", "HEAD~1"))
	run, _ := managerEnv(t)
	task := `{"kind":"change","task":"make the store keep late events"}`
	for _, tc := range []struct{ name, root, says string }{
		{"blobless", clone("--filter=blob:none"), "history: partial"},
		{"depth 3", clone("--depth", "3"), "history: partial"},
		{"a blob pruned", pruned, "history: partial"},
		{"a commit missing", noCommit, "history: none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, errOut, code := docforge(t, tc.root, "sync"); code != 0 || !strings.Contains(out, tc.says) || !strings.Contains(out, "enabled = false") {
				t.Errorf("sync: %d %s%s, want %q", code, out, errOut, tc.says)
			}
			answers := map[string]func() (string, int){
				"cli": func() (string, int) {
					out, errOut, code := docforge(t, tc.root, "task-context", "--kind", "change", "--json", "make the store keep late events")
					return out + errOut, code
				},
				"worker": func() (string, int) {
					return run("call", "--project-root", tc.root, "--json", "docforge_get_task_context", task)
				},
			}
			for via, answer := range answers {
				out, code := answer()
				var env struct {
					Warnings []string `json:"warnings"`
					Result   struct {
						Items []json.RawMessage `json:"items"`
					} `json:"result"`
				}
				if code != 0 || json.Unmarshal([]byte(out), &env) != nil {
					t.Fatalf("%s: exit %d: %s", via, code, out)
				}
				if len(env.Result.Items) == 0 || !slices.ContainsFunc(env.Warnings, func(w string) bool {
					return strings.HasPrefix(w, tc.says) && strings.Contains(w, "enabled = false")
				}) {
					t.Errorf("%s: %d items, warnings %q, want one saying %q", via, len(env.Result.Items), env.Warnings, tc.says)
				}
			}
		})
	}
}

// Two managers on one project (a host that starts its bridge with another XDG_RUNTIME_DIR):
// the second's worker follows the first's publication. Every command that syncs or answers
// from the index works through the follower, says who publishes, and never panics.
func TestCommandsOnAFollowedProject(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	first, _ := managerEnv(t)
	second, _ := managerEnv(t)
	for _, run := range []func(...string) (string, int){first, second} {
		if out, code := run("call", "--project-root", root, "docforge_sync", "{}"); code != 0 {
			t.Fatalf("start a worker: %d %s", code, out)
		}
	}
	out, code := second("sync", "--project-root", root)
	if code != 0 || !strings.Contains(out, "publishes this project's index: generation 1") || !strings.Contains(out, "docforge manager stop") {
		t.Errorf("sync on the follower: %d %s", code, out)
	}
	out, code = second("sync", "--project-root", root, "--json")
	var res struct {
		Build       string          `json:"build"`
		Generation  int64           `json:"generation"`
		Publication json.RawMessage `json:"publication"`
		PublishedBy string          `json:"published_by"`
		Note        string          `json:"note"`
	}
	if code != 0 || json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &res) != nil || res.Generation != 1 ||
		string(res.Publication) == "null" || !strings.Contains(res.PublishedBy, "pid ") || res.Note == "" {
		t.Errorf("sync --json on the follower: %d %s", code, out)
	}
	for _, args := range [][]string{
		{"sync", "--rebuild"}, {"status"}, {"validate"}, {"search", "store"}, {"get", "arch.store"},
		{"filter", "--family", "architecture"}, {"backlinks", "arch.store"}, {"impact", "arch.store"},
		{"context", "arch.store"}, {"task-context", "--kind", "change", "keep late events"}, {"diff"},
		{"drift"}, {"call", "docforge_sync", `{"rebuild":true}`},
	} {
		out, code := second(append(args, "--project-root", root)...)
		if code != 0 || strings.Contains(out, "panic") {
			t.Errorf("%s on the follower: %d %s", args, code, out)
		}
	}
}
