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
// tight, its evidence within the page), so 3,072 characters answer with evidence items (ranked pointers at least) and every
// answer fits; a limit too small even for the header says how much more it needs.
func TestTaskContextFitsSmallResponseLimits(t *testing.T) {
	for _, n := range []int{1024, 2048, 3072, 4096} {
		root := CopyExample(t, func(root string) {
			p := filepath.Join(root, "docforge.toml")
			s, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(s), "max_response_chars = 65536", fmt.Sprint("max_response_chars = ", n), 1)), 0o644)
		})
		w := newWatched(t, root)
		out, err := w.svc.Call(context.Background(), w.b, "docforge_get_task_context", []byte(`{"kind":"change","task":"change how the shipment store writes events","budget":2000}`))
		var te *ToolError
		switch {
		case n <= 2048:
			// Too small for the header with a cursor: said with the room it needs.
			if err != nil && (!errors.As(err, &te) || te.Code != "result_too_large" || !strings.Contains(string(out), "raise max_response_chars by")) {
				t.Errorf("%d: %v %.300s", n, err, out)
			}
			if n == 1024 && err == nil {
				t.Errorf("1024 characters cannot hold a capsule header and the envelope: %d", len(out))
			}
		case err != nil || len(out) > n || strings.Contains(string(out), `"items":[]`):
			t.Errorf("%d: %v, %d characters: %.200s", n, err, len(out), out)
		}
	}
}
