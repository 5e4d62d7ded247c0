package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the bridge's MCP transport: newline-delimited JSON-RPC on a reader and a writer,
// with the gate in front of the SDK. Every line is either admitted (admit) or answered with a
// JSON-RPC error, and the session goes on; the SDK never decodes a line itself, so no line
// can end the session. The SDK sees each request under an id of the gate's own (an integer),
// and each response goes out under the id exactly as the client wrote it: a fractional, huge
// or exponent-form number, or an escaped string, comes back byte for byte.
type Stdio struct {
	In  io.Reader
	Out io.Writer
}

// Connect starts reading In; the session ends when In ends.
func (s *Stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{w: s.Out, incoming: make(chan inboundOrEnd), closed: make(chan struct{}), ids: newIDMap()}
	go c.read(s.In)
	return c, nil
}

type inboundOrEnd struct {
	msg jsonrpc.Message
	err error
}

type stdioConn struct {
	wmu      sync.Mutex // one message line at a time, the gate's and the SDK's
	w        io.Writer
	incoming chan inboundOrEnd
	closed   chan struct{}
	once     sync.Once
	ids      *idMap
}

func (c *stdioConn) read(in io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxLineBytes)
		m, reply := admit(line, tooLong)
		if reply != nil {
			c.writeLine(reply)
		} else if m != nil {
			if msg := c.toSDK(m); msg != nil && !c.deliver(inboundOrEnd{msg: msg}) {
				return
			}
		}
		if err != nil { // io.EOF at the end of input: the session ends once it answered
			c.drain()
			c.deliver(inboundOrEnd{err: err})
			return
		}
	}
}

// drain waits until every request read has been answered (or cancelled, or the connection
// closed): a client that writes its requests and closes its end still reads every answer.
func (c *stdioConn) drain() {
	for c.ids.pending() > 0 {
		select {
		case <-c.closed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (c *stdioConn) deliver(v inboundOrEnd) bool {
	select {
	case c.incoming <- v:
		return true
	case <-c.closed:
		return false
	}
}

// toSDK turns an admitted message into the SDK's form: a request under a gate id, a
// cancellation naming that id, or a response as the client sent it. It returns nil for a
// message to drop: the cancellation of a request that is not in flight.
func (c *stdioConn) toSDK(m *message) jsonrpc.Message {
	if !m.request {
		line, _ := json.Marshal(struct {
			V      string          `json:"jsonrpc"`
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result,omitempty"`
			Error  json.RawMessage `json:"error,omitempty"`
		}{"2.0", m.id, m.result, m.err})
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil // admit checked every member the decoder reads
		}
		return msg
	}
	req := &jsonrpc.Request{Method: m.method, Params: m.params}
	if string(m.params) == "null" {
		req.Params = nil
	}
	if m.id != nil {
		req.ID, _ = jsonrpc.MakeID(float64(c.ids.add(m.id)))
		return req
	}
	if m.method == "notifications/cancelled" && len(m.params) > 0 && m.params[0] == '{' {
		members, _ := objectMembers(m.params)
		gid, ok := c.ids.cancel(members["requestId"])
		if !ok {
			return nil
		}
		members["requestId"] = json.RawMessage(strconv.FormatInt(gid, 10))
		req.Params, _ = json.Marshal(members)
	}
	return req
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case v := <-c.incoming:
		return v.msg, v.err
	}
}

// Write sends one message. A response goes out under the client's own id, and an error
// without a JSON-RPC code gets one: the SDK's uncoded errors refuse a request in the
// session's present state (before initialisation, a second initialize), which is Invalid
// Request.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		line, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.writeLine(append(line, '\n'))
	}
	id := json.RawMessage("null")
	if resp.ID.IsValid() {
		gid, _ := resp.ID.Raw().(int64)
		if raw, ok := c.ids.take(gid); ok {
			id = raw
		} else {
			id, _ = json.Marshal(resp.ID.Raw())
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	if resp.Error != nil {
		wire := &jsonrpc.Error{Message: resp.Error.Error()}
		var coded *jsonrpc.Error
		if errors.As(resp.Error, &coded) {
			wire.Code, wire.Data = coded.Code, coded.Data
		}
		if wire.Code == 0 {
			wire.Code = jsonrpc.CodeInvalidRequest
		}
		e, err := json.Marshal(wire)
		if err != nil {
			return err
		}
		b.WriteString(`,"error":`)
		b.Write(e)
	} else {
		b.WriteString(`,"result":`)
		if len(resp.Result) == 0 {
			b.WriteString("null")
		} else {
			b.Write(resp.Result)
		}
	}
	b.WriteString("}\n")
	return c.writeLine(b.Bytes())
}

func (c *stdioConn) writeLine(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(line)
	return err
}

func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }

// idMap holds the ids of the client's requests in flight under the gate ids the SDK sees.
type idMap struct {
	mu    sync.Mutex
	next  int64
	raw   map[int64]json.RawMessage
	byKey map[string]int64 // the latest gate id of each client id, for cancellations
	// cancelled are the gate ids in flight the client cancelled: the SDK may never answer
	// them, so nothing waits for them.
	cancelled map[int64]bool
}

func newIDMap() *idMap {
	return &idMap{raw: map[int64]json.RawMessage{}, byKey: map[string]int64{}, cancelled: map[int64]bool{}}
}

// pending counts the requests in flight that the client still waits for.
func (m *idMap) pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.raw) - len(m.cancelled)
}

// idKey is one client id as a map key: a string by its value (however it was escaped), a
// number or null by its text.
func idKey(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return "s" + s
	}
	return "n" + string(raw)
}

func (m *idMap) add(raw json.RawMessage) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.raw[m.next] = bytes.Clone(raw)
	m.byKey[idKey(raw)] = m.next
	return m.next
}

// cancel is the gate id of the client's request raw, in flight, now marked cancelled.
func (m *idMap) cancel(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	gid, ok := m.byKey[idKey(raw)]
	if ok {
		m.cancelled[gid] = true
	}
	return gid, ok
}

// take returns the client id of a gate id and forgets it: its response is going out.
func (m *idMap) take(gid int64) (json.RawMessage, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	raw, ok := m.raw[gid]
	if ok {
		delete(m.raw, gid)
		delete(m.cancelled, gid)
		if k := idKey(raw); m.byKey[k] == gid {
			delete(m.byKey, k)
		}
	}
	return raw, ok
}
