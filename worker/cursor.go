package worker

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"

	"github.com/docforge/docforge/index/graph"
	"github.com/docforge/docforge/index/problem"
)

// cursor is a version-1 pagination cursor: canonical JSON (encoding/json writes struct fields
// in declaration order, so equal cursors encode to equal bytes), base64url without padding,
// with a domain-separated SHA-256 checksum against corruption. It is opaque to clients and
// binds everything a page depends on; it is not an authorization token.
type cursor struct {
	Version    int    `json:"v"`
	Project    string `json:"project"`
	Adapter    string `json:"adapter"`
	Generation int64  `json:"generation"`
	Operation  string `json:"op"`
	Params     string `json:"params"`     // hash of the request's other arguments
	Collection string `json:"collection"` // hash of the whole ordered collection
	Position   int    `json:"position"`
	Checksum   string `json:"checksum,omitempty"`
}

const cursorDomain = "docforge.cursor.v1\x00"

// maxCursorChars bounds what decodeCursor reads.
const maxCursorChars = 4096

func (c cursor) checksum() string {
	c.Checksum = ""
	body, _ := json.Marshal(c) // a struct of strings and integers always marshals
	sum := sha256.Sum256(append([]byte(cursorDomain), body...))
	return hex.EncodeToString(sum[:])
}

func (c cursor) encode() string {
	c.Version = 1
	c.Checksum = c.checksum()
	body, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(body)
}

// decodeCursor parses a cursor and checks its integrity; it fails closed on anything else.
func decodeCursor(s string) (cursor, error) {
	bad := func(why string) (cursor, error) {
		return cursor{}, problem.Errorf(problem.InvalidCursor, "cursor is not valid: %s", why)
	}
	if len(s) > maxCursorChars {
		return bad("too long")
	}
	body, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return bad("not base64url")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var c cursor
	if err := dec.Decode(&c); err != nil || dec.More() {
		return bad("not a cursor object")
	}
	if c.Version != 1 {
		return bad("unknown version")
	}
	if c.Checksum != c.checksum() {
		return bad("checksum mismatch")
	}
	if c.Position < 0 {
		return bad("negative position")
	}
	return c, nil
}

// resume checks that a decoded cursor belongs to this exact request and collection, and
// returns its position. A cursor of another generation, request or collection is stale.
func (c cursor) resume(want cursor) (int, error) {
	if c.Project != want.Project || c.Operation != want.Operation || c.Adapter != want.Adapter ||
		c.Generation != want.Generation || c.Params != want.Params || c.Collection != want.Collection {
		pe := problem.Errorf(problem.StaleCursor, "the cursor was issued for another generation, request or collection (cursor generation %d, current %d)", c.Generation, want.Generation)
		pe.Problem.Remediation = "restart_pagination"
		return 0, pe
	}
	return c.Position, nil
}

// hashJSON hashes a value's JSON under a domain, for params and collection bindings.
func hashJSON(domain string, v any) string { return graph.DomainHash(domain, v) }
