package changeset

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/project"
)

// contentTree hashes every file of the content roots.
func contentTree(t *testing.T, d *project.Descriptor) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(d.Root, "docs")
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(d.Root, p)
			out[filepath.ToSlash(rel)] = HashBytes(data)
		}
		return nil
	})
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

var applyCases = []struct {
	name string
	ops  []Operation
}{
	{"update front matter", []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr("Event store"), Status: ptr("")}}}},
	{"update a record body", []Operation{{Op: OpUpdate, NodeID: "req.track-lookup", Fields: &Fields{Body: ptr("New \"body\"\nsecond line\n")}}}},
	{"create markdown", []Operation{{Op: OpCreate, NodeID: "arch.cache", Path: "docs/architecture/cache/cache.md",
		Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture"), Title: ptr("Cache"), Relations: map[string][]string{"depends_on": {"arch.store"}}, Body: ptr("# Cache\n")}}}},
	{"create a record", []Operation{{Op: OpCreate, NodeID: "req.new", Path: "docs/requirements/requirements.toml",
		Fields: &Fields{Kind: ptr("requirement"), Family: ptr("requirements"), Title: ptr("New"), Body: ptr("a\nb\n")}}}},
	{"relationship update", []Operation{{Op: OpRelationshipUpdate, NodeID: "req.track-lookup", Add: []Relation{{"depends_on", "req.lookup-latency"}}, Remove: []Relation{{"tested_by", "test.lookup-e2e"}}}}},
	{"move markdown", []Operation{{Op: OpMove, NodeID: "arch.store", Path: "docs/architecture/storage/store.md"}}},
	{"move a record", []Operation{{Op: OpMove, NodeID: "req.lookup-latency", Path: "docs/requirements/performance.toml"}}},
	{"unlink and delete", []Operation{{Op: OpRelationshipUpdate, NodeID: "dec.event-sourcing", Remove: []Relation{{"supersedes", "dec.mutable-rows"}}}, {Op: OpDelete, NodeID: "dec.mutable-rows"}}},
}

func TestApplyRoundTrip(t *testing.T) {
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) {
			d := example(t)
			desk, _ := NewDesk(d, "")
			ctx := context.Background()
			before := contentTree(t, d)
			res, err := desk.Register(ctx, "agent", Request{Title: tc.name, Operations: tc.ops})
			if err != nil {
				t.Fatal(err)
			}
			src, _ := LoadSources(ctx, d, "")
			c := src.Check(res.Record.Changeset, nil, false)
			out, err := desk.Apply(ctx, "maintainer", res.Record.Changeset.ID, res.Record.Hash)
			if err != nil {
				t.Fatal(err)
			}
			if out.Record.Status != Applied {
				t.Fatalf("status %s", out.Record.Status)
			}
			after := contentTree(t, d)
			for p, h := range before {
				if _, touched := c.after[p]; !touched && after[p] != h {
					t.Errorf("untouched %s changed", p)
				}
			}
			for p, data := range c.Projection.Overlay.Files {
				if after[p] != HashBytes(data) {
					t.Errorf("%s is not the projected bytes", p)
				}
			}
			for p := range c.Projection.Overlay.Removed {
				if _, ok := after[p]; ok {
					t.Errorf("%s was not removed", p)
				}
			}
			// The files re-load to exactly the projected graph, without errors.
			now, _ := LoadSources(ctx, d, "")
			if now.Errors() != 0 {
				t.Fatalf("applied tree has errors: %v", now.problems)
			}
			for _, id := range res.Record.Changeset.Touches() {
				node, _, _ := c.afterNode(id)
				if (node == nil) != (now.ContentHash(id) == "") || (node != nil && node.ContentHash != now.ContentHash(id)) {
					t.Errorf("node %s differs from the projection", id)
				}
			}
			if _, err := desk.Apply(ctx, "maintainer", res.Record.Changeset.ID, res.Record.Hash); problem.CodeOf(err) != problem.ChangesetState {
				t.Errorf("second apply: %v", err)
			}
		})
	}
}

func TestApplyRefusalsChangeNothing(t *testing.T) {
	d := example(t)
	desk, _ := NewDesk(d, "")
	ctx := context.Background()
	a, err := desk.Register(ctx, "agent", Request{ID: "cs-a", Title: "a", Operations: []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr("A")}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := contentTree(t, d)
	tests := []struct {
		name, applier, id, hash string
		setup                   func()
		code                    problem.Code
	}{
		{"wrong hash", "maintainer", "cs-a", "sha256:" + strings.Repeat("0", 64), nil, problem.ChangesetStale},
		{"undeclared applier", "intruder", "cs-a", a.Record.Hash, nil, problem.OperationNotPermitted},
		{"unknown changeset", "maintainer", "cs-none", a.Record.Hash, nil, problem.ChangesetNotFound},
		{"stale base", "maintainer", "cs-a", a.Record.Hash, func() {
			p := filepath.Join(d.Root, "docs/architecture/store.md")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, "\nEdited meanwhile.\n"...), 0o644)
			before = contentTree(t, d)
		}, problem.ChangesetStale},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup()
			}
			_, err := desk.Apply(ctx, tc.applier, tc.id, tc.hash)
			if problem.CodeOf(err) != tc.code {
				t.Fatalf("want %s, got %v", tc.code, err)
			}
			if !sameTree(before, contentTree(t, d)) {
				t.Fatal("a refused apply changed the content tree")
			}
		})
	}
	// A conflicting changeset (made stale-free by a second writer's registration after the
	// first was abandoned and re-registered) is refused too.
	d2 := example(t)
	desk2, _ := NewDesk(d2, "")
	x, _ := desk2.Register(ctx, "agent", Request{ID: "cs-x", Title: "x", Operations: []Operation{{Op: OpUpdate, NodeID: "arch.api", Fields: &Fields{Title: ptr("X")}}}})
	// Forge an overlap the registration would refuse: a second changeset touching arch.api,
	// committed directly to the store.
	y := &Changeset{SchemaVersion: 1, ID: "cs-y", ProjectID: d2.Project.ID, Writer: "agent", Title: "y", Operations: []Operation{{Op: OpDelete, NodeID: "arch.api", ExpectedContentHash: x.Record.Changeset.Operations[0].ExpectedContentHash}}}
	unlock, _ := desk2.Store.Lock(ctx)
	desk2.Store.Commit(nil, y, "created", Draft, "agent", "", time.Now())
	unlock()
	// A stored changeset whose path leaves the content roots (forged past the checks).
	z := &Changeset{SchemaVersion: 1, ID: "cs-z", ProjectID: d2.Project.ID, Writer: "agent", Title: "z", Operations: []Operation{{Op: OpCreate, NodeID: "x.z", Path: "docs/../../escape.md",
		Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}}}
	unlock, _ = desk2.Store.Lock(ctx)
	zr, _ := desk2.Store.Commit(nil, z, "created", Ready, "agent", "", time.Now())
	unlock()
	before2 := contentTree(t, d2)
	if _, err := desk2.Apply(ctx, "maintainer", "cs-z", zr.Hash); problem.CodeOf(err) != problem.PathEscape {
		t.Fatalf("path escape apply: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d2.Root), "escape.md")); err == nil {
		t.Fatal("a file was written outside the project")
	}
	if _, err := desk2.Apply(ctx, "maintainer", "cs-x", x.Record.Hash); problem.CodeOf(err) != problem.ChangesetConflict {
		t.Fatalf("conflicting apply: %v", err)
	}
	if !sameTree(before2, contentTree(t, d2)) {
		t.Fatal("a refused conflicting apply changed the tree")
	}
}

// Every step of an application interrupted: before the receipt the tree is exactly the old
// one and the changeset is still ready; after it the change stands and the next start rolls
// the journal forward.
func TestApplyInterruptedAtEveryStep(t *testing.T) {
	ops := []Operation{{Op: OpRelationshipUpdate, NodeID: "dec.event-sourcing", Remove: []Relation{{"supersedes", "dec.mutable-rows"}}},
		{Op: OpDelete, NodeID: "dec.mutable-rows"}, {Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr("Event store")}}}
	for _, step := range []string{"apply:journal", "apply:write:0", "apply:write:1", "apply:write:2", "apply:verify", "apply:receipt", "receipt", "apply:cleanup"} {
		t.Run(step, func(t *testing.T) {
			d := example(t)
			desk, _ := NewDesk(d, "")
			ctx := context.Background()
			res, err := desk.Register(ctx, "agent", Request{Title: "t", Operations: ops})
			if err != nil {
				t.Fatal(err)
			}
			before := contentTree(t, d)
			desk.FaultHook(func(s string) error {
				if s == step {
					return errors.New("injected crash at " + s)
				}
				return nil
			})
			_, applyErr := desk.Apply(ctx, "maintainer", res.Record.Changeset.ID, res.Record.Hash)
			desk.FaultHook(nil)
			rec, _ := desk.Store.Load(res.Record.Changeset.ID)
			if step == "apply:cleanup" {
				if applyErr != nil || rec.Status != Applied {
					t.Fatalf("a failure after the receipt must still report success: %v %s", applyErr, rec.Status)
				}
				r, err := desk.RecoverNow(ctx)
				if err != nil || r == nil || r.Action != "rolled_forward" {
					t.Fatalf("recovery: %+v %v", r, err)
				}
				return
			}
			if applyErr == nil || rec.Status != Ready {
				t.Fatalf("want a failure and a ready changeset, got %v %s", applyErr, rec.Status)
			}
			if !sameTree(before, contentTree(t, d)) {
				t.Fatal("the content tree is not the old one")
			}
			if _, err := os.Stat(desk.journalPath()); err == nil {
				t.Fatal("the journal was left behind after a rollback")
			}
		})
	}
}

// A worker killed with -9 mid-application: the next start rolls back (before the receipt) or
// forward (after it), and the tree is consistent either way.
func TestApplyKilledMidwayRecovers(t *testing.T) {
	for _, step := range []string{"apply:write:1", "apply:verify", "apply:cleanup"} {
		t.Run(step, func(t *testing.T) {
			d := example(t)
			desk, _ := NewDesk(d, "")
			ctx := context.Background()
			res, err := desk.Register(ctx, "agent", Request{ID: "cs-kill", Title: "t", Operations: []Operation{
				{Op: OpRelationshipUpdate, NodeID: "dec.event-sourcing", Remove: []Relation{{"supersedes", "dec.mutable-rows"}}}, {Op: OpDelete, NodeID: "dec.mutable-rows"}}})
			if err != nil {
				t.Fatal(err)
			}
			before := contentTree(t, d)
			cmd := spawn(t, d.Root, "apply:"+step+":"+res.Record.Hash)
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if strings.TrimSpace(line) != "at "+step {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %q", line)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			r, err := desk.RecoverNow(ctx)
			if err != nil || r == nil {
				t.Fatalf("recover: %+v %v", r, err)
			}
			rec, _ := desk.Store.Load("cs-kill")
			src, _ := LoadSources(ctx, d, "")
			switch r.Action {
			case "rolled_back":
				if step == "apply:cleanup" || rec.Status != Ready || !sameTree(before, contentTree(t, d)) {
					t.Fatalf("rolled back to a different state: %s", rec.Status)
				}
			case "rolled_forward":
				if step != "apply:cleanup" || rec.Status != Applied || src.ContentHash("dec.mutable-rows") != "" || src.Errors() != 0 {
					t.Fatalf("rolled forward to an inconsistent state: %s", rec.Status)
				}
			}
			if _, err := os.Stat(desk.journalPath()); err == nil {
				t.Fatal("journal left after recovery")
			}
		})
	}
}

func childApply(desk *Desk, mode string) int {
	// mode: apply:STEP:HASH where STEP may itself hold colons (apply:write:1).
	rest := strings.TrimPrefix(mode, "apply:")
	i := strings.LastIndex(rest, ":sha256")
	step, hash := rest[:i], rest[i+1:]
	desk.FaultHook(func(s string) error {
		if s == step {
			fmt.Println("at " + s)
			time.Sleep(time.Hour)
		}
		return nil
	})
	if _, err := desk.Apply(context.Background(), "maintainer", "cs-kill", hash); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("finished without reaching the step")
	return 1
}
