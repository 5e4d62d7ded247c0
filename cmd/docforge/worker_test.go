package main_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/index/problem"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker"
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
	root := copyTree(t, "../../examples/courier")
	socket := filepath.Join(t.TempDir(), "run", "worker.sock")
	cmd := startWorker(t, root, socket)
	caller, err := worker.DialWorker(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer caller.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := worker.Binding{ProjectRoot: root, CapabilityMode: worker.ModeProposal}
	out, err := caller.Call(ctx, b, "docforge_get_node", []byte(`{"node_id":"arch.store"}`))
	if err != nil || !strings.Contains(string(out), `"title":"Shipment store"`) {
		t.Fatalf("call: %v %.200s", err, out)
	}
	out, err = caller.Call(ctx, b, "docforge_get_node", []byte(`{"node_id":"no.such"}`))
	var te *worker.ToolError
	if !errors.As(err, &te) || te.Code != problem.NodeNotFound || !strings.Contains(string(out), `"code":"node_not_found"`) {
		t.Errorf("missing node: %v %.200s", err, out)
	}

	conn, err := worker.DialRaw(socket)
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
	root := copyTree(t, "../../examples/courier")
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
