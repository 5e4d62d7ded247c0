package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/worker/protocol"
)

// bin is docforge-mcp and docforgeBin the docforge command beside it (which the bridge
// starts its manager from), both built once per test binary run.
var bin, docforgeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dfmcp")
	if err != nil {
		panic(err)
	}
	bin, docforgeBin = filepath.Join(dir, "docforge-mcp"), filepath.Join(dir, "docforge")
	for out, pkg := range map[string]string{bin: ".", docforgeBin: "../docforge"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			os.Stderr.Write(b)
			panic(err)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runtime is one test's private manager runtime directory (XDG_RUNTIME_DIR), short enough
// for socket paths; the manager a test started there is stopped when it ends.
type runtime struct {
	dir      string
	env      []string
	projects []string // removed after the manager (and so every worker) has stopped
}

func newRuntime(t *testing.T) *runtime {
	t.Helper()
	dir, err := os.MkdirTemp("", "dfrt")
	if err != nil {
		t.Fatal(err)
	}
	r := &runtime{dir: dir, env: append(os.Environ(), "XDG_RUNTIME_DIR="+dir)}
	t.Cleanup(func() {
		if out, err := r.docforge(t, "manager", "stop"); err != nil {
			t.Errorf("manager stop: %v %s", err, out)
		}
		for _, p := range r.projects {
			if err := os.RemoveAll(p); err != nil {
				t.Errorf("remove project %s after the manager stopped: %v", p, err)
			}
		}
		os.RemoveAll(dir)
	})
	return r
}

// exampleRoot is a copy of the example project that outlives this runtime's manager: a
// worker may still be merging segments in its index when the test's last call returns.
func (r *runtime) exampleRoot(t *testing.T) string {
	t.Helper()
	dst, err := os.MkdirTemp("", "dfproject")
	if err != nil {
		t.Fatal(err)
	}
	r.projects = append(r.projects, dst)
	copyExample(t, dst)
	return dst
}

// docforge runs the docforge command in this runtime.
func (r *runtime) docforge(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(docforgeBin, args...)
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// bridge starts docforge-mcp for root in this runtime and connects the go-sdk client to it.
func (r *runtime) bridge(t *testing.T, ctx context.Context, root string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--project-root", root}, args...)...)
	cmd.Env = r.env
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// managerStatus is 'docforge manager status --json'.
type managerStatus struct {
	Pid     int
	Workers []struct {
		ProjectRoot string `json:"project_root"`
		Pid         int
		Freshness   string
		Index       *struct{ Generation int64 }
		Stats       *struct {
			Calls              int64
			Syncs              int64
			BackgroundSyncs    int64 `json:"background_syncs"`
			WalksSkipped       int64 `json:"walks_skipped"`
			MaxConcurrentSyncs int64 `json:"max_concurrent_syncs"`
		}
	}
}

func (r *runtime) status(t *testing.T) managerStatus {
	t.Helper()
	out, err := r.docforge(t, "manager", "status", "--json")
	if err != nil {
		t.Fatalf("manager status: %v\n%s", err, out)
	}
	var st managerStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("manager status: %v\n%s", err, out)
	}
	return st
}

// exampleRoot is a copy of the example project for a test that starts no manager.
func exampleRoot(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	copyExample(t, dst)
	return dst
}

// copyExample copies the example project into dst without its state directory: the worker
// writes the index there.
func copyExample(t *testing.T, dst string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "examples", "courier"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", root+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, ".docforge"))
}

// A bad binding exits 2 with exactly one line on stderr and writes nothing on stdout, before
// any MCP traffic.
func TestBadBindingExitsBeforeMCP(t *testing.T) {
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
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := rt.bridge(t, ctx, root)
	tools, err := cs.ListTools(ctx, nil)
	if want := len(protocol.ToolsFor(protocol.Binding{})); err != nil || len(tools.Tools) != want {
		t.Fatalf("list tools: %v (%d tools, the catalogue has %d for this binding)", err, len(tools.Tools), want)
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
	dir := tsClient(t)
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	// Every relation stamped, then arch.store's body edited: the relations to it are suspect.
	if out, err := rt.docforge(t, "stamp", "--all", "--project-root", root); err != nil {
		t.Fatalf("stamp --all: %v\n%s", err, out)
	}
	fixture.Append(t, filepath.Join(root, "docs", "architecture", "store.md"), "\nShipments are now sharded by carrier.\n")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), bin, root)
	cmd.Env = rt.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var summary struct {
		Tools        []string
		ReadOnly     []string
		DisabledCode string
		Registered   string
		Viewer       struct {
			URL, Template, State, SnapshotState string
		}
		Suspect struct {
			Backlinks, Dependencies []string
		}
		Confirm struct {
			Status  string
			Stamped bool
		}
		TaskPaging struct {
			Items      int
			SamePages  bool
			OneCapsule bool
		}
		Proposals []struct {
			Name    string
			IsError bool
			Code    *string
			Status  *string
		}
		Results []struct {
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
	if tp := summary.TaskPaging; tp.Items < 8 || !tp.SamePages || !tp.OneCapsule {
		t.Errorf("task context paged by the TypeScript client: %+v", tp)
	}
	if s := summary.Suspect; !slices.Contains(s.Backlinks, "depends_on arch.api: body changed") ||
		!slices.Equal(s.Dependencies, []string{"calls arch.store: body changed", "depends_on arch.store: body changed", "relates_to arch.store: body changed"}) {
		t.Errorf("suspect marks read by the TypeScript client: %+v", s)
	}
	if c := summary.Confirm; c.Status != "ready" || !c.Stamped {
		t.Errorf("a confirmation through the TypeScript client: %+v, want ready with the new stamp in its diff", c)
	}
	// Both sessions have closed and their bridges exited; the viewer lives on in the worker.
	if v := summary.Viewer; v.Template != "graph-browser@18" || v.State != "running" || v.SnapshotState != "current" {
		t.Errorf("viewer through the TypeScript client: %+v", v)
	} else {
		origin, token, _ := strings.Cut(v.URL, "/?focus=arch.store#token=")
		req, _ := http.NewRequest("GET", origin+"/api/session", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the viewer did not outlive the bridge: %v %v", err, resp)
		}
		resp.Body.Close()
	}
	// The first session binds no writer and no applier: it lists the catalogue's tools for
	// that binding, read-only exactly where the catalogue says so.
	var wantTools, wantReadOnly []string
	for _, tool := range protocol.ToolsFor(protocol.Binding{}) {
		wantTools = append(wantTools, tool.Name)
		if tool.ReadOnly {
			wantReadOnly = append(wantReadOnly, tool.Name)
		}
	}
	sorted := func(names []string) []string { return slices.Sorted(slices.Values(names)) }
	if !slices.Equal(sorted(summary.Tools), sorted(wantTools)) || !slices.Equal(sorted(summary.ReadOnly), sorted(wantReadOnly)) {
		t.Errorf("tools %v (read-only %v), want %v (%v)", summary.Tools, summary.ReadOnly, wantTools, wantReadOnly)
	}
	if summary.DisabledCode != "proposal_access_disabled" || !strings.HasPrefix(summary.Registered, "sha256:") {
		t.Errorf("proposal access: disabled %q, registered %q", summary.DisabledCode, summary.Registered)
	}
	wantStatus := []string{"ready", "ready", "ready", "ready", "ready", "", "", "", "abandoned"}
	for i, p := range summary.Proposals {
		empty := p.Name == "docforge_propose_relationship_update" && i == 7
		switch {
		case empty && (!p.IsError || p.Code == nil || *p.Code != "invalid_argument"):
			t.Errorf("an empty relationship list: %+v", p)
		case !empty && p.IsError:
			t.Errorf("%s failed: %v", p.Name, *p.Code)
		case wantStatus[i] != "" && (p.Status == nil || *p.Status != wantStatus[i]):
			t.Errorf("%s: status %v, want %s", p.Name, p.Status, wantStatus[i])
		}
	}
	if len(summary.Proposals) != len(wantStatus) {
		t.Errorf("%d proposal steps ran, want %d", len(summary.Proposals), len(wantStatus))
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

// tsClient is the folder of the TypeScript client scripts, once their npm packages and Node.js
// are there (the test skips, naming them, otherwise).
func tsClient(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "mcpbridge", "testdata", "ts-client"))
	if err != nil {
		t.Fatal(err)
	}
	fixture.NeedFile(t, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"), "the npm package @modelcontextprotocol/sdk",
		"run 'npm ci' in "+dir+" ('make test' does)")
	fixture.NeedCommand(t, "node", "nodejs")
	return dir
}

// The official TypeScript client, with the transport's default environment, connected to a
// folder that is not a project yet: the session starts, lists the tools, and each call answers
// descriptor_not_found with the 'docforge init' remediation (one line on stderr says the same).
// After 'docforge init', a new session answers.
func TestTypeScriptClientBeforeInit(t *testing.T) {
	dir := tsClient(t)
	rt := newRuntime(t)
	root := t.TempDir()
	fixture.WriteTree(t, root, map[string]string{
		"README.md":      "# Parcel store\n\nThe store keeps every scan event of a parcel.\n",
		"store/store.py": "class Store:\n    \"\"\"Keeps scan events.\"\"\"\n\n    def add(self, event):\n        return event\n",
	})
	type summary struct {
		Tools []string
		Calls []struct {
			Name, Remediation string
			IsError           bool
			Code              *string
		}
		Stderr string
	}
	session := func(envMode string) summary {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "session.mjs"), bin, root, envMode)
		cmd.Env = rt.env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node session: %v\n%s", err, stderr.String())
		}
		var s summary
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("summary: %v\n%s", err, out)
		}
		return s
	}
	before := session("default-env")
	if !slices.Contains(before.Tools, "docforge_bootstrap") || !slices.Contains(before.Tools, "docforge_search") {
		t.Errorf("tools before init: %v", before.Tools)
	}
	init := "docforge init " + root
	for _, c := range before.Calls {
		if !c.IsError || c.Code == nil || *c.Code != "descriptor_not_found" || !strings.Contains(c.Remediation, init) {
			t.Errorf("%s before init: error %v, code %v, remediation %q", c.Name, c.IsError, c.Code, c.Remediation)
		}
	}
	if strings.Count(before.Stderr, "\n") != 1 || !strings.Contains(before.Stderr, init) {
		t.Errorf("stderr before init: %q", before.Stderr)
	}
	if out, err := rt.docforge(t, "init", root); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	// XDG_RUNTIME_DIR passed on: the session reaches this test's own manager.
	after := session("")
	for _, c := range after.Calls {
		if c.IsError {
			t.Errorf("%s after init: %v %q", c.Name, *c.Code, c.Remediation)
		}
	}
}
