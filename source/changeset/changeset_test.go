package changeset

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/project"
)

// example copies the bundled example project into a temporary directory.
func example(t *testing.T) *project.Descriptor {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "courier")
	if out, err := exec.Command("cp", "-R", "../../examples/courier", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy example: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(dst, ".docforge"))
	os.RemoveAll(filepath.Join(dst, "site"))
	d, probs, err := project.Load(dst)
	if err != nil || d == nil {
		t.Fatalf("load %s: %v %v", dst, err, probs)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

func sources(t *testing.T, d *project.Descriptor) *Sources {
	t.Helper()
	src, err := LoadSources(context.Background(), d, "")
	if err != nil {
		t.Fatal(err)
	}
	if src.Errors() != 0 {
		t.Fatalf("example has %d errors", src.Errors())
	}
	return src
}

func TestProjectionOperations(t *testing.T) {
	d := example(t)
	src := sources(t, d)
	storeBody := func() string {
		data, _ := os.ReadFile(filepath.Join(d.Root, "docs/architecture/store.md"))
		_, body, _ := strings.Cut(string(data)[3:], "+++\n")
		return body
	}()
	tests := []struct {
		name  string
		ops   []Operation
		check func(t *testing.T, c *Checked, changes []Change)
	}{
		{"update front matter keeps the body bytes", []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: ptr("Event store"), Tags: &[]string{"storage"}}}},
			func(t *testing.T, c *Checked, changes []Change) {
				text := string(c.Projection.Overlay.Files["docs/architecture/store.md"])
				if !strings.HasSuffix(text, "+++\n"+storeBody) || !strings.Contains(text, `title = "Event store"`) || !strings.Contains(text, "owns = [\"data.shipments\", \"data.events\"]") {
					t.Fatalf("projected file:\n%s", text)
				}
				if changes[0].Change != "updated" || !strings.Contains(changes[0].FrontMatterDiff, `+title = "Event store"`) || changes[0].BodyDiff != "" {
					t.Fatalf("change: %+v", changes[0])
				}
			}},
		{"update a record's body", []Operation{{Op: OpUpdate, NodeID: "req.track-lookup", Fields: &Fields{Body: ptr("Line one \"quoted\" \\ back\nline two\n")}}},
			func(t *testing.T, c *Checked, changes []Change) {
				if !strings.Contains(changes[0].BodyDiff, "+line two") {
					t.Fatalf("body diff: %s", changes[0].BodyDiff)
				}
			}},
		{"create markdown with relations", []Operation{{Op: OpCreate, NodeID: "arch.cache", Path: "docs/architecture/cache.md",
			Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture"), Title: ptr("Cache"), Relations: map[string][]string{"depends_on": {"arch.store"}}, Body: ptr("# Cache\n\nSee [[arch.api]].\n")}}},
			func(t *testing.T, c *Checked, changes []Change) {
				if changes[0].Change != "created" || len(changes[0].RelationsAdded) != 2 {
					t.Fatalf("change: %+v", changes[0])
				}
			}},
		{"create a record in an existing file", []Operation{{Op: OpCreate, NodeID: "req.new", Path: "docs/requirements/requirements.toml",
			Fields: &Fields{Kind: ptr("requirement"), Family: ptr("requirements"), Title: ptr("New"), Body: ptr("multi\nline\n")}}}, nil},
		{"relationship update", []Operation{{Op: OpRelationshipUpdate, NodeID: "req.track-lookup", Add: []Relation{{"depends_on", "req.lookup-latency"}}, Remove: []Relation{{"tested_by", "test.lookup-e2e"}}}},
			func(t *testing.T, c *Checked, changes []Change) {
				ch := changes[0]
				if len(ch.RelationsAdded) != 1 || len(ch.RelationsRemoved) != 1 || ch.BodyDiff != "" || ch.HashBefore == ch.HashAfter {
					t.Fatalf("change: %+v", ch)
				}
			}},
		{"move markdown", []Operation{{Op: OpMove, NodeID: "arch.store", Path: "docs/architecture/storage/store.md"}},
			func(t *testing.T, c *Checked, changes []Change) {
				if changes[0].Change != "moved" || changes[0].HashBefore != changes[0].HashAfter || !c.Projection.Overlay.Removed["docs/architecture/store.md"] {
					t.Fatalf("change: %+v", changes[0])
				}
			}},
		{"move a record to a new file", []Operation{{Op: OpMove, NodeID: "req.lookup-latency", Path: "docs/requirements/performance.toml"}},
			func(t *testing.T, c *Checked, changes []Change) {
				if changes[0].Change != "moved" || changes[0].HashBefore != changes[0].HashAfter {
					t.Fatalf("change: %+v", changes[0])
				}
			}},
		{"unlink, then delete", []Operation{{Op: OpRelationshipUpdate, NodeID: "dec.event-sourcing", Remove: []Relation{{"supersedes", "dec.mutable-rows"}}},
			{Op: OpDelete, NodeID: "dec.mutable-rows"}}, func(t *testing.T, c *Checked, changes []Change) {
			if len(changes) != 2 || changes[1].Change != "deleted" || changes[0].RelationsRemoved[0].Target != "dec.mutable-rows" {
				t.Fatalf("changes: %+v", changes)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &Changeset{SchemaVersion: 1, ID: "cs-test", Writer: "agent", Title: tc.name, Operations: tc.ops}
			c := src.Check(cs, nil, true)
			if !c.Report.Valid {
				for p := range c.Projection.Overlay.Files {
					t.Logf("%s:\n%s", p, c.Projection.Overlay.Files[p])
				}
				t.Fatalf("not valid: %+v", c.Report)
			}
			if tc.check != nil {
				tc.check(t, c, src.Changes(c))
			}
		})
	}
}

func TestProjectionRefusals(t *testing.T) {
	d := example(t)
	src := sources(t, d)
	tests := []struct {
		name string
		op   Operation
		code problem.Code
	}{
		{"unknown node", Operation{Op: OpUpdate, NodeID: "arch.nope", Fields: &Fields{Title: ptr("x")}}, problem.NodeNotFound},
		{"code node", Operation{Op: OpDelete, NodeID: "go:example.com/courier/store.Log"}, problem.InvalidArgument},
		{"dot-dot path", Operation{Op: OpCreate, NodeID: "x.a", Path: "docs/../x.md", Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}, problem.PathEscape},
		{"absolute path", Operation{Op: OpCreate, NodeID: "x.a", Path: "/etc/x.md", Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}, problem.PathEscape},
		{"outside content roots", Operation{Op: OpCreate, NodeID: "x.a", Path: "code/x.md", Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}, problem.PathEscape},
		{"empty relationship list", Operation{Op: OpRelationshipUpdate, NodeID: "arch.store"}, problem.InvalidArgument},
		{"removing an undeclared relation", Operation{Op: OpRelationshipUpdate, NodeID: "arch.store", Remove: []Relation{{"depends_on", "arch.api"}}}, problem.InvalidArgument},
		{"undeclared relation", Operation{Op: OpRelationshipUpdate, NodeID: "arch.store", Add: []Relation{{"likes", "arch.api"}}}, problem.UndeclaredRelation},
		{"duplicate create", Operation{Op: OpCreate, NodeID: "arch.store", Path: "docs/architecture/x.md", Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}, problem.DuplicateID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := &Changeset{SchemaVersion: 1, ID: "cs-test", Writer: "agent", Title: "t", Operations: []Operation{tc.op}}
			c := src.Check(cs, nil, true)
			if c.Report.Valid || len(c.Projection.Problems) != 1 || c.Projection.Problems[0].Code != tc.code {
				t.Fatalf("want one %s problem, got %+v", tc.code, c.Projection.Problems)
			}
		})
	}
	// A graph-level error: deleting a node others point at leaves dangling targets.
	cs := &Changeset{SchemaVersion: 1, ID: "cs-test", Title: "t", Operations: []Operation{{Op: OpDelete, NodeID: "arch.store"}}}
	c := src.Check(cs, nil, true)
	if c.Report.Valid || c.Report.Errors == 0 || c.Report.Problems[0].Code != problem.DanglingTarget {
		t.Fatalf("delete of a referenced node: %+v", c.Report)
	}
}

func TestCacheReusesUntilASourceChanges(t *testing.T) {
	d := example(t)
	var c Cache
	ctx := context.Background()
	a, err := c.Load(ctx, d, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Load(ctx, d, "")
	if a != b {
		t.Fatal("unchanged sources were parsed again")
	}
	p := filepath.Join(d.Root, "docs/architecture/store.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, "\nOne more line.\n"...), 0o644)
	after, _ := c.Load(ctx, d, "")
	if after == a || after.ContentHash("arch.store") == a.ContentHash("arch.store") {
		t.Fatal("an edited source was served from the cache")
	}
}

// A changeset's own text is bounded and plain: people read it in lists and reviews, where a
// control character would drive their terminal and a megabyte title would make the
// changeset unreadable.
func TestChangesetTextIsBoundedAndPlain(t *testing.T) {
	d := example(t)
	desk, _ := NewDesk(d, "")
	title := "Event store"
	ops := []Operation{{Op: OpUpdate, NodeID: "arch.store", Fields: &Fields{Title: &title}}}
	for i, tc := range []struct {
		name               string
		title, description string
		ok                 bool
	}{
		{"plain", "Rename the store", "Two lines,\n\tindented.", true},
		{"an escape sequence in the title", "\x1b[2K\rcs-fake ready", "", false},
		{"a NUL in the title", "a\x00b", "", false},
		{"a newline in the title", "two\nlines", "", false},
		{"a title of 3.5 MB", strings.Repeat("t", 3_500_000), "", false},
		{"a carriage return in the description", "ok", "a\rb", false},
		{"a description over the bound", "ok", strings.Repeat("d", MaxDescriptionChars+1), false},
		{"a line separator in the title", "a\u2028b", "", false},
		{"a paragraph separator in the title", "a\u2029", "", false},
		{"a Hangul filler as the title", "\u3164", "", false},
		{"a bidi override in the description", "ok", "pay\u202emoc.exe", false},
		{"a bidi isolate in the description", "ok", "a\u2067b\u2069", false},
		{"a joiner in the description (an emoji sequence)", "ok", "a family: \U0001F468\u200D\U0001F469", true},
		{"a no-break space in the title", "Rename\u00a0the store", "", true},
	} {
		_, err := desk.Register(context.Background(), "agent", Request{ID: fmt.Sprintf("cs-text-%d", i), Title: tc.title, Description: tc.description, Operations: ops})
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && problem.CodeOf(err) != problem.InvalidArgument:
			t.Errorf("%s: %v, want invalid_argument", tc.name, err)
		}
		if tc.ok && err == nil {
			desk.Abandon(context.Background(), "agent", fmt.Sprintf("cs-text-%d", i), "done")
		}
	}
	// A no-break space in a path reads as a plain one: refused.
	_, err := desk.Register(context.Background(), "agent", Request{ID: "cs-text-nbsp", Title: "t", Operations: []Operation{{Op: OpCreate, NodeID: "x.nbsp",
		Path: "docs/a\u00a0b.md", Fields: &Fields{Kind: ptr("component"), Family: ptr("architecture")}}}})
	if problem.CodeOf(err) != problem.InvalidArgument || !strings.Contains(err.Error(), "U+00A0") {
		t.Errorf("a path with a no-break space: %v", err)
	}
	// An abandon's reason is bounded as a description is, and refused before anything changes.
	id := "cs-text-reason"
	if _, err := desk.Register(context.Background(), "agent", Request{ID: id, Title: "Rename", Operations: ops}); err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{strings.Repeat("r", 7_000_000), "a]0;title"} {
		if _, err := desk.Abandon(context.Background(), "agent", id, reason); problem.CodeOf(err) != problem.InvalidArgument {
			t.Errorf("a reason of %d bytes: %v, want invalid_argument", len(reason), err)
		}
	}
	if _, err := desk.Abandon(context.Background(), "agent", id, "superseded"); err != nil {
		t.Errorf("the changeset is not open after refused abandons: %v", err)
	}
}
