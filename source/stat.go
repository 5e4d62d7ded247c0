package source

import "golang.org/x/sys/unix"

// fileStat is the part of a stat result that identifies a file's version cheaply. ctime is
// included because, unlike mtime, no ordinary tool can set it back.
type fileStat struct {
	mode    uint32
	size    int64
	mtimeNs int64
	ctimeNs int64
	ino     uint64
	dev     uint64
	nlink   uint64 // more than 1: the file has another name a watch of this one never reports
}

func (s fileStat) isDir() bool     { return s.mode&unix.S_IFMT == unix.S_IFDIR }
func (s fileStat) isRegular() bool { return s.mode&unix.S_IFMT == unix.S_IFREG }
func (s fileStat) isSymlink() bool { return s.mode&unix.S_IFMT == unix.S_IFLNK }
