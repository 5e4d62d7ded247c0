package manager

import (
	"os/exec"
	"testing"
	"time"
)

// A process counts as alive only while it runs: not once it has exited and waits to be
// reaped, and not once it is reaped, however the two checks of processAlive interleave with
// the reaping (zombie alone must say so for a reaped process).
func TestProcessAliveOnlyWhileItRuns(t *testing.T) {
	running := exec.Command("sleep", "30")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { running.Process.Kill(); running.Wait() }()

	exited := exec.Command("true")
	if err := exited.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !zombie(exited.Process.Pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the exited child never showed as a zombie")
		}
	}
	zombiePid := exited.Process.Pid

	reaped := exec.Command("true")
	if err := reaped.Run(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		pid    int
		alive  bool
		zombie bool
	}{
		{"running", running.Process.Pid, true, false},
		{"exited, not reaped", zombiePid, false, true},
		{"reaped", reaped.Process.Pid, false, true},
	} {
		if got := processAlive(c.pid); got != c.alive {
			t.Errorf("%s: processAlive = %v, want %v", c.name, got, c.alive)
		}
		if got := zombie(c.pid); got != c.zombie {
			t.Errorf("%s: zombie = %v, want %v", c.name, got, c.zombie)
		}
	}
	exited.Wait()
}
