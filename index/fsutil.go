package index

import "github.com/docforge/docforge/index/safefile"

// writeFileAtomic replaces path with data, atomically and durably; index state is private to
// its user (0600).
func writeFileAtomic(path string, data []byte) error { return safefile.WriteFile(path, data, 0o600) }
