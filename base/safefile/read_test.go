package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A regular file within the limit is read; one over it, a FIFO (without blocking), a
// directory and a symlink are refused.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("gitdir: ../x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRegular(ok, 64); err != nil || string(data) != "gitdir: ../x\n" {
		t.Errorf("a regular file: %q %v", data, err)
	}
	for _, tc := range []struct {
		name, path string
		limit      int64
	}{
		{"over the limit", ok, 4},
		{"a FIFO", fifo, 64},
		{"a directory", dir, 64},
		{"a symlink", link, 64},
	} {
		if data, err := ReadRegular(tc.path, tc.limit); err == nil || len(data) > 0 {
			t.Errorf("%s: read %q", tc.name, data)
		} else if tc.name == "over the limit" && !strings.Contains(err.Error(), "at most 4 bytes") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
