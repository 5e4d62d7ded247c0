package manager

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/docforge/docforge/base/problem"
)

// startTimeout bounds how long Start waits for a new manager to answer.
const startTimeout = 10 * time.Second

// Start starts a manager in the background ('exe manager run' in its own session, so a
// terminal's signals and the starter's exit leave it running) and waits until it answers. It
// returns the pid of the manager that answers: its own child's, or that of a manager another
// starter won the lock for. A manager already running is not an error.
func Start(ctx context.Context, exe string, p Paths) (int, error) {
	if c, err := Dial(ctx, p); err == nil {
		defer c.Close()
		return c.Pid(), nil
	} else if problem.CodeOf(err) != problem.ManagerUnavailable {
		return 0, err
	}
	if err := ensureDir(p.Dir, os.Getuid()); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(p.StartLog, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("start manager: %w", err)
	}
	cmd := exec.Command(exe, "manager", "run")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	out.Close()
	if err != nil {
		return 0, problem.Wrap(problem.ManagerUnavailable, err, "start manager %s", exe)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps it if it exits while this process lives
	deadline := time.Now().Add(startTimeout)
	var exitErr error
	for childDone := false; ; {
		c, err := Dial(ctx, p)
		if err == nil {
			defer c.Close()
			return c.Pid(), nil
		}
		if problem.CodeOf(err) != problem.ManagerUnavailable {
			return 0, err
		}
		if !childDone {
			select {
			case exitErr = <-exited:
				// It lost the lock to a manager another starter launched (that one answers
				// shortly), or it failed; give the winner a moment before deciding which.
				childDone, deadline = true, minTime(deadline, time.Now().Add(2*time.Second))
			default:
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(p.StartLog)
			return 0, problem.Errorf(problem.ManagerUnavailable, "the manager started from %s did not answer within %v (exit: %v): %s",
				exe, startTimeout, exitErr, bytes.TrimSpace(log))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Executable finds the docforge command: next to the running executable (how the two are
// installed together), else on PATH.
func Executable() (string, error) {
	path, ok := Installed("docforge")
	if !ok {
		return "", problem.Errorf(problem.ManagerUnavailable, "cannot find the docforge command to start a manager: install docforge next to docforge-mcp or on PATH")
	}
	return path, nil
}

// Installed finds one of DocForge's commands by name, absolute: the running executable, the
// executable of that name next to it (how they are installed together), else on PATH.
func Installed(name string) (string, bool) {
	if self, err := os.Executable(); err == nil {
		if filepath.Base(self) == name {
			return self, true
		}
		sibling := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(sibling); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return sibling, true
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", false
	}
	abs, err := filepath.Abs(path)
	return abs, err == nil
}
