package worker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker/protocol"
)

// FuzzToolArguments: whatever arguments a client sends to a read tool, the service answers
// with one protocol.Envelope, never a panic: a result, or a structured error whose code is not
// internal.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"node_id":"arch.store"}`, `{"query":"store","limit":-1}`, `{"node_id":7}`, `[]`, `{"limit":1e999}`, `{"query":"\u0000"}`, `{"depth":"x"}`, `{"cursor":"AAAA"}`} {
		f.Add("docforge_get_node", []byte(s))
		f.Add("docforge_search", []byte(s))
		f.Add("docforge_impact", []byte(s))
		f.Add("docforge_get_task_context", []byte(s))
	}
	root := CopyExample(f, nil)
	impl, err := index.CurrentImplementation()
	if err != nil {
		f.Fatal(err)
	}
	svc := NewService(impl, false)
	f.Cleanup(func() { svc.Close() })
	b := protocol.Binding{ProjectRoot: root}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		out, err := svc.Call(context.Background(), b, tool, args)
		var env struct {
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if jerr := json.Unmarshal(out, &env); jerr != nil {
			t.Fatalf("%s %q: the answer is not one protocol.Envelope: %v", tool, args, jerr)
		}
		if err != nil && (env.Error == nil || env.Error.Code == "internal") {
			t.Fatalf("%s %q: %v (%s)", tool, args, err, out)
		}
	})
}
