package index

import (
	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/index/publication"
)

// writeFileAtomic replaces path with data, atomically and durably; index state is private to
// its user (0600).
func writeFileAtomic(path string, data []byte) error { return safefile.WriteFile(path, data, 0o600) }

// sealTo writes a receipt (publication.Seal) to path atomically.
func sealTo(path string, r publication.Receipt) error {
	data, err := publication.Seal(r)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// DiskFull reports whether err comes from a full disk (or an exhausted quota): a write
// failed with ENOSPC or EDQUOT, or SQLite reported SQLITE_FULL.
func DiskFull(err error) bool {
	return safefile.NoSpace(err) || sqlite.ErrCode(err).ToPrimary() == sqlite.ResultFull
}
