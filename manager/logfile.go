package manager

import (
	"fmt"
	"os"
	"sync"
)

// rotatingLog is an append-only log file bounded to keep+1 files of at most max bytes: when a
// write would pass max, the file becomes path.1 (path.1 becomes path.2, ...) and a new one
// starts. A long-lived daemon must not fill the disk with its log.
type rotatingLog struct {
	mu   sync.Mutex
	path string
	max  int64
	keep int
	f    *os.File
	size int64
}

func openLog(path string, max int64, keep int) (*rotatingLog, error) {
	l := &rotatingLog{path: path, max: max, keep: keep}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *rotatingLog) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its bound.
func (l *rotatingLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

func (l *rotatingLog) rotate() error {
	l.f.Close()
	l.f = nil
	for i := l.keep; i > 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", l.path, i-1), fmt.Sprintf("%s.%d", l.path, i)) // absent files are fine
	}
	if l.keep > 0 {
		if err := os.Rename(l.path, l.path+".1"); err != nil {
			return fmt.Errorf("rotate log: %w", err)
		}
	} else if err := os.Remove(l.path); err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	return l.open()
}

// Close closes the file.
func (l *rotatingLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
