package worker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
)

// tmpfs mounts a small tmpfs of the given size ("16m") on a new folder and unmounts it when
// the test ends: a real disk that can be filled. It needs root, as CI has.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("the full-disk test mounts a tmpfs, which needs root: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes into dir until the disk is full, and returns the filler file.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for n := 4096; n > 0; n /= 2 { // the last blocks
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	return path
}

// On a full disk the published index still answers, marked stale with a disk_full warning,
// an application is refused before it writes anything, and once space is freed the next
// answer is current again.
func TestFullDiskAnswersFromThePublishedIndex(t *testing.T) {
	disk := tmpfs(t, "24m")
	root := filepath.Join(disk, "project")
	copyExampleTo(t, root)
	w := newWatched(t, root)
	if a := w.node("arch.store"); a.Error != nil || a.Staleness != "current" {
		t.Fatalf("before the disk fills: %+v", a)
	}
	d, _, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatal(err)
	}
	desk, err := changeset.NewDesk(d, "")
	if err != nil {
		t.Fatal(err)
	}
	title := "Applied on a full disk"
	res, err := desk.Register(context.Background(), "agent", changeset.Request{ID: "cs-full", Title: "t", Operations: []changeset.Operation{
		{Op: changeset.OpUpdate, NodeID: "arch.api", Fields: &changeset.Fields{Title: &title}}}})
	if err != nil {
		t.Fatal(err)
	}
	// The disk fills first, then gives back just enough for the edit, not for a new index: the
	// watch's background rebuild of the edit can then only fail (had the edit come first, that
	// rebuild could publish it before the disk filled).
	filler := fill(t, disk)
	st, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, st.Size()-64<<10); err != nil {
		t.Fatal(err)
	}
	retitle(t, filepath.Join(root, "docs/architecture/store.md"), "Store, edited on a full disk")

	for i := range 3 {
		a := w.node("arch.store")
		if a.Error != nil || a.Staleness != "stale" || !strings.Contains(strings.Join(a.Warnings, " "), "disk_full") || a.Result.Title != "Shipment store" {
			t.Fatalf("call %d on a full disk: %+v", i, a)
		}
	}
	api, _ := os.ReadFile(filepath.Join(root, "docs/architecture/api.md"))
	if _, err := desk.Apply(context.Background(), "maintainer", "cs-full", res.Record.Hash); problem.CodeOf(err) != problem.DiskFull {
		t.Errorf("an application on a full disk: %v, want disk_full", err)
	}
	if now, _ := os.ReadFile(filepath.Join(root, "docs/architecture/api.md")); string(now) != string(api) || changeset.Journaled(d) {
		t.Errorf("the refused application changed the tree or left its journal")
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if a := w.node("arch.store"); a.Staleness != "current" || a.Result.Title != "Store, edited on a full disk" || len(a.Warnings) != 0 {
		t.Errorf("once space is freed: %+v", a)
	}
}
