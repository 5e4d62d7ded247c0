package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedBytes is the most a committed file may weigh outside testdata: generated files
// that 'go install' needs (the protocol code, the viewer's bundle) stay below it.
const maxTrackedBytes = 1 << 20

// binaryMagic are the first bytes of compiled executables and objects: ELF, Mach-O (both byte
// orders, 32 and 64 bit, and universal), PE, and WebAssembly.
var binaryMagic = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	[]byte("MZ"),
	[]byte("\x00asm"),
}

// The repository ships sources, not builds: no tracked file is a compiled binary, and none
// outside testdata is over 1 MB (a binary built at the root by hand once went in unnoticed).
func TestNoCompiledOrOversizedFilesAreTracked(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("this test reads the git index: run it in a clone (git rev-parse: %v)", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 50 {
		t.Fatalf("git ls-files listed only %d files", len(files))
	}
	for _, name := range files {
		if problem := trackedFileProblem(filepath.Join(root, name), name); problem != "" {
			t.Errorf("%s: %s; remove it with 'git rm --cached' and build into bin/ (ignored)", name, problem)
		}
	}
}

// trackedFileProblem says what is wrong with one tracked file, or "".
func trackedFileProblem(path, name string) string {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "" // a symlink, or deleted in the work tree but not yet in the index
	}
	head := make([]byte, 4)
	if f, err := os.Open(path); err == nil {
		n, _ := f.Read(head)
		head = head[:n]
		f.Close()
	}
	for _, magic := range binaryMagic {
		if bytes.HasPrefix(head, magic) {
			return "a compiled binary"
		}
	}
	if st.Size() > maxTrackedBytes && !strings.Contains("/"+name, "/testdata/") {
		return "over 1 MB outside testdata"
	}
	return ""
}

func TestTrackedFileProblem(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"docforge", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...), "a compiled binary"},
		{"docforge.exe", []byte("MZ\x90\x00"), "a compiled binary"},
		{"docforge-darwin", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "a compiled binary"},
		{"big.json", bytes.Repeat([]byte("x"), maxTrackedBytes+1), "over 1 MB outside testdata"},
		{"testdata/big.json", bytes.Repeat([]byte("x"), maxTrackedBytes+1), ""},
		{"README.md", []byte("# DocForge\n"), ""},
		{"empty", nil, ""},
	} {
		path := filepath.Join(dir, tc.name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := trackedFileProblem(path, tc.name); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
