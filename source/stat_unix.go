//go:build linux || darwin

package source

import (
	"io/fs"
	"slices"

	"golang.org/x/sys/unix"
)

func lstat(path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

func stat(path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

// lstatAt stats name inside the open directory dirfd without following a final symlink. A
// path relative to an open directory skips the kernel's walk of every parent component.
func lstatAt(dirfd int, name string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

func fstat(fd int) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

func fromSys(st *unix.Stat_t) fileStat {
	return fileStat{
		mode:    uint32(st.Mode),
		size:    st.Size,
		mtimeNs: st.Mtim.Nano(),
		ctimeNs: st.Ctim.Nano(),
		ino:     st.Ino,
		dev:     uint64(st.Dev),
		nlink:   uint64(st.Nlink),
	}
}

// readFile reads up to limit bytes of the file at path into a buffer sized from sizeHint (the
// walk's size). It makes the open, read and close system calls itself: os.Open also tries to
// register a regular file with the poller, four fcntl calls and an epoll_ctl that fails, which
// in a 10k-file cold sync were 50,608 system calls against 20,014 reads (docs/benchmarks.md).
func readFile(path string, sizeHint, limit int64) ([]byte, error) {
	fd, err := openRead(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, min(max(sizeHint, 0)+512, limit))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= limit {
				return buf, nil
			}
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit-int64(len(buf)))))
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return buf, &fs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func openRead(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
