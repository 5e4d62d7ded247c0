package mcpbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Bounds of one inbound JSON-RPC line.
const (
	// MaxLineBytes bounds one message line: room for MaxArgumentBytes of arguments, escaped.
	MaxLineBytes = 12 << 20
	// MaxDepth bounds the nesting of objects and arrays in one message.
	MaxDepth = 64
)

// JSON-RPC error codes the gate answers with.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// Gate stands between the host's stdin and the MCP SDK. It passes every line that is one
// well-formed JSON-RPC message (an object, within MaxDepth and MaxLineBytes) through to the
// reader it returns, and answers any other line (malformed JSON, a batch array, nesting too
// deep, a line too long) itself with a JSON-RPC error on the writer it returns, which the SDK
// must write through too: one bad line costs the host one error response, never the session.
func Gate(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(br, MaxLineBytes)
			if reply := checkLine(line, tooLong); reply != nil {
				w.Write(reply)
			} else if len(bytes.TrimSpace(line)) > 0 {
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the SDK stopped reading: the session is over
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, w
}

// readLine reads one line without its newline, keeping at most limit bytes: the rest of a
// longer line is read and dropped, and tooLong says so.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, rerr := br.ReadLine()
		if len(line)+len(chunk) > limit {
			tooLong, line = true, nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if rerr != nil || !isPrefix {
			return line, tooLong, rerr
		}
	}
}

// checkLine returns the JSON-RPC error response for a line that is not one well-formed message,
// or nil for a line to pass on (and for a blank one).
func checkLine(line []byte, tooLong bool) []byte {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return rpcError(nil, rpcInvalidRequest, fmt.Sprintf("a message holds at most %d bytes; this line was longer and was dropped", MaxLineBytes))
	case len(trimmed) == 0:
		return nil
	case depth(trimmed) > MaxDepth:
		return rpcError(nil, rpcInvalidRequest, fmt.Sprintf("a message nests objects and arrays at most %d deep", MaxDepth))
	case !json.Valid(trimmed):
		return rpcError(nil, rpcParseError, "parse error: the line is not valid JSON; send one JSON-RPC message per line")
	case trimmed[0] == '[':
		return rpcError(nil, rpcInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
	case trimmed[0] != '{':
		return rpcError(nil, rpcInvalidRequest, "a JSON-RPC message is a JSON object")
	}
	var head struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil || head.JSONRPC != "2.0" {
		return rpcError(head.ID, rpcInvalidRequest, `a JSON-RPC message has "jsonrpc": "2.0"`)
	}
	return nil
}

// depth is the deepest nesting of objects and arrays in JSON text, strings skipped; it reads
// malformed text too, so that a deep line is refused before any parser recurses into it.
func depth(text []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range text {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// rpcError is one JSON-RPC error response line; id is null when the request's is unknown.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return append(b, '\n')
}

// lockedWriter serialises the SDK's writes and the gate's, each one whole message line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
