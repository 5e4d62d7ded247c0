package source

import (
	"fmt"
	"testing"
)

// BenchmarkIdentity digests the stat lines of 100,000 files, as a walk of the 100k-node
// benchmark project does (go test ./source -run '^$' -bench Identity).
func BenchmarkIdentity(b *testing.B) {
	inv := &Inventory{}
	for i := range 100000 {
		inv.Files = append(inv.Files, File{Path: fmt.Sprintf("docs/d%04d/n%06d.md", i/100, i), Format: Markdown,
			Size: 2000, MtimeNs: 1764900000123456789, CtimeNs: 1764900000123456789, Ino: uint64(1000000 + i), Dev: 2049})
	}
	for b.Loop() {
		inv.digestFiles()
		identity(inv)
	}
}
