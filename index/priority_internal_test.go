package index

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// A merge runs at nice 19 on a thread of its own and leaves the caller's thread as it was:
// an unprivileged process cannot raise a thread's priority again, so a niced thread handed
// back to the scheduler would slow whatever goroutine ran on it next.
func TestLowPriorityLeavesTheCallerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	before, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	var inside, insideTid int
	lowPriority(func() {
		insideTid = unix.Gettid()
		inside, _ = unix.Getpriority(unix.PRIO_PROCESS, insideTid)
	})
	after, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	// Getpriority returns 20 - nice.
	if insideTid == tid || inside != 20-19 {
		t.Errorf("fn ran on thread %d (caller %d) at nice %d, want another thread at 19", insideTid, tid, 20-inside)
	}
	if after != before {
		t.Errorf("the caller's thread went from nice %d to %d", 20-before, 20-after)
	}
}
