package worker

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
)

// cursor is what a version-1 pagination cursor binds: the project (its ID and the root it is
// bound to), adapter, generation, operation, page limit, the request's other parameters and
// the whole ordered collection, and a position. It is opaque to clients and not an
// authorization token.
type cursor struct {
	Project    string
	Root       string
	Adapter    string
	Generation int64
	Operation  string
	Limit      int    // the page limit as requested (0: the default)
	Params     string // hash of the request's other arguments
	Collection string // hash of the whole ordered collection
	Position   int
}

// wireCursor is a cursor as it travels: canonical JSON (encoding/json writes struct fields in
// declaration order, so equal cursors encode to equal bytes), base64url without padding. The
// bindings are folded into one 128-bit hash and the domain-separated SHA-256 checksum is cut to
// 128 bits: a cursor rides on every page, and at the smallest response limit its size decides
// whether a page holds any evidence at all. 128 bits still detect any corruption or mix-up.
type wireCursor struct {
	Version    int    `json:"v"`
	Generation int64  `json:"g"`
	Operation  string `json:"op"`
	Binding    string `json:"b"` // the project, adapter, operation, params and collection
	Position   int    `json:"i"`
	Checksum   string `json:"c,omitempty"`
}

const (
	cursorDomain        = "docforge.cursor.v1\x00"
	cursorBindingDomain = "docforge.cursor.binding.v1"
	// cursorHashHex is how many hex digits of a hash a cursor keeps (128 bits).
	cursorHashHex = 32
	// maxCursorChars bounds what decodeCursor reads.
	maxCursorChars = 4096
)

// binding is the short hash of everything a cursor binds besides generation and position.
func (c cursor) binding() string {
	h := hashJSON(cursorBindingDomain, []any{c.Project, c.Root, c.Adapter, c.Operation, c.Limit, c.Params, c.Collection})
	return strings.TrimPrefix(h, "sha256:")[:cursorHashHex]
}

func (w wireCursor) checksum() string {
	w.Checksum = ""
	body, _ := json.Marshal(w) // a struct of strings and integers always marshals
	sum := sha256.Sum256(append([]byte(cursorDomain), body...))
	return hex.EncodeToString(sum[:])[:cursorHashHex]
}

func (w wireCursor) encode() string {
	w.Version = 1
	w.Checksum = w.checksum()
	body, _ := json.Marshal(w)
	return base64.RawURLEncoding.EncodeToString(body)
}

func (c cursor) encode() string {
	return wireCursor{Generation: c.Generation, Operation: c.Operation, Binding: c.binding(), Position: c.Position}.encode()
}

// decodeCursor parses a cursor and checks its integrity; it fails closed on anything else.
func decodeCursor(s string) (wireCursor, error) {
	bad := func(why string) (wireCursor, error) {
		return wireCursor{}, problem.Errorf(problem.InvalidCursor, "cursor is not valid: %s", why)
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
	var w wireCursor
	if err := dec.Decode(&w); err != nil || dec.More() {
		return bad("not a cursor object")
	}
	if w.Version != 1 {
		return bad("unknown version")
	}
	if w.Checksum != w.checksum() {
		return bad("checksum mismatch")
	}
	if w.Position < 0 {
		return bad("negative position")
	}
	return w, nil
}

// resume checks that a decoded cursor belongs to this exact request and collection, and
// returns its position. A cursor of another generation, request or collection is stale.
func (w wireCursor) resume(want cursor) (int, error) {
	if w.Generation != want.Generation || w.Operation != want.Operation || w.Binding != want.binding() {
		var pe *problem.Error
		if w.Generation != want.Generation {
			pe = problem.Errorf(problem.StaleCursor, "the cursor was issued for generation %d; the index is now at generation %d", w.Generation, want.Generation)
		} else {
			pe = problem.Errorf(problem.StaleCursor, "the cursor was issued for another project root, request, page limit, policy or collection than this call's (both at generation %d)", want.Generation)
		}
		pe.Problem.Remediation = "restart_pagination"
		return 0, pe
	}
	return w.Position, nil
}

// cursorOf is the cursor of one paged operation of this call's project: a cursor of one copy
// of a project is stale in another copy with the same ID, and one of another page limit is
// stale too.
func (c *call) cursorOf(op string, generation int64, limit int, params any, collection string) cursor {
	return cursor{Project: c.d.Project.ID, Root: c.d.Root, Adapter: c.env.Adapter, Generation: generation, Operation: op,
		Limit: limit, Params: hashJSON("params", params), Collection: collection}
}

// hashJSON hashes a value's JSON under a domain, for params and collection bindings.
func hashJSON(domain string, v any) string { return graph.DomainHash(domain, v) }
