package changeset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/project"
)

// The test binary doubles as a writer process: with DOCFORGE_CHANGESET_CHILD set it registers
// changesets in the project named by the variable and exits, so tests race real processes
// over the real lock.
func TestMain(m *testing.M) {
	if root := os.Getenv("DOCFORGE_CHANGESET_CHILD"); root != "" {
		os.Exit(child(root, os.Getenv("DOCFORGE_CHANGESET_MODE")))
	}
	os.Exit(m.Run())
}

func child(root, mode string) int {
	d, _, err := project.Load(root)
	if err != nil || d == nil {
		fmt.Println("load:", err)
		return 2
	}
	desk, err := NewDesk(d, "")
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ctx := context.Background()
	if strings.HasPrefix(mode, "apply:") {
		return childApply(desk, mode)
	}
	switch mode {
	case "loop": // write until killed; first close what a killed predecessor left open
		recs, _, _ := desk.Store.List()
		for _, r := range recs {
			if Open(r.Status) {
				desk.Abandon(ctx, "agent", r.Changeset.ID, "left open by a killed writer")
			}
		}
		for i := 0; ; i++ {
			res, err := desk.Register(ctx, "agent", Request{Title: fmt.Sprintf("loop %d", i), Operations: []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr(fmt.Sprint("Store ", i))}}}})
			if err != nil {
				fmt.Println(err)
				return 2
			}
			if _, err := desk.Abandon(ctx, "agent", res.Record.Changeset.ID, "next"); err != nil {
				fmt.Println(err)
				return 2
			}
		}
	default: // one overlapping registration
		_, err := desk.Register(ctx, "agent", Request{Title: "overlap " + mode, Operations: []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Status: ptr(mode)}}}})
		if err != nil {
			fmt.Println(problem.CodeOf(err))
			return 1
		}
		fmt.Println("ok")
		return 0
	}
}

func spawn(t *testing.T, root, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DOCFORGE_CHANGESET_CHILD="+root, "DOCFORGE_CHANGESET_MODE="+mode)
	return cmd
}

func TestTwoProcessesRegisterOverlappingChangesets(t *testing.T) {
	d := example(t)
	for round := range 3 {
		a, b := spawn(t, d.Root, "accepted"), spawn(t, d.Root, "draft")
		var outA, outB strings.Builder
		a.Stdout, b.Stdout = &outA, &outB
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		a.Wait()
		b.Wait()
		results := []string{strings.TrimSpace(outA.String()), strings.TrimSpace(outB.String())}
		ok, conflict := 0, 0
		for _, r := range results {
			switch r {
			case "ok":
				ok++
			case string(problem.ChangesetConflict):
				conflict++
			}
		}
		st, _ := OpenStore(d)
		recs, bad, err := st.List()
		if err != nil || len(bad) > 0 {
			t.Fatalf("round %d: list: %v %v", round, err, bad)
		}
		open := 0
		for _, r := range recs {
			if Open(r.Status) {
				open++
			}
		}
		if ok != 1 || conflict != 1 || open != 1 {
			t.Fatalf("round %d: results %v, %d open changesets; want one winner and one conflict", round, results, open)
		}
		desk, _ := NewDesk(d, "")
		for _, r := range recs {
			if Open(r.Status) {
				if _, err := desk.Abandon(context.Background(), "agent", r.Changeset.ID, "next round"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestKilledWriterLeavesAReadableStore(t *testing.T) {
	d := example(t)
	for i := range 5 {
		cmd := spawn(t, d.Root, "loop")
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(150+i*70) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if strings.TrimSpace(out.String()) != "" {
			t.Fatalf("writer failed before it was killed: %s", out.String())
		}
		st, _ := OpenStore(d)
		recs, bad, err := st.List()
		if err != nil || len(bad) > 0 {
			t.Fatalf("after kill %d: %v %v", i, err, bad)
		}
		for _, r := range recs {
			// Every state is complete: its version file matches its receipt's hash (Load
			// checked that) and the receipts are numbered without a gap.
			for j, rc := range r.Receipts {
				if rc.Seq != j+1 {
					t.Fatalf("%s: receipt %d has seq %d", r.Changeset.ID, j, rc.Seq)
				}
			}
		}
		if len(recs) == 0 && i == 4 {
			t.Fatal("the writer never committed anything; the test proves nothing")
		}
	}
}

func TestCommitInterruptedAtEveryStepKeepsThePreviousState(t *testing.T) {
	d := example(t)
	desk, _ := NewDesk(d, "")
	ctx := context.Background()
	res, err := desk.Create(ctx, "agent", Request{Title: "t", ID: "cs-steps"})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"version", "receipt"} {
		desk.Store.beforeCommit = func(s string) error {
			if s == step {
				return errors.New("crash")
			}
			return nil
		}
		_, err := desk.Propose(ctx, "agent", "cs-steps", Operation{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr("x")}})
		if err == nil {
			t.Fatalf("step %s: no failure", step)
		}
		desk.Store.beforeCommit = nil
		rec, err := desk.Store.Load("cs-steps")
		if err != nil || rec.Hash != res.Record.Hash || len(rec.Changeset.Operations) != 0 {
			t.Fatalf("step %s: state changed: %v %+v", step, err, rec)
		}
	}
}

func TestSymlinkedRootsAreRefused(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name  string
		setup func(d *project.Descriptor)
	}{
		{"changeset root is a symlink", func(d *project.Descriptor) {
			os.MkdirAll(filepath.Join(d.Root, ".docforge"), 0o755)
			os.Symlink(outside, filepath.Join(d.Root, ".docforge", "changesets"))
		}},
		{"state dir is a symlink", func(d *project.Descriptor) { os.Symlink(outside, filepath.Join(d.Root, ".docforge")) }},
		{"a changeset folder is a symlink", func(d *project.Descriptor) {
			os.MkdirAll(filepath.Join(d.Root, ".docforge", "changesets"), 0o755)
			os.Symlink(outside, filepath.Join(d.Root, ".docforge", "changesets", "cs-link"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := example(t)
			tc.setup(d)
			desk, _ := NewDesk(d, "")
			_, err := desk.Create(context.Background(), "agent", Request{Title: "t", ID: "cs-link"})
			if problem.CodeOf(err) != problem.PathEscape {
				t.Fatalf("want path_escape, got %v", err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("wrote outside: %v", entries)
			}
		})
	}
	// A content directory that is a symlink out of the root is refused for a create.
	d := example(t)
	os.Symlink(outside, filepath.Join(d.Root, "docs", "linked"))
	desk, _ := NewDesk(d, "")
	_, err := desk.Register(context.Background(), "agent", Request{Title: "t", Operations: []Operation{{Op: OpCreate, NodeID: "x.y", Path: "docs/linked/x.md",
		Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}}})
	if problem.CodeOf(err) != problem.PathEscape {
		t.Fatalf("create through a symlinked directory: %v", err)
	}
}

func TestCanonicalEncoding(t *testing.T) {
	a, _ := Canonical(map[string]any{"b": 1, "a": []any{"caf\u00e9 \U0001F600", "<&>"}})
	if string(a) != `{"a":["caf\u00e9 \ud83d\ude00","<&>"],"b":1}` {
		t.Fatalf("canonical: %s", a)
	}
	var back map[string]any
	if err := json.Unmarshal(a, &back); err != nil || back["a"].([]any)[0] != "caf\u00e9 \U0001F600" {
		t.Fatalf("round trip: %v %v", err, back)
	}
}

// FuzzDecode: any input either fails to decode or decodes to a changeset whose canonical
// encoding decodes again to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"id":"cs-a","project_id":"p","writer":"agent","title":"t","operations":[{"op":"update","node_id":"a.b","fields":{"title":"x"}}]}`))
	f.Add([]byte(`{"schema_version":1,"id":"cs-a","operations":[{"op":"create","node_id":"n","path":"docs/n.md","fields":{"relations":{"r":["a"]},"tags":[]}}]}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`{"schema_version":1,"id":"../x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := Decode(data)
		if err != nil {
			return
		}
		enc, hash, err := cs.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("canonical form does not decode: %v\n%s", err, enc)
		}
		enc2, hash2, _ := again.Encode()
		if string(enc) != string(enc2) || hash != hash2 {
			t.Fatalf("canonical form is not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// The descriptor and DocForge's state are named in any case: a case-insensitive file system
// (macOS's default) reads Docforge.toml as the descriptor and Proposals/ as proposals/, so a
// changeset may write neither under any case.
func TestStateAndDescriptorNamesFoldCase(t *testing.T) {
	d := example(t)
	p := filepath.Join(d.Root, project.FileName)
	text, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(text), `content_roots = ["docs"]`, `content_roots = ["."]`, 1)
	s = strings.Replace(s, `changeset_root = ".docforge/changesets"`, `changeset_root = "proposals/changesets"`, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(d.Root, "proposals", "changesets"), 0o755))
	d, probs, err := project.Load(d.Root)
	if err != nil || d == nil {
		t.Fatalf("load: %v %v", err, probs)
	}
	src := sources(t, d)
	for _, path := range []string{"proposals/changesets/x.md", "Proposals/changesets/x.md", "proposals/CHANGESETS/x.md", "Docforge.toml", "DOCFORGE.TOML"} {
		cs := &Changeset{SchemaVersion: 1, ID: "cs-case", Writer: "agent", Title: "t", Operations: []Operation{
			{Op: OpCreate, NodeID: "x.case", Path: path, Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}}}
		c := src.Check(cs, nil, true)
		if c.Report.Valid || len(c.Projection.Problems) != 1 || c.Projection.Problems[0].Code != problem.PathEscape {
			t.Errorf("a create at %s: %+v", path, c.Projection.Problems)
		}
	}
}

// A changeset whose version file, or versions folder, is a symlink is refused by every read
// (get, validate and diff load it), as abandon refuses it: the link could lead anywhere.
func TestSymlinkedVersionsAreRefusedOnRead(t *testing.T) {
	for _, which := range []string{"file", "folder"} {
		t.Run(which, func(t *testing.T) {
			d := example(t)
			desk, _ := NewDesk(d, "")
			res, err := desk.Create(context.Background(), "agent", Request{Title: "t", ID: "cs-sym"})
			if err != nil {
				t.Fatal(err)
			}
			versions := filepath.Join(d.Root, ".docforge", "changesets", "cs-sym", "versions")
			outside := t.TempDir()
			name := strings.TrimPrefix(res.Record.Hash, "sha256:") + ".json"
			data, _ := os.ReadFile(filepath.Join(versions, name))
			must(t, os.WriteFile(filepath.Join(outside, name), data, 0o644))
			if which == "file" {
				must(t, os.Remove(filepath.Join(versions, name)))
				must(t, os.Symlink(filepath.Join(outside, name), filepath.Join(versions, name)))
			} else {
				must(t, os.RemoveAll(versions))
				must(t, os.Symlink(outside, versions))
			}
			if _, err := desk.Store.Load("cs-sym"); problem.CodeOf(err) != problem.PathEscape {
				t.Errorf("a symlinked version %s: %v, want path_escape", which, err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
