package safefile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads the file at path when it is a regular file of at most limit bytes, not
// a symlink: a file a repository placed to be read (a configuration, a .git link) may be a
// FIFO that blocks the reader, a device that never ends, or a link out of the tree. The file
// is opened without following a link and without blocking, then checked, so no swap between
// a check and the open reaches a FIFO.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s is not a regular file of at most %d bytes", path, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s grew past %d bytes", path, limit)
	}
	return data, err
}
