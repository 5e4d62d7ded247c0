package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Task context at small max_response_chars: the capsule is laid out for one page (its header
// tight, its evidence within the page), so 2,560 characters answer (2,048 usually), 3,072
// with evidence, and every answer fits; a limit too small even for the header says how much
// more it needs.
func TestTaskContextFitsSmallResponseLimits(t *testing.T) {
	for _, n := range []int{1024, 2048, 2560, 3072, 4096} {
		root := CopyExample(t, func(root string) {
			p := filepath.Join(root, "docforge.toml")
			s, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(s), "max_response_chars = 65536", fmt.Sprint("max_response_chars = ", n), 1)), 0o644)
		})
		w := newWatched(t, root)
		out, err := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte(`{"kind":"change","task":"change how the shipment store writes events","budget":2000}`))
		var te *ToolError
		switch {
		case n == 1024:
			// Too small for the header: said with the room it needs.
			if !errors.As(err, &te) || te.Code != "result_too_large" || !strings.Contains(string(out), "raise max_response_chars by") {
				t.Errorf("%d: %v %.300s", n, err, out)
			}
		case n == 2048 && err != nil:
			// At the edge: the project root's length decides; a refusal must say by how much.
			if !errors.As(err, &te) || te.Code != "result_too_large" || !strings.Contains(string(out), "raise max_response_chars by") {
				t.Errorf("%d: %v %.300s", n, err, out)
			}
		case err != nil || len(out) > n:
			t.Errorf("%d: %v, %d characters: %.200s", n, err, len(out), out)
		case n >= 3072 && strings.Contains(string(out), `"items":[]`):
			t.Errorf("%d: no evidence: %.300s", n, out)
		}
	}
}

// At the smallest max_response_chars, an error (the preflight refusal of a mutation among
// them) still fits the limit it enforces.
func TestErrorsFitTheSmallestResponseLimit(t *testing.T) {
	// A project deep in the file system: its root is in every envelope.
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 20))
	copyExampleTo(t, root)
	p := filepath.Join(root, "docforge.toml")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(src), "max_response_chars = 65536", "max_response_chars = 1024", 1)), 0o644)
	w := newWatched(t, root)
	b := Binding{ProjectRoot: root, ProposalWriter: "agent"}
	for _, tc := range []struct{ tool, args string }{
		{"docforge_register_changes", `{"changeset_id":"cs-small","title":"` + strings.Repeat("t", 150) + `","operations":[{"op":"update","node_id":"arch.store","fields":{"title":"` + strings.Repeat("x", 150) + `"}}]}`},
		{"docforge_get_task_context", `{"kind":"change","task":"store"}`},
		{"docforge_get_node", `{"node_id":"arch.nope"}`},
	} {
		out, err := w.svc.Call(context.Background(), b, tc.tool, []byte(tc.args))
		if len(out) > 1024 {
			t.Errorf("%s: %d characters at max_response_chars 1024 (%v): %.200s", tc.tool, len(out), err, out)
		}
		if err != nil && strings.Contains(err.Error(), "internal") {
			t.Errorf("%s: %v", tc.tool, err)
		}
	}
}
