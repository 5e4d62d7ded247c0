//go:build linux

package index

import "syscall"

func signatureOf(st *syscall.Stat_t) Signature {
	return Signature{Device: uint64(st.Dev), Inode: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano()}
}
