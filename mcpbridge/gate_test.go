package mcpbridge

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// Every line is either passed on as one well-formed message or answered with one JSON-RPC
// error that names the line's id when it can be read.
func TestGateAnswersBadLines(t *testing.T) {
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	lines := []struct {
		line string
		code int // 0: passed on
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0},
		{`{not json`, rpcParseError},
		{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, rpcInvalidRequest},
		{deep, rpcInvalidRequest},
		{`{"jsonrpc":"2.0","id":3,"params":` + deep + `}`, rpcInvalidRequest},
		{`42`, rpcInvalidRequest},
		{`{"id":4,"method":"tools/list"}`, rpcInvalidRequest},
		{"", 0},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, 0},
	}
	var in bytes.Buffer
	for _, l := range lines {
		in.WriteString(l.line + "\n")
	}
	in.WriteString(strings.Repeat("x", MaxLineBytes+10) + "\n")
	var out bytes.Buffer
	r, _ := Gate(&in, &out)
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := lines[0].line + "\n" + lines[8].line + "\n"; string(passed) != want {
		t.Errorf("passed on %q, want the two good messages", passed)
	}
	var codes []int
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(l), &resp); err != nil {
			t.Fatalf("an error response is not JSON: %v: %s", err, l)
		}
		codes, ids = append(codes, resp.Error.Code), append(ids, string(resp.ID))
	}
	want := []int{rpcParseError, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest, rpcInvalidRequest}
	if len(codes) != len(want) {
		t.Fatalf("error responses %v, want %v", codes, want)
	}
	for i := range want {
		if codes[i] != want[i] {
			t.Errorf("response %d: code %d, want %d", i, codes[i], want[i])
		}
	}
	if ids[5] != "4" {
		t.Errorf("the id of a readable bad request is answered: %v", ids)
	}
}

// FuzzCheckLine: no line makes the gate panic; a line it passes on is one JSON-RPC object within
// the depth bound, and its answer to any other line is one valid JSON-RPC error.
func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `[1]`, `{`, `"\"`, `{"a":[[[{}]]]}`, "\x00", `{"jsonrpc":"2.0","id":{"x":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		reply := checkLine(line, false)
		if reply == nil {
			trimmed := bytes.TrimSpace(line)
			if len(trimmed) > 0 && (!json.Valid(trimmed) || trimmed[0] != '{' || depth(trimmed) > MaxDepth) {
				t.Fatalf("passed on %q", line)
			}
			return
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct{ Code int }
		}
		if err := json.Unmarshal(reply, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil || resp.Error.Code == 0 || len(resp.ID) == 0 {
			t.Fatalf("reply %q to %q is not a JSON-RPC error", reply, line)
		}
	})
}
