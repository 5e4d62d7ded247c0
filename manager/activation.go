package manager

import (
	"fmt"
	"net"
	"os"
	"strconv"
)

// ActivationListener returns the socket systemd passed by socket activation (LISTEN_PID is
// this process and LISTEN_FDS at least 1: the socket is descriptor 3), or nil when the manager
// was not socket-activated.
func ActivationListener() (net.Listener, error) {
	if os.Getenv("LISTEN_PID") != strconv.Itoa(os.Getpid()) {
		return nil, nil
	}
	n, err := strconv.Atoi(os.Getenv("LISTEN_FDS"))
	if err != nil || n < 1 {
		return nil, nil
	}
	os.Unsetenv("LISTEN_PID") // workers are not socket-activated
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_FDNAMES")
	f := os.NewFile(3, "systemd-socket")
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("socket activation: descriptor 3 is not a listening socket: %w", err)
	}
	if _, ok := ln.(*net.UnixListener); !ok {
		ln.Close()
		return nil, fmt.Errorf("socket activation: descriptor 3 is not a Unix socket")
	}
	return ln, nil
}
