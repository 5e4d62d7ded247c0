//go:build linux || darwin

package source

import "golang.org/x/sys/unix"

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
