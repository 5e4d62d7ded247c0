package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/fixture"
)

// review is one entry of validate --json's suspect_relations.
type review struct {
	Source   string   `json:"source_id"`
	Target   string   `json:"target_id"`
	State    string   `json:"state"`
	Stamped  string   `json:"stamped_hash"`
	Current  string   `json:"current_hash"`
	Changes  []string `json:"changes"`
	TargetAt *struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"target_at"`
}

type validation struct {
	Valid    bool           `json:"valid"`
	Suspects []review       `json:"suspect_relations"`
	Problems []problemEntry `json:"problems"`
}

type problemEntry struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func validateJSON(t *testing.T, root string) validation {
	t.Helper()
	out, stderr, _ := docforge(t, root, "validate", "--json")
	var v validation
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("validate --json: %v\n%s%s", err, out, stderr)
	}
	return v
}

func edit(t *testing.T, path string, fn func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	after := fn(string(data))
	if after == string(data) {
		t.Fatalf("the edit of %s changed nothing", path)
	}
	if err := os.WriteFile(path, []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The life of a reviewed relation, for a Go target and a Markdown target: stamped once, a
// body edit makes it suspect, a move of the unchanged target does not, a rename leaves it
// dangling with the stamp quoted, and a review makes it clean again.
func TestSuspectRelationLifecycle(t *testing.T) {
	const (
		goFile = "code/normalize/normalize.go"
		goDoc  = "docs/architecture/normalizer.md"
		goID   = "go:example.com/courier/normalize.Normalize"
		mdFile = "docs/architecture/store.md"
		mdID   = "arch.store"
	)
	normalize := func(s string) string { // the whole func Normalize, with its doc comment
		start := strings.Index(s, "// Normalize converts")
		end := strings.Index(s[start:], "\n}\n") + start + 3
		return s[start:end]
	}
	tests := []struct {
		name   string
		source string // the document whose relation is watched
		target string
		file   string
		change func(t *testing.T, root string)
		// want is the state of source -> target in validate: "" (no entry), suspect, dangling.
		want    string
		changes []string
		valid   bool
	}{
		{"go body edit", "arch.normalizer", goID, goFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, goFile), func(s string) string {
				return strings.Replace(s, "return store.Event{State: state, At: s.At.UTC()}", "return store.Event{State: state, At: s.At}", 1)
			})
		}, "suspect", []string{"body changed"}, true},
		{"go signature edit", "arch.normalizer", goID, goFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, goFile), func(s string) string {
				return strings.Replace(s, "func Normalize(s Scan) store.Event {", "func Normalize(s Scan, _ ...int) store.Event {", 1)
			})
		}, "suspect", []string{"signature changed"}, true},
		{"go comment and layout only", "arch.normalizer", goID, goFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, goFile), func(s string) string {
				fn := normalize(s)
				spaced := strings.Replace(fn, "\tif !ok {", "\t// an inline comment is not code\n\n\tif !ok {", 1)
				return strings.Replace(s, fn, spaced, 1)
			})
		}, "", nil, true},
		{"go move to another file unchanged", "arch.normalizer", goID, goFile, func(t *testing.T, root string) {
			var fn string
			edit(t, filepath.Join(root, goFile), func(s string) string {
				fn = normalize(s)
				return strings.Replace(s, fn, "", 1)
			})
			moved := "package normalize\n\nimport (\n\t\"strings\"\n\n\t\"example.com/courier/store\"\n)\n\n" + fn
			if err := os.WriteFile(filepath.Join(root, "code/normalize/moved.go"), []byte(moved), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "", nil, true},
		{"go rename", "arch.normalizer", goID, goFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, goFile), func(s string) string {
				return strings.Replace(s, "func Normalize(", "func NormalizeScan(", 1)
			})
		}, "dangling", nil, false},
		{"markdown body edit", "arch.api", mdID, mdFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, mdFile), func(s string) string { return s + "\nShipments are now sharded by carrier.\n" })
		}, "suspect", []string{"body changed"}, true},
		{"markdown field edit", "arch.api", mdID, mdFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, mdFile), func(s string) string { return strings.Replace(s, `status = "accepted"`, `status = "deprecated"`, 1) })
		}, "suspect", []string{"fields changed"}, true},
		{"markdown move to another file unchanged", "arch.api", mdID, mdFile, func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, mdFile), filepath.Join(root, "docs/architecture/storage.md")); err != nil {
				t.Fatal(err)
			}
		}, "", nil, true},
		{"markdown rename", "arch.api", mdID, mdFile, func(t *testing.T, root string) {
			edit(t, filepath.Join(root, mdFile), func(s string) string { return strings.Replace(s, `id = "arch.store"`, `id = "arch.shipment-store"`, 1) })
		}, "dangling", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := fixture.Temp(t, "../../examples/courier")
			if out, stderr, code := docforge(t, root, "stamp", "--all"); code != 0 || !strings.Contains(out, "stamped ") {
				t.Fatalf("stamp --all: %d\n%s%s", code, out, stderr)
			}
			if v := validateJSON(t, root); !v.Valid || len(v.Suspects) != 0 {
				t.Fatalf("freshly stamped: %+v", v)
			}
			tc.change(t, root)
			v := validateJSON(t, root)
			var got *review
			for i, r := range v.Suspects {
				if r.Source == tc.source && r.Target == tc.target {
					got = &v.Suspects[i]
				}
			}
			switch {
			case tc.want == "" && got != nil:
				t.Fatalf("%s -> %s is %s (%v); want it confirmed", tc.source, tc.target, got.State, got.Changes)
			case tc.want == "":
			case got == nil:
				t.Fatalf("%s -> %s is not listed; want %s. Listed: %+v", tc.source, tc.target, tc.want, v.Suspects)
			case got.State != tc.want || !slices.Equal(got.Changes, tc.changes):
				t.Fatalf("%s -> %s: %s %v; want %s %v", tc.source, tc.target, got.State, got.Changes, tc.want, tc.changes)
			case tc.want == "suspect" && (got.Stamped == got.Current || got.TargetAt == nil || got.TargetAt.Path != tc.file || got.TargetAt.Line == 0):
				t.Fatalf("a suspect entry needs both hashes and the target's position: %+v", got)
			}
			if v.Valid != tc.valid {
				t.Fatalf("valid = %v, want %v: %+v", v.Valid, tc.valid, v.Problems)
			}
			if tc.want == "dangling" {
				i := slices.IndexFunc(v.Problems, func(p problemEntry) bool {
					return p.Code == "dangling_target" && strings.Contains(p.Message, tc.target) && strings.Contains(p.Message, "it was confirmed")
				})
				if i < 0 {
					t.Fatalf("the dangling_target problem does not say the relation was confirmed: %+v", v.Problems)
				}
				return
			}
			if tc.want == "suspect" {
				out, _, _ := docforge(t, root, "get", tc.source)
				if !strings.Contains(out, tc.target+"  (") || !strings.Contains(out, "[SUSPECT: "+tc.changes[0]+"]") {
					t.Errorf("get %s does not mark the suspect relation:\n%s", tc.source, out)
				}
				drift, _, _ := docforge(t, root, "drift", "--json")
				var d struct {
					Documents []struct {
						NodeID  string `json:"node_id"`
						Suspect int    `json:"suspect"`
					} `json:"documents"`
				}
				if err := json.Unmarshal([]byte(drift), &d); err != nil || len(d.Documents) == 0 || d.Documents[0].Suspect == 0 {
					t.Errorf("drift --json does not put a suspect document first: %v\n%s", err, drift)
				}
			}
			// A person reads the target and confirms the document again.
			if out, stderr, code := docforge(t, root, "review", tc.source); code != 0 {
				t.Fatalf("review: %d\n%s%s", code, out, stderr)
			}
			if v := validateJSON(t, root); !v.Valid || slices.ContainsFunc(v.Suspects, func(r review) bool { return r.Source == tc.source }) {
				t.Fatalf("after review %s: %+v", tc.source, v)
			}
		})
	}
}

func TestStampNeedsAll(t *testing.T) {
	root := fixture.Temp(t, "../../examples/courier")
	_, stderr, code := docforge(t, root, "stamp")
	if code != 2 || !strings.Contains(stderr, "--all") {
		t.Errorf("stamp without --all: %d %s", code, stderr)
	}
	_, stderr, code = docforge(t, root, "review", "go:example.com/courier/normalize.Normalize")
	if code == 0 || !strings.Contains(stderr, "code node") {
		t.Errorf("review of a code node: %d %s", code, stderr)
	}
	out, _, code := docforge(t, root, "stamp", "--all", "--dry-run")
	if code != 0 || !strings.Contains(out, "would stamp") {
		t.Errorf("dry run: %d %s", code, out)
	}
	if v := validateJSON(t, root); len(v.Suspects) != 0 {
		t.Errorf("a dry run wrote stamps")
	}
	if out, _, _ := docforge(t, root, "drift"); !strings.Contains(out, "docforge stamp --all") {
		t.Errorf("drift of an unstamped project does not say how to start:\n%s", out)
	}
}
