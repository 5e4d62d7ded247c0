package index

import (
	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/safefile"
)

// writeFileAtomic replaces path with data, atomically and durably; index state is private to
// its user (0600).
func writeFileAtomic(path string, data []byte) error { return safefile.WriteFile(path, data, 0o600) }

// DiskFull reports whether err comes from a full disk (or an exhausted quota): a write
// failed with ENOSPC or EDQUOT, or SQLite reported SQLITE_FULL.
func DiskFull(err error) bool {
	return safefile.NoSpace(err) || sqlite.ErrCode(err).ToPrimary() == sqlite.ResultFull
}
