package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/worker/protocol"
)

// Task context at every max_response_chars a descriptor accepts (from 1,024): each page fits,
// the header gives way before evidence (plan, then prose, then the hashes capsule_hash binds),
// pages of one entry walk the whole stream within the limit, and only a project whose protocol.Envelope
// alone leaves no room for a header is refused, saying by how much to raise the limit.
func TestTaskContextFitsSmallResponseLimits(t *testing.T) {
	const args = `"kind":"change","task":"change how the shipment store writes events","budget":2000`
	for _, tc := range []struct {
		limit     int
		deep      bool // a project root of over 200 characters
		wantItems bool
		wantBare  bool // header_omitted
	}{
		{limit: 1024, wantBare: true},
		{limit: 1280, wantItems: true, wantBare: true},
		{limit: 2048, wantItems: true},
		{limit: 3072, wantItems: true},
		{limit: 4096, wantItems: true},
		{limit: 1024, deep: true},
	} {
		name := fmt.Sprintf("%d/deep=%v", tc.limit, tc.deep)
		setLimit := func(root string) {
			p := filepath.Join(root, "docforge.toml")
			s, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(s), "max_response_chars = 65536", fmt.Sprint("max_response_chars = ", tc.limit), 1)), 0o644)
		}
		var root string
		if tc.deep {
			root = filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 12))
			copyExampleTo(t, root)
			setLimit(root)
		} else {
			root = CopyExample(t, setLimit)
		}
		w := newWatched(t, root)
		out, err := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte("{"+args+"}"))
		if len(out) > tc.limit {
			t.Errorf("%s: %d characters", name, len(out))
		}
		if tc.deep {
			var te *protocol.ToolError
			if !errors.As(err, &te) || te.Code != "result_too_large" || !strings.Contains(string(out), "raise max_response_chars by") {
				t.Errorf("%s: %v %.300s", name, err, out)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v %.300s", name, err, out)
			continue
		}
		var page struct {
			Result struct {
				HeaderOmitted bool              `json:"header_omitted"`
				CapsuleHash   string            `json:"capsule_hash"`
				RequestHash   string            `json:"request_hash"`
				Items         []json.RawMessage `json:"items"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &page); err != nil {
			t.Fatal(err)
		}
		r := page.Result
		if r.CapsuleHash == "" || r.HeaderOmitted != tc.wantBare || (r.RequestHash == "") != tc.wantBare || (len(r.Items) > 0) != tc.wantItems {
			t.Errorf("%s: header_omitted %v, request_hash %q, %d items: %.400s", name, r.HeaderOmitted, r.RequestHash, len(r.Items), out)
		}
		// One entry a page: every page within the limit, the same capsule, the whole stream.
		cursor, seen := "", 0
		for range 50 {
			req := `{` + args + `,"limit":1`
			if cursor != "" {
				req += `,"cursor":"` + cursor + `"`
			}
			out, err := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte(req+"}"))
			if err != nil || len(out) > tc.limit {
				t.Fatalf("%s: page %d: %v, %d characters: %.300s", name, seen, err, len(out), out)
			}
			var p struct {
				Result struct {
					CapsuleHash string            `json:"capsule_hash"`
					Items       []json.RawMessage `json:"items"`
					Omissions   []json.RawMessage `json:"response_omissions"`
					Pagination  Pagination        `json:"pagination"`
				} `json:"result"`
			}
			json.Unmarshal(out, &p)
			seen += len(p.Result.Items) + len(p.Result.Omissions)
			if cursor = p.Result.Pagination.NextCursor; cursor == "" {
				if seen != p.Result.Pagination.Total {
					t.Errorf("%s: paged through %d of %d entries", name, seen, p.Result.Pagination.Total)
				}
				break
			}
		}
	}
}

// At the smallest max_response_chars, an error (the preflight refusal of a mutation among
// them) still fits the limit it enforces.
func TestErrorsFitTheSmallestResponseLimit(t *testing.T) {
	// A project deep in the file system: its root is in every protocol.Envelope.
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name/", 20))
	copyExampleTo(t, root)
	p := filepath.Join(root, "docforge.toml")
	src, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(src), "max_response_chars = 65536", "max_response_chars = 1024", 1)), 0o644)
	w := newWatched(t, root)
	b := protocol.Binding{ProjectRoot: root, ProposalWriter: "agent"}
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
