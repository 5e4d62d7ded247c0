package main_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailscale/hujson"

	"github.com/docforge/docforge/base/fixture"
)

// mcp-config writes a working entry for each host into a configuration that already holds
// another server (and, for VS Code's JSON with comments, comments): the other server and the
// comments stay, a backup holds the file as it was, and the server the entry names starts and
// answers over MCP.
func TestMCPConfigWritesAWorkingEntry(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	run, runtimeDir := managerEnv(t)
	if out, code := run("sync", "--project-root", root); code != 0 {
		t.Fatalf("sync: %d %s", code, out)
	}
	existing := map[string]string{
		"claude-code":    `{"mcpServers": {"git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]}}}`,
		"claude-desktop": `{"globalShortcut": "", "mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}`,
		"vscode":         "{\n  // shared with the team\n  \"servers\": {\n    \"git\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"mcp-server-git\"]}, // pinned\n  },\n  \"inputs\": []\n}\n",
		"cursor":         `{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}`,
	}
	for _, host := range slices.Sorted(maps.Keys(existing)) {
		t.Run(host, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(file, []byte(existing[host]), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := run("mcp-config", "--project-root", root, "--host", host, "--write", "--config", file, "--capability-mode", "read")
			if code != 0 {
				t.Fatalf("mcp-config: %d %s", code, out)
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if backup, err := os.ReadFile(file + ".bak"); err != nil || string(backup) != existing[host] {
				t.Errorf("backup: %v %q", err, backup)
			}
			if host == "vscode" {
				for _, comment := range []string{"// shared with the team", "// pinned"} {
					if !strings.Contains(string(raw), comment) {
						t.Errorf("the comment %q is gone:\n%s", comment, raw)
					}
				}
			} else if !json.Valid(raw) {
				t.Errorf("not plain JSON:\n%s", raw)
			}
			std, err := hujson.Standardize(raw)
			if err != nil {
				t.Fatalf("%v:\n%s", err, raw)
			}
			key, name := "mcpServers", "docforge"
			if host == "vscode" {
				key = "servers"
			}
			if host == "claude-desktop" {
				name = "docforge-courier"
			}
			var all map[string]json.RawMessage
			if err := json.Unmarshal(std, &all); err != nil {
				t.Fatalf("%v:\n%s", err, raw)
			}
			var servers map[string]struct {
				Type    string
				Command string
				Args    []string
				Env     map[string]string
			}
			if err := json.Unmarshal(all[key], &servers); err != nil {
				t.Fatalf("%s: %v\n%s", key, err, raw)
			}
			if _, ok := servers["git"]; !ok || len(servers) != 2 {
				t.Errorf("servers after the merge: %+v", servers)
			}
			entry := servers[name]
			if !filepath.IsAbs(entry.Command) || !slices.Equal(entry.Args, []string{"--project-root", root, "--capability-mode", "read"}) ||
				entry.Env["XDG_RUNTIME_DIR"] != runtimeDir || (entry.Type == "stdio") != (host == "vscode" || host == "claude-code") {
				t.Fatalf("entry %q: %+v", name, entry)
			}
			// Start the server as the host would: the command, its arguments, its env.
			cmd := exec.Command(entry.Command, entry.Args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			for k, v := range entry.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "mcp-config-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("start %s: %v", entry.Command, err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_get_node", Arguments: map[string]any{"node_id": "arch.store"}})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Shipment store") {
				t.Errorf("a call through the configured server: %v %+v", err, res)
			}
		})
	}
	// Without --config, claude-desktop's file is in the user's configuration folder.
	home := t.TempDir()
	cmd := exec.Command(binary, "mcp-config", "--project-root", root, "--host", "claude-desktop", "--write")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude-desktop default file: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")); err != nil {
		t.Errorf("claude-desktop default file: %v", err)
	}
}
