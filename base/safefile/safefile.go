package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile replaces path with data (mode perm): write a temporary file in the same
// directory, fsync it, rename it over path, fsync the directory.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFileWith(path, data, perm, nil)
}

// WriteFileWith is WriteFile with a hook run just before the rename; an error from it
// abandons the write (the temporary file is removed, path is untouched). Tests use it to
// interrupt a write at its last moment.
func WriteFileWith(path string, data []byte, perm os.FileMode, beforeRename func() error) error {
	return WriteStream(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, beforeRename)
}

// WriteStream replaces path with what write writes, atomically and durably, without holding
// the contents in memory. beforeRename (may be nil) runs after the data is on disk and before
// the rename; an error from write or from it leaves path untouched.
func WriteStream(path string, perm os.FileMode, write func(io.Writer) error, beforeRename func() error) (retErr error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if retErr != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error { return Fsync(dir) }

// Fsync flushes a file's or directory's contents to disk (a read-only descriptor suffices).
func Fsync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return nil
}

// NoSpace reports whether err is a write that failed for want of room: ENOSPC, or EDQUOT
// for an exhausted quota.
func NoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
