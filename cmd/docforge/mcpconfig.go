package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/manager"
	"github.com/docforge/docforge/worker/protocol"
)

const mcpConfigHelp = `Print the entry an MCP host needs to start docforge-mcp for this project, with absolute paths to docforge-mcp and the project root; with --write, merge it into the host's configuration file. Other servers, and comments where the format has them (VS Code's mcp.json), are kept; the file as it was is copied to FILE.bak first; a server of the same name is replaced.

Hosts and the file each reads (--config FILE writes another):
  claude-code     .mcp.json in the project root (project scope; mcpServers)
  claude-desktop  claude_desktop_config.json in the user's configuration folder (mcpServers);
                  the server is named docforge-PROJECT_ID there, since one file serves every project
  vscode          .vscode/mcp.json in the project root (servers, "type": "stdio")
  cursor          .cursor/mcp.json in the project root (mcpServers)

The entry passes XDG_RUNTIME_DIR when this shell has one, so the host's sessions and this terminal share one manager. Run 'docforge init' first: the project root is where docforge.toml is.`

// mcpHost is one MCP host's configuration format and where it keeps it.
type mcpHost struct {
	// key is the object of servers by name; typed entries carry "type": "stdio".
	key   string
	typed bool
	// file is the configuration file for a project at root.
	file func(root string) (string, error)
	// global is set for a file that serves every project: its server's name names the project.
	global bool
}

// mcpHosts are the hosts mcp-config knows, by --host name.
func mcpHosts() map[string]mcpHost {
	inRoot := func(rel string) func(string) (string, error) {
		return func(root string) (string, error) { return filepath.Join(root, rel), nil }
	}
	return map[string]mcpHost{
		"claude-code": {key: "mcpServers", typed: true, file: inRoot(".mcp.json")},
		"claude-desktop": {key: "mcpServers", global: true, file: func(string) (string, error) {
			dir, err := os.UserConfigDir()
			if err != nil {
				return "", fmt.Errorf("find the user's configuration folder: %w", err)
			}
			return filepath.Join(dir, "Claude", "claude_desktop_config.json"), nil
		}},
		"vscode": {key: "servers", typed: true, file: inRoot(filepath.Join(".vscode", "mcp.json"))},
		"cursor": {key: "mcpServers", file: inRoot(filepath.Join(".cursor", "mcp.json"))},
	}
}

// mcpEntry is one server entry as hosts read it.
type mcpEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func runMCPConfig(e *env) error {
	hosts := mcpHosts()
	names := slices.Sorted(maps.Keys(hosts))
	host, ok := hosts[e.host]
	if !ok {
		return usageError("--host %q: name one of %s", e.host, strings.Join(names, ", "))
	}
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	bridge, err := bridgeExecutable()
	if err != nil {
		return err
	}
	entry := mcpEntry{Command: bridge, Args: []string{"--project-root", d.Root}}
	if host.typed {
		entry.Type = "stdio"
	}
	if e.capabilityMode != "" {
		b := protocol.Binding{ProjectRoot: d.Root, CapabilityMode: e.capabilityMode}
		if _, err := b.Validate(); err != nil {
			return err
		}
		entry.Args = append(entry.Args, "--capability-mode", e.capabilityMode)
	}
	if e.noAST {
		entry.Args = append(entry.Args, "--no-ast")
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		entry.Env = map[string]string{"XDG_RUNTIME_DIR": dir}
	}
	name := e.serverName
	if name == "" {
		name = "docforge"
		if host.global {
			name = "docforge-" + d.Project.ID
		}
	}
	file := e.configFile
	if file == "" {
		if file, err = host.file(d.Root); err != nil {
			return err
		}
	}
	if !e.write {
		snippet, _ := json.MarshalIndent(map[string]any{host.key: map[string]mcpEntry{name: entry}}, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", snippet)
		if !e.json {
			fmt.Fprintf(e.stdout, "# merge into %s, or run: docforge mcp-config --host %s --write\n", file, e.host)
		}
		return nil
	}
	backup, err := mergeMCPEntry(file, host.key, name, entry)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote server %q to %s\n", name, file)
	if backup != "" {
		fmt.Fprintf(e.stdout, "  the file as it was: %s\n", backup)
	}
	fmt.Fprintf(e.stdout, "  restart the host (or reload its MCP servers); its first call should be docforge_bootstrap\n")
	return nil
}

// bridgeExecutable is the absolute path of docforge-mcp: beside this docforge, else on PATH.
func bridgeExecutable() (string, error) {
	path, ok := manager.Installed("docforge-mcp")
	if !ok {
		pe := problem.Errorf(problem.InvalidArgument, "cannot find docforge-mcp beside docforge or on PATH")
		pe.Problem.Remediation = "install both commands ('go install ./cmd/...' from a clone, or 'make build' for bin/)"
		return "", pe
	}
	return path, nil
}

// mergeMCPEntry puts entry under servers[name] in the JSON (or JSON with comments) file,
// keeping every other server, key and comment, and writes it atomically; the file as it was is
// copied to FILE.bak first. A file that is not JSON is refused, unchanged.
func mergeMCPEntry(file, servers, name string, entry mcpEntry) (backup string, err error) {
	old, err := os.ReadFile(file)
	existed := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte("{}\n")
	case err != nil:
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	perm := fs.FileMode(0o600)
	if st, err := os.Stat(file); err == nil {
		perm = st.Mode().Perm()
	}
	// Parsed from a copy: hujson edits in place, and old is the backup.
	doc, err := hujson.Parse(slices.Clone(old))
	if err != nil {
		pe := problem.Errorf(problem.InvalidArgument, "%s is not JSON: %v", file, err)
		pe.Problem.Remediation = "fix the file, or pass --config with another file; nothing was written"
		return "", pe
	}
	if _, ok := doc.Value.(*hujson.Object); !ok {
		return "", problem.Errorf(problem.InvalidArgument, "%s holds no JSON object at its top; nothing was written", file)
	}
	value, _ := json.Marshal(entry)
	ptr := "/" + pointerEscape(servers)
	var ops []map[string]any
	switch holder := doc.Find(ptr); {
	case holder == nil:
		ops = append(ops, map[string]any{"op": "add", "path": ptr, "value": map[string]any{}})
	default:
		if _, ok := holder.Value.(*hujson.Object); !ok {
			return "", problem.Errorf(problem.InvalidArgument, "%s: %q is not an object of servers; nothing was written", file, servers)
		}
	}
	ops = append(ops, map[string]any{"op": "add", "path": ptr + "/" + pointerEscape(name), "value": json.RawMessage(value)})
	patch, _ := json.Marshal(ops)
	if err := doc.Patch(patch); err != nil {
		return "", fmt.Errorf("merge the entry into %s: %w", file, err)
	}
	doc.Format()
	noTrailingCommas(&doc)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	if existed {
		backup = file + ".bak"
		if err := safefile.WriteFile(backup, old, perm); err != nil {
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
	}
	if err := safefile.WriteFile(file, doc.Pack(), perm); err != nil {
		return "", fmt.Errorf("write %s: %w", file, err)
	}
	return backup, nil
}

// noTrailingCommas drops the commas after last members and elements that hujson's Format
// writes: JSON with comments (VS Code) takes none, plain JSON (the other hosts) no comma at
// all. Comments and whitespace after them stay, before the closing brace.
func noTrailingCommas(v *hujson.Value) {
	var last *hujson.Value
	var after *hujson.Extra
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			noTrailingCommas(&c.Members[i].Value)
		}
		if n := len(c.Members); n > 0 {
			last, after = &c.Members[n-1].Value, &c.AfterExtra
		}
	case *hujson.Array:
		for i := range c.Elements {
			noTrailingCommas(&c.Elements[i])
		}
		if n := len(c.Elements); n > 0 {
			last, after = &c.Elements[n-1], &c.AfterExtra
		}
	}
	if last != nil && last.AfterExtra != nil {
		*after = append(append(hujson.Extra{}, last.AfterExtra...), *after...)
		last.AfterExtra = nil
	}
}

// pointerEscape escapes one JSON Pointer token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
