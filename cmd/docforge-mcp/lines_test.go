package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The real bridge, fed raw lines: a malformed line, a batch, deep nesting, a non-object and
// an oversized call each get a JSON-RPC error or a tool error, and the session goes on to
// answer the next well-formed request.
func TestBadLinesKeepTheSession(t *testing.T) {
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	cmd := exec.Command(bin, "--project-root", root)
	cmd.Env = rt.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	// next reads responses until one has the wanted id, byte for byte ("null" for the gate's
	// own errors).
	next := func(id string) map[string]json.RawMessage {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the bridge closed its output while a response to id %s was due (exit: %v)", id, cmd.ProcessState)
				}
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("not JSON: %v: %.200s", err, l)
				}
				if string(m["id"]) == id {
					return m
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no response with id %s", id)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	next("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":2,"method":`,
		`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`,
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
		`"a string"`,
	} {
		send(bad)
		if m := next("null"); m["error"] == nil {
			t.Fatalf("no error for %.40s: %v", bad, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"docforge_sync","arguments":{}}}`)
	next("6") // a generation is published: the bridge's own errors name it
	big := strings.Repeat("x", 9<<20)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"docforge_search","arguments":{"query":%q}}}`, big))
	m := next("7")
	text := m["result"]
	if !strings.Contains(string(text), `invalid_argument`) || !strings.Contains(string(text), "at most") {
		t.Fatalf("an oversized call: %.300s", text)
	}
	// Refused in the bridge, it still names the binding: the project and its generation.
	if !strings.Contains(string(text), `\"id\":\"courier\"`) || strings.Contains(string(text), `\"revision\":0`) || strings.Contains(string(text), `\"source_hash\":\"\"`) {
		t.Fatalf("an oversized call's error without the binding's identity: %.600s", text)
	}
	// Six megabytes fit the bound and reach the worker (not worker_unavailable, which says to
	// retry), whose search refuses the query with its own bound.
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"docforge_search","arguments":{"query":%q}}}`, strings.Repeat("y", 6<<20)))
	m = next("9")
	text = m["result"]
	if !strings.Contains(string(text), `invalid_argument`) || strings.Contains(string(text), "worker_unavailable") {
		t.Fatalf("a 6 MB call: %.300s", text)
	}
	// Messages of the wrong JSON-RPC shape, each answered, and then a ping is: no message
	// ends the session. Numeric ids come back exactly as sent.
	for i, tc := range []struct{ line, id, code string }{
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", "-32600"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null", "-32600"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", "-32600"},
		{`{"jsonrpc":"2.0","id":20,"method":5}`, "20", "-32600"},
		{`{"jsonrpc":"2.0","id":21,"method":{}}`, "21", "-32600"},
		{`{"jsonrpc":"2.0","id":22,"method":"ping","params":"x"}`, "22", "-32600"},
		{`{"jsonrpc":"2.0","id":77,"error":"x"}`, "77", "-32600"},
		{`{"jsonrpc":"2.0","id":23,"method":"ping","id":24}`, "null", "-32600"},
		{`{"jsonrpc":"2.0","id":25,"method":"initialize","params":{}}`, "25", "-32600"},
		{`{"jsonrpc":"2.0","id":26,"method":"no/such"}`, "26", "-32601"},
		{`{"jsonrpc":"2.0","id":27,"method":"tools/call","params":[1]}`, "27", "-32602"},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, "1e400", ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5", ""},
		{`{"jsonrpc":"2.0","id":-99999999999999999999999,"method":"ping"}`, "-99999999999999999999999", ""},
		{`{"jsonrpc":"2.0","id":"\u0041","method":"ping"}`, `"\u0041"`, ""},
	} {
		send(tc.line)
		m := next(tc.id)
		var e struct{ Code json.Number }
		json.Unmarshal(m["error"], &e)
		if string(e.Code) != tc.code || (tc.code == "") != (m["result"] != nil) {
			t.Errorf("%s: answered %v", tc.line, m)
		}
		ping := fmt.Sprintf("%d", 1000+i)
		send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"ping"}`)
		if m := next(ping); m["result"] == nil {
			t.Fatalf("no ping after %s: %v", tc.line, m)
		}
	}
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	if m := next("8"); m["result"] == nil {
		t.Fatalf("tools/list after the bad lines: %v", m)
	}
}

// Requests piped in and the input closed at once are all answered before the bridge exits:
// a client that writes its requests and closes its end still reads every answer.
func TestRequestsBeforeEndOfInputAreAnswered(t *testing.T) {
	rt := newRuntime(t)
	root := rt.exampleRoot(t)
	cmd := exec.Command(bin, "--project-root", root)
	cmd.Env = rt.env
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"docforge_get_node","arguments":{"node_id":"arch.store"}}}`,
	}, "\n") + "\n")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the bridge did not exit after its input ended")
	}
	if err != nil {
		t.Fatalf("bridge: %v\n%s", err, out)
	}
	answered := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(l), &m) == nil && m["result"] != nil {
			answered[string(m["id"])] = true
		}
	}
	if !answered["1"] || !answered["2"] || !answered["3"] || !strings.Contains(string(out), "Shipment store") {
		t.Errorf("answered %v:\n%.600s", answered, out)
	}
}
