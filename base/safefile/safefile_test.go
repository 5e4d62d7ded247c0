package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesWholly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, c := range []struct {
		data string
		perm os.FileMode
	}{{"first", 0o600}, {"second, longer", 0o644}, {"", 0o600}} {
		if err := WriteFile(path, []byte(c.data), c.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		st, _ := os.Stat(path)
		if err != nil || string(got) != c.data || st.Mode().Perm() != c.perm {
			t.Errorf("after writing %q (%v): %q %v %v", c.data, c.perm, got, st.Mode().Perm(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// A write that cannot complete leaves the old file as it was and no temporary file.
func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	WriteFile(path, []byte("old"), 0o600)
	// A directory where the new file would be renamed: the rename fails.
	target := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	if err := WriteFile(target, []byte("new"), 0o600); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("new"), 0o600); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old file now %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("entries %v, want f and d only", entries)
	}
}
