package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/manager"
	"github.com/docforge/docforge/worker/protocol"
)

const viewHelp = `Open the graph browser on the project: the project's worker (under the per-user manager,
started when none answers) serves the current index on a token-protected loopback URL, which
this prints and opens in your browser when one is available. The viewer keeps running after
this command returns, until an hour passes without browser activity or 'docforge view --stop'
stops it.

  docforge view                          the overview
  docforge view arch.store               the neighbourhood of one node
  docforge view --view flow arch.store   Flow, Web or Logic of one node
  docforge view --query "late events"    one lexical search

The URL carries the viewer's token: treat it like a password. It only answers on this machine.`

// runView asks the worker for a viewer exactly as docforge_visualize does.
func runView(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	args := map[string]any{}
	if len(e.args) == 1 {
		args["node_id"] = e.args[0]
	}
	if e.query != "" {
		args["query"] = e.query
	}
	if e.view != "" {
		args["view"] = e.view
	}
	raw, _ := json.Marshal(args)
	if e.stop && (len(args) > 0 || e.noOpen) {
		return usageError("docforge view --stop takes no node, --query, --view or --no-open")
	}
	if e.stop {
		// Only a running manager can hold a viewer: none answering means none runs.
		e.noAutostart = true
	}
	session, err := e.managerSession()
	if err != nil {
		return err
	}
	defer session.Close()
	binding := protocol.Binding{ProjectRoot: d.Root, CapabilityMode: protocol.ModeRead, NoAST: e.noAST}
	if e.stop {
		return stopViewer(e, session, binding)
	}
	out, err := session.Call(e.ctx, binding, "docforge_visualize", raw)
	result, err := e.payload("docforge_visualize", out, err)
	if err != nil || result == nil {
		return err // result is nil when --json printed the envelope
	}
	var r struct {
		URL      string `json:"url"`
		Reused   bool   `json:"reused"`
		Snapshot struct {
			Generation int64 `json:"generation"`
			NodeCount  int64 `json:"node_count"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("docforge_visualize: %w", err)
	}
	how := "started a viewer"
	if r.Reused {
		how = "reusing the running viewer"
	}
	fmt.Fprintf(e.stdout, "%s of generation %d (%d nodes):\n  %s\n", how, r.Snapshot.Generation, r.Snapshot.NodeCount, r.URL)
	if e.managerStarted != 0 {
		fmt.Fprintf(e.stdout, "started the background manager (pid %d): it keeps the project's worker and this viewer running after this command ends; 'docforge view --stop' stops the viewer, 'docforge manager stop' the manager\n", e.managerStarted)
	}
	if !e.noOpen {
		openInBrowser(e.stdout, r.URL)
	}
	return nil
}

// stopViewer stops the project's viewer through the manager, if one runs.
func stopViewer(e *env, session *manager.Session, binding protocol.Binding) error {
	out, err := session.Call(e.ctx, binding, "docforge_stop_visualization", []byte("{}"))
	if te := (*protocol.ToolError)(nil); errors.As(err, &te) && te.Code == problem.ManagerUnavailable {
		fmt.Fprintln(e.stdout, "no viewer was running for this project (no manager answers)")
		return nil
	}
	result, err := e.payload("docforge_stop_visualization", out, err)
	if err != nil || result == nil {
		return err
	}
	var r struct{ Note string }
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("docforge_stop_visualization: %w", err)
	}
	fmt.Fprintln(e.stdout, r.Note)
	return nil
}

// openInBrowser opens url with the desktop's opener, or says to open it by hand.
func openInBrowser(w io.Writer, url string) {
	if opener := browserOpener(); opener != "" {
		cmd := exec.Command(opener, url)
		if err := cmd.Start(); err == nil {
			go cmd.Wait()
			fmt.Fprintf(w, "opened it with %s\n", opener)
			return
		}
	}
	fmt.Fprintln(w, "no browser to open here: open the URL in a browser on this machine")
}

// browserOpener is the desktop's URL opener, or "" when there is no desktop to open on.
func browserOpener() string {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "linux":
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return ""
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	return ""
}
