package protocol

import (
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
)

// ListenPrivate listens on a Unix socket that only uid may use: the socket file is mode 0600
// in a directory the caller made 0700, and every accepted connection's peer uid is checked
// (the file mode alone does not stop root or a process that inherited a descriptor).
// The socket is bound under a temporary name, made 0600, then renamed into place, so a client
// never sees it with the umask's mode. A socket file already at path must be stale: callers
// hold the lock that proves it. Closing the listener leaves the file; callers remove it.
func ListenPrivate(path string, uid int, logf func(format string, args ...any)) (net.Listener, error) {
	tmp := path + "~"
	for _, p := range []string{path, tmp} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale socket %s: %w", p, err)
		}
	}
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return PeerChecked(ln, uid, logf), nil
}

// PeerChecked wraps a Unix listener (one systemd passed in, say) with the peer-uid check.
func PeerChecked(ln net.Listener, uid int, logf func(format string, args ...any)) net.Listener {
	if logf == nil {
		logf = log.Printf
	}
	return &peerListener{Listener: ln, uid: uid, logf: logf}
}

type peerListener struct {
	net.Listener
	uid  int
	logf func(format string, args ...any)
}

// Accept returns the next connection from uid and closes any other.
func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		if err != nil {
			l.logf("refused a connection on %s: cannot read the peer's uid: %v", filepath.Base(l.Addr().String()), err)
		} else {
			l.logf("refused a connection on %s from uid %d: only uid %d may connect", filepath.Base(l.Addr().String()), uid, l.uid)
		}
		c.Close()
	}
}

func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("not a Unix socket connection (%T)", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, uerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, uerr = peerUIDOf(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uerr
}
