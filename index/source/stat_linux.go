//go:build linux

package source

import "syscall"

func lstat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

func stat(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileStat{}, err
	}
	return fromSys(&st), nil
}

func fromSys(st *syscall.Stat_t) fileStat {
	return fileStat{
		mode:    uint32(st.Mode),
		size:    st.Size,
		mtimeNs: st.Mtim.Nano(),
		ctimeNs: st.Ctim.Nano(),
		ino:     st.Ino,
		dev:     uint64(st.Dev),
	}
}
