package index

import (
	"fmt"
	"os"

	"github.com/docforge/docforge/index/safefile"
)

// writeFileAtomic replaces path with data, atomically and durably.
func writeFileAtomic(path string, data []byte) error { return safefile.WriteFile(path, data, 0o600) }

// syncDir makes a rename in dir durable.
func syncDir(dir string) error { return safefile.SyncDir(dir) }

// fsyncFile flushes a closed file's data to disk.
func fsyncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return nil
}
