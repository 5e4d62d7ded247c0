package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"text/tabwriter"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/deploy"
	"github.com/docforge/docforge/manager"
	docforgev2 "github.com/docforge/docforge/proto/docforge/v2"
	"github.com/docforge/docforge/worker/protocol"
)

const managerHelp = `Run and inspect the per-user DocForge manager, which owns one worker process per project
for MCP sessions (docforge-mcp starts one when none answers).

  run       run the manager in the foreground (what a service unit runs); stops on SIGTERM
  start     start a manager in the background unless one answers; print its pid
  stop      stop the manager and its workers
  status    list the workers: project, policy, pid, uptime, index generation, freshness
  install   write the systemd user units (Linux) or launchd agent (macOS) for this user
            and print the command that enables them

Its socket, lock and log live in $XDG_RUNTIME_DIR/docforge (else the user cache directory),
a directory that must be private to you (mode 0700).`

func runManager(e *env) error {
	paths, err := manager.DefaultPaths()
	if err != nil {
		return err
	}
	switch e.args[0] {
	case "run":
		return managerRun(e, paths)
	case "start":
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		pid, err := manager.Start(e.ctx, exe, paths)
		if err != nil {
			return err
		}
		if e.json {
			return e.writeJSON(e.stdout, map[string]any{"pid": pid, "socket": paths.Socket, "log": paths.Log})
		}
		fmt.Fprintf(e.stdout, "manager running (pid %d)\n  socket %s\n  log    %s\n", pid, paths.Socket, paths.Log)
		return nil
	case "stop":
		c, err := manager.Dial(e.ctx, paths)
		if problem.CodeOf(err) == problem.ManagerUnavailable {
			fmt.Fprintf(e.stdout, "no manager runs (socket %s)\n", paths.Socket)
			return nil
		}
		if err != nil {
			return err
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
		defer cancel()
		pid := c.Pid()
		if err := c.Shutdown(ctx); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "manager %d stopped\n", pid)
		return nil
	case "status":
		return managerStatus(e, paths)
	case "install":
		return managerInstall(e, paths)
	}
	return problem.Errorf(problem.InvalidArgument, "unknown manager command %q: use run, start, stop, status or install", e.args[0])
}

func managerRun(e *env, paths manager.Paths) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	ln, err := manager.ActivationListener()
	if err != nil {
		return err
	}
	return manager.Run(e.ctx, manager.Config{Paths: paths, Executable: exe, UID: os.Getuid(), Listener: ln, Version: buildVersion()})
}

// buildVersion names this build: its VCS revision when the build recorded one.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return info.Main.Version
}

type workerStatus struct {
	ProjectRoot string                  `json:"project_root"`
	Policy      string                  `json:"policy"`
	Pid         int64                   `json:"pid"`
	Socket      string                  `json:"socket"`
	UptimeSec   float64                 `json:"uptime_seconds"`
	Index       *docforgev2.Signature   `json:"index,omitempty"`
	Freshness   string                  `json:"freshness"`
	Stats       *docforgev2.WorkerStats `json:"stats,omitempty"`
	Viewer      *docforgev2.ViewerInfo  `json:"viewer,omitempty"`
}

func managerStatus(e *env, paths manager.Paths) error {
	c, err := manager.Dial(e.ctx, paths)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Status(e.ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	var ws []workerStatus
	for _, w := range st.Workers {
		policy := "ast"
		if w.Binding.GetNoAst() {
			policy = "no-ast"
		}
		ws = append(ws, workerStatus{ProjectRoot: w.Binding.GetProjectRoot(), Policy: policy, Pid: w.Pid, Socket: w.SocketPath,
			UptimeSec: now.Sub(time.UnixMilli(w.StartedUnixMs)).Seconds(), Index: w.Index, Freshness: w.Freshness, Stats: w.Stats, Viewer: w.Viewer})
	}
	up := now.Sub(time.UnixMilli(st.StartedUnixMs)).Truncate(time.Second)
	if e.json {
		return e.writeJSON(e.stdout, map[string]any{"pid": st.Pid, "version": c.Version(), "uptime_seconds": up.Seconds(), "socket": paths.Socket, "log": paths.Log, "workers": ws})
	}
	fmt.Fprintf(e.stdout, "manager pid %d, up %v, build %s\n  socket %s\n  log    %s\n", st.Pid, up, c.Version(), paths.Socket, paths.Log)
	if len(ws) == 0 {
		fmt.Fprintln(e.stdout, "no workers (an MCP session or 'docforge-mcp' starts one per project)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tPOLICY\tPID\tUPTIME\tGENERATION\tFRESHNESS\tCALLS\tSYNCS\tWATCH\tVIEWER")
	for _, w := range ws {
		gen := "-"
		if w.Index != nil {
			gen = fmt.Sprint(w.Index.Generation)
		}
		viewer := "-"
		if v := w.Viewer; v != nil {
			viewer = fmt.Sprintf("port %d, generation %d, %s, idle %v", v.Port, v.Index.GetGeneration(), v.SnapshotState,
				now.Sub(time.UnixMilli(v.LastActivityUnixMs)).Truncate(time.Second))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%v\t%s\t%s\t%d\t%d\t%s\t%s\n", w.ProjectRoot, w.Policy, w.Pid, time.Duration(w.UptimeSec*float64(time.Second)).Truncate(time.Second),
			gen, w.Freshness, w.Stats.GetCalls(), w.Stats.GetSyncs(), watchSummary(w.Stats), viewer)
	}
	return tw.Flush()
}

// watchSummary is a worker's source watch in a few words: its state, and its failures and
// repairs when there were any (the last error is in --json).
func watchSummary(st *docforgev2.WorkerStats) string {
	state := st.GetWatchState()
	if state == "" {
		return "-"
	}
	if n := st.GetWatchFailures(); n > 0 {
		state += fmt.Sprintf(" (%d failed, %d repaired)", n, st.GetWatchRepairs())
	}
	return state
}

func managerInstall(e *env, paths manager.Paths) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return problem.Errorf(problem.InvalidArgument, "install: no home directory: %v", err)
	}
	plan, err := deploy.For(runtime.GOOS, home, deploy.Params{Executable: exe})
	if err != nil {
		return problem.Errorf(problem.InvalidArgument, "%v", err)
	}
	for _, f := range plan.Files {
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return fmt.Errorf("install: %w", err)
		}
		if err := safefile.WriteFile(f.Path, f.Content, 0o644); err != nil {
			return fmt.Errorf("install: %w", err)
		}
	}
	if e.json {
		var files []string
		for _, f := range plan.Files {
			files = append(files, f.Path)
		}
		return e.writeJSON(e.stdout, map[string]any{"files": files, "enable": plan.Enable})
	}
	for _, f := range plan.Files {
		fmt.Fprintf(e.stdout, "wrote %s\n", f.Path)
	}
	fmt.Fprintf(e.stdout, "enable it with:\n  %s\n", plan.Enable)
	if running, _ := manager.Dial(e.ctx, paths); running != nil {
		running.Close()
		fmt.Fprintln(e.stdout, "a manager runs now; run 'docforge manager stop' first so the service owns the socket")
	}
	return nil
}

// managerSession connects to the user's manager as a bridge does, starting one when none
// answers unless --no-autostart.
func (e *env) managerSession() (*manager.Session, error) {
	paths, err := manager.DefaultPaths()
	if err != nil {
		return nil, err
	}
	var start manager.StartFunc
	if !e.noAutostart {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		start = func(ctx context.Context) error {
			pid, err := manager.Start(ctx, exe, paths)
			if err == nil {
				e.managerStarted = pid
			}
			return err
		}
	}
	return manager.NewSession(paths, start), nil
}

// runCall runs one MCP tool through the manager's worker for the project, exactly as an MCP
// session's bridge would, and prints the result envelope.
func runCall(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	args := json.RawMessage("{}")
	if len(e.args) > 1 {
		if !json.Valid([]byte(e.args[1])) {
			return problem.Errorf(problem.InvalidArgument, "arguments %q are not JSON; pass an object such as '{\"node_id\":\"arch.store\"}'", e.args[1])
		}
		args = json.RawMessage(e.args[1])
	}
	session, err := e.managerSession()
	if err != nil {
		return err
	}
	defer session.Close()
	b := protocol.Binding{ProjectRoot: d.Root, CapabilityMode: protocol.ModeRead, NoAST: e.noAST}
	if e.writer != "" {
		b.CapabilityMode, b.ProposalWriter = protocol.ModeProposal, e.writer
		if _, err := b.Validate(); err != nil {
			return err
		}
	}
	out, callErr := session.Call(e.ctx, b, e.args[0], args)
	if out == nil {
		return callErr
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return fmt.Errorf("%s: %w", e.args[0], err)
	}
	pretty.WriteByte('\n')
	e.stdout.Write(pretty.Bytes())
	if callErr != nil {
		return exitError(exitCode(problem.CodeOf(callErr)))
	}
	return nil
}
