package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Every line is either admitted as one well-formed JSON-RPC message or answered with one
// JSON-RPC error naming the line's id when it is usable, and null otherwise.
func TestAdmit(t *testing.T) {
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	for _, tc := range []struct {
		name, line string
		code       int64  // 0: admitted
		id         string // the id the error names
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{"string id", `{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`, 0, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 0, ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0, ""},
		{"huge id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, 0, ""},
		{"array params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":[]}`, 0, ""},
		{"null params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":null}`, 0, ""},
		{"result", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0, ""},
		{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"m","data":[1]}}`, 0, ""},
		{"error with a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, 0, ""},
		{"blank", "   ", 0, ""},

		{"not JSON", `{not json`, jsonrpc.CodeParseError, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{"deep", deep, jsonrpc.CodeInvalidRequest, "null"},
		{"deep params", `{"jsonrpc":"2.0","id":3,"params":` + deep + `}`, jsonrpc.CodeInvalidRequest, "null"},
		{"a number", `42`, jsonrpc.CodeInvalidRequest, "null"},
		{"no jsonrpc", `{"id":4,"method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "4"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "4"},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":4,"method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "4"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"two ids", `{"jsonrpc":"2.0","id":13,"method":"ping","id":14}`, jsonrpc.CodeInvalidRequest, "null"},
		{"two methods", `{"jsonrpc":"2.0","id":13,"method":"ping","method":"tools/list"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"numeric method", `{"jsonrpc":"2.0","id":5,"method":5}`, jsonrpc.CodeInvalidRequest, "5"},
		{"object method", `{"jsonrpc":"2.0","id":5,"method":{}}`, jsonrpc.CodeInvalidRequest, "5"},
		{"null method", `{"jsonrpc":"2.0","id":5,"method":null}`, jsonrpc.CodeInvalidRequest, "5"},
		{"scalar params", `{"jsonrpc":"2.0","id":6,"method":"ping","params":3}`, jsonrpc.CodeInvalidRequest, "6"},
		{"string params", `{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, "6"},
		{"request with a result", `{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}`, jsonrpc.CodeInvalidRequest, "6"},
		{"string error", `{"jsonrpc":"2.0","id":77,"error":"x"}`, jsonrpc.CodeInvalidRequest, "77"},
		{"error without a message", `{"jsonrpc":"2.0","id":77,"error":{"code":1}}`, jsonrpc.CodeInvalidRequest, "77"},
		{"error with a fractional code", `{"jsonrpc":"2.0","id":77,"error":{"code":1.5,"message":"m"}}`, jsonrpc.CodeInvalidRequest, "77"},
		{"result and error", `{"jsonrpc":"2.0","id":77,"result":1,"error":{"code":1,"message":"m"}}`, jsonrpc.CodeInvalidRequest, "77"},
		{"neither method nor result", `{"jsonrpc":"2.0","id":78}`, jsonrpc.CodeInvalidRequest, "78"},
		{"response without an id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "null"},
		{"response to a fractional id", `{"jsonrpc":"2.0","id":1.5,"result":{}}`, jsonrpc.CodeInvalidRequest, "1.5"},
	} {
		m, reply := admit([]byte(tc.line), false)
		if tc.code == 0 {
			if reply != nil || (m == nil) != (strings.TrimSpace(tc.line) == "") {
				t.Errorf("%s: refused: %s", tc.name, reply)
			}
			continue
		}
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int64 }
		}
		if m != nil || json.Unmarshal(reply, &resp) != nil || resp.Error.Code != tc.code || string(resp.ID) != tc.id {
			t.Errorf("%s: admitted %v, reply %s; want code %d and id %s", tc.name, m != nil, reply, tc.code, tc.id)
		}
	}
	if _, reply := admit(nil, true); !bytes.Contains(reply, []byte(`"code":-32600`)) {
		t.Errorf("a line too long: %s", reply)
	}
}

// FuzzAdmit: no line makes the gate panic; a line it admits is one JSON-RPC object within the
// depth bound whose members have their JSON-RPC types, and its answer to any other line is one
// valid JSON-RPC error.
func FuzzAdmit(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `[1]`, `{`, `"\"`, `{"a":[[[{}]]]}`, "\x00",
		`{"jsonrpc":"2.0","id":{"x":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":2,"message":"m"}}`, `{"jsonrpc":"2.0","id":1e9,"method":"m","params":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, reply := admit(line, false)
		if reply == nil {
			trimmed := bytes.TrimSpace(line)
			if m == nil {
				if len(trimmed) > 0 {
					t.Fatalf("neither admitted nor answered: %q", line)
				}
				return
			}
			if !json.Valid(trimmed) || trimmed[0] != '{' || depth(trimmed) > MaxDepth {
				t.Fatalf("admitted %q", line)
			}
			if m.id != nil && !usableID(m.id) || m.request == (m.result != nil || m.err != nil) {
				t.Fatalf("admitted %q as %+v", line, m)
			}
			return
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *struct{ Code int }
		}
		if err := json.Unmarshal(reply, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil || resp.Error.Code == 0 || len(resp.ID) == 0 || m != nil {
			t.Fatalf("reply %q to %q is not a JSON-RPC error", reply, line)
		}
	})
}

// The transport hands the SDK each request under a gate id and writes its response under the
// client's id byte for byte; a cancellation names the gate id; an uncoded error gets a code.
func TestStdioKeepsClientIDs(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.50,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ab","reason":"r"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"id":"ab"}}}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	conn, err := (&Stdio{In: strings.NewReader(in), Out: &out}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The cancellation of a request not in flight is dropped (nothing the SDK holds has its
	// id, an object names none), and answered with nothing.
	var got []jsonrpc.Message
	for len(got) < 4 {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("after %d messages: %v", len(got), err)
		}
		got = append(got, msg)
	}
	cancelled := got[3].(*jsonrpc.Request)
	var params struct{ RequestID any }
	json.Unmarshal(cancelled.Params, &params)
	if id := got[2].(*jsonrpc.Request).ID.Raw(); params.RequestID != float64(id.(int64)) {
		t.Errorf("the cancellation names %v, want the gate id %v", params.RequestID, id)
	}
	for i, msg := range got[:3] {
		req := msg.(*jsonrpc.Request)
		var resp *jsonrpc.Response
		if i == 2 {
			resp = &jsonrpc.Response{ID: req.ID, Error: io.ErrUnexpectedEOF} // an error without a code
		} else {
			resp = &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
		}
		if err := conn.Write(ctx, resp); err != nil {
			t.Fatal(err)
		}
	}
	// The input ended long ago; the session ends once the last request read is answered.
	if msg, err := conn.Read(ctx); err != io.EOF {
		t.Fatalf("after every answer: %v %v, want the end of input", msg, err)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"an id is a string, a number or null"}}
{"jsonrpc":"2.0","id":1e400,"result":{}}
{"jsonrpc":"2.0","id":-0.50,"result":{}}
{"jsonrpc":"2.0","id":"a\u0062","error":{"code":-32600,"message":"unexpected EOF"}}
`
	// The gate's own reply and the SDK's answers are written as they come, in either order.
	gotLines, wantLines := strings.Split(out.String(), "\n"), strings.Split(want, "\n")
	slices.Sort(gotLines)
	slices.Sort(wantLines)
	if !slices.Equal(gotLines, wantLines) {
		t.Errorf("written:\n%s\nwant:\n%s", out.String(), want)
	}
}
