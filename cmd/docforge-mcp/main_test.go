package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// build compiles docforge-mcp once per test binary run.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "docforge-mcp")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func exampleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "examples", "courier"))
	if err != nil {
		t.Fatal(err)
	}
	// Work on a copy: the server writes the index into the project's state directory.
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-R", root+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, ".docforge"))
	return dst
}

// A bad binding exits 2 with exactly one line on stderr and writes nothing on stdout, before
// any MCP traffic.
func TestBadBindingExitsBeforeMCP(t *testing.T) {
	bin := build(t)
	root := exampleRoot(t)
	for _, args := range [][]string{
		{},
		{"--project-root", "relative/path"},
		{"--project-root", root, "--proposal-writer", "mallory"},
		{"--project-root", root, "--capability-mode", "application"},
		{"--project-root", root, "extra"},
	} {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
		err := cmd.Run()
		exit, ok := err.(*exec.ExitError)
		if !ok || exit.ExitCode() != 2 {
			t.Errorf("%v: exit %v, want 2", args, err)
		}
		if stdout.Len() != 0 || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 || stderr.Len() == 0 {
			t.Errorf("%v: stdout %q, stderr %q; want nothing and one line", args, stdout.String(), stderr.String())
		}
	}
}

// The real binary over stdio, with the go-sdk client: initialize, list tools, call some.
func TestServesOverStdio(t *testing.T) {
	bin := build(t)
	root := exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "--project-root", root)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 12 {
		t.Fatalf("list tools: %v (%d tools)", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_bootstrap"})
	if err != nil || res.IsError {
		t.Fatalf("bootstrap: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, `"effective_policy"`) || !strings.Contains(text, `"revision":1`) {
		t.Errorf("bootstrap result: %.400s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_get_node", Arguments: map[string]any{"node_id": "nope"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"code":"node_not_found"`) {
		t.Errorf("missing node: %v %+v", err, res)
	}
}

// The real binary driven by a client of another implementation: the official TypeScript SDK
// (installed by 'make test' into mcpbridge/testdata/ts-client) lists the tools and calls every
// read tool over stdio.
func TestTypeScriptClient(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "mcpbridge", "testdata", "ts-client"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the TypeScript MCP SDK is not installed in %s: run 'make test', which installs it with npm ci", dir)
	}
	bin := build(t)
	root := exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), bin, root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var summary struct {
		Tools    []string
		ReadOnly bool
		Results  []struct {
			Name      string
			IsError   bool
			Code      *string
			Revision  int64
			Staleness string
			Notice    bool
		}
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	if len(summary.Tools) != 14 || !summary.ReadOnly {
		t.Errorf("tools %v (read-only %v)", summary.Tools, summary.ReadOnly)
	}
	for i, r := range summary.Results {
		last := i == len(summary.Results)-1 // the deliberate unknown node
		switch {
		case last && (!r.IsError || r.Code == nil || *r.Code != "node_not_found"):
			t.Errorf("%s on an unknown node: isError %v code %v", r.Name, r.IsError, r.Code)
		case !last && r.IsError:
			t.Errorf("%s failed: %v", r.Name, *r.Code)
		case !r.Notice || r.Revision < 1 || (!last && r.Staleness != "current"):
			t.Errorf("%s envelope: %+v", r.Name, r)
		}
	}
}
