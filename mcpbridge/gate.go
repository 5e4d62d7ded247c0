package mcpbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Bounds of one inbound JSON-RPC line.
const (
	// MaxLineBytes bounds one message line: room for MaxArgumentBytes of arguments, escaped.
	MaxLineBytes = 12 << 20
	// MaxDepth bounds the nesting of objects and arrays in one message.
	MaxDepth = 64
)

// message is one inbound line the gate admitted: every member it passes on, checked for its
// JSON-RPC type, as sent. A request has a method (and an id unless it is a notification); a
// response has an id and either a result or an error.
type message struct {
	id      json.RawMessage // nil when the line had no id member
	method  string
	request bool
	params  json.RawMessage
	result  json.RawMessage
	err     json.RawMessage
}

// admit reads one line. It returns the message to pass on, or the JSON-RPC error response that
// answers the line instead (nil for a blank line): malformed JSON, a batch, nesting too deep,
// a line too long, a member named twice, or a member of the wrong type.
func admit(line []byte, tooLong bool) (*message, []byte) {
	trimmed := bytes.TrimSpace(line)
	if !tooLong && len(trimmed) == 0 {
		return nil, nil
	}
	if code, reason := refuseLine(trimmed, tooLong); reason != "" {
		return nil, rpcError(nil, code, reason)
	}
	members, dup := objectMembers(trimmed)
	id, hasID := members["id"]
	usable := hasID && usableID(id)
	m, reason := &message{id: id}, ""
	switch {
	case dup != "":
		reason = fmt.Sprintf("the member %q appears more than once", dup)
	case !jsonStringIs(members["jsonrpc"], "2.0"):
		reason = `a JSON-RPC message has "jsonrpc": "2.0"`
	case hasID && !usable:
		reason = "an id is a string, a number or null"
	case members["method"] != nil:
		reason = m.readRequest(members)
	default:
		reason = m.readResponse(members, hasID)
	}
	if reason != "" {
		reply := id
		if !usable || dup != "" {
			reply = nil // the line's id cannot name it, or could name the wrong one
		}
		return nil, rpcError(reply, jsonrpc.CodeInvalidRequest, reason)
	}
	return m, nil
}

// refuseLine is the error code and reason for a line that is no single JSON-RPC object
// (too long, nested too deep, not JSON, a batch, not an object), or "" for one that is.
func refuseLine(trimmed []byte, tooLong bool) (int64, string) {
	switch {
	case tooLong:
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message holds at most %d bytes; this line was longer and was dropped", MaxLineBytes)
	case depth(trimmed) > MaxDepth:
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message nests objects and arrays at most %d deep", MaxDepth)
	case !json.Valid(trimmed):
		return jsonrpc.CodeParseError, "parse error: the line is not valid JSON; send one JSON-RPC message per line"
	case trimmed[0] == '[':
		return jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per line"
	case trimmed[0] != '{':
		return jsonrpc.CodeInvalidRequest, "a JSON-RPC message is a JSON object"
	}
	return 0, ""
}

// readRequest reads a request's members into m, or says why they are not a request.
func (m *message) readRequest(members map[string]json.RawMessage) string {
	_, hasResult := members["result"]
	_, hasError := members["error"]
	raw := members["method"]
	if err := json.Unmarshal(raw, &m.method); err != nil || raw[0] != '"' {
		return "a method is a string"
	}
	if hasResult || hasError {
		return "a request has no result or error"
	}
	if p, ok := members["params"]; ok {
		if p[0] != '{' && p[0] != '[' && string(p) != "null" {
			return "params is an object or an array"
		}
		m.params = p
	}
	m.request = true
	return ""
}

// readResponse reads a response's members into m, or says why they are not one. A response
// answers a request this server sent: its id is one the server issued (a string or an
// integer) or null, and it holds a result or a well-formed error, not both.
func (m *message) readResponse(members map[string]json.RawMessage, hasID bool) string {
	_, hasResult := members["result"]
	_, hasError := members["error"]
	switch {
	case !hasID:
		return "a message without a method is a response, and a response has an id"
	case hasResult == hasError:
		return "a response has either a result or an error"
	case m.id[0] != '"' && string(m.id) != "null" && !canonicalInt(m.id):
		return fmt.Sprintf("no request of this server has the id %s", m.id)
	case hasError && !wellFormedError(members["error"]):
		return `an error is an object with an integer "code" and a string "message"`
	}
	m.result, m.err = members["result"], members["error"]
	return ""
}

// objectMembers returns the members of a valid JSON object, as sent, and the name of the first
// member that appears twice ("" when none does): the gate reads one value per name, where
// decoders disagree on which of two they keep.
func objectMembers(obj []byte) (map[string]json.RawMessage, string) {
	members := map[string]json.RawMessage{}
	dup := ""
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return members, ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if _, seen := members[name]; seen && dup == "" {
			dup = name
		}
		members[name] = v
	}
	return members, dup
}

// usableID reports whether a raw id is one JSON-RPC allows: a string, a number or null.
func usableID(id json.RawMessage) bool {
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	default:
		return string(id) == "null"
	}
}

// canonicalInt reports whether a raw number is an integer written as Go writes an int64, the
// only numeric ids this server issues.
func canonicalInt(raw json.RawMessage) bool {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == string(raw)
}

func jsonStringIs(raw json.RawMessage, want string) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == want
}

// wellFormedError reports whether a response's error member is a JSON-RPC error object.
func wellFormedError(raw json.RawMessage) bool {
	if raw[0] != '{' {
		return false
	}
	members, dup := objectMembers(raw)
	code, message := members["code"], members["message"]
	return dup == "" && len(code) > 0 && canonicalInt(code) && len(message) > 0 && message[0] == '"'
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
func rpcError(id json.RawMessage, code int64, message string) []byte {
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(message)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, msg)
}
