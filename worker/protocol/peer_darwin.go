package protocol

import "golang.org/x/sys/unix"

// peerUIDOf reads the uid of the process at the other end of a Unix socket (LOCAL_PEERCRED,
// what getpeereid uses).
func peerUIDOf(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
