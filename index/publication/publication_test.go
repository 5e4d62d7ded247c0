package publication

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/source/project"
)

// A sealed receipt reads back verified; any change to its bytes, another schema version, a
// file that is no regular file or is too large, reads as corrupt; a missing one as missing.
func TestReceiptsAreSealed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "publication.json")
	pub := &Publication{ReceiptSchemaVersion: ReceiptSchemaVersion, ProjectID: "p", Graph: GraphState{Generation: 7}}
	data, err := Seal(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil || got.Graph.Generation != 7 || got.ReceiptHash != pub.ReceiptHash || !strings.HasPrefix(got.ReceiptHash, "sha256:") {
		t.Fatalf("read back: %v %+v", err, got)
	}
	for name, bad := range map[string][]byte{
		"edited":        []byte(strings.Replace(string(data), `"generation": 7`, `"generation": 8`, 1)),
		"other version": []byte(strings.Replace(string(data), `"receipt_schema_version": 1`, `"receipt_schema_version": 2`, 1)),
		"not JSON":      []byte("{"),
		"too large":     append(data, make([]byte, maxReceiptBytes)...),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Read(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a folder: %v", err)
	}
}

// Probe gives the published file's signature with the receipt's generation, and refuses a
// file the receipt does not describe.
func TestProbe(t *testing.T) {
	root := t.TempDir()
	d := &project.Descriptor{Root: root}
	paths := PathsFor(d, "")
	if err := os.MkdirAll(paths.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Probe(d, ""); !errors.Is(err, ErrNoPublication) {
		t.Errorf("nothing published: %v", err)
	}
	if err := os.WriteFile(paths.Index, []byte("index"), 0o644); err != nil {
		t.Fatal(err)
	}
	sig, err := Stat(paths.Index)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := Seal(&Publication{ReceiptSchemaVersion: ReceiptSchemaVersion, Index: sig, Graph: GraphState{Generation: 3}})
	if err := os.WriteFile(paths.Publication, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Probe(d, ""); err != nil || got.Generation != 3 || !got.SameFile(sig) {
		t.Errorf("probe: %v %+v", err, got)
	}
	if err := os.WriteFile(paths.Index, []byte("another index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Probe(d, ""); !errors.Is(err, ErrReceiptMismatch) {
		t.Errorf("a replaced index: %v, want ErrReceiptMismatch", err)
	}
	if PathsFor(d, "no-ast").Dir == paths.Dir {
		t.Errorf("the no-AST policy shares the AST index's folder")
	}
}
