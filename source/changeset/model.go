package changeset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// SchemaVersion is the version of the changeset document.
const SchemaVersion = 1

// The operation kinds, as writers declare them in docforge.toml.
const (
	OpCreate             = "create"
	OpUpdate             = "update"
	OpMove               = "move"
	OpRelationshipUpdate = "relationship_update"
	OpDelete             = "delete"
)

// The lifecycle states.
const (
	Draft     = "draft"
	Ready     = "ready"
	Stale     = "stale"
	Applied   = "applied"
	Abandoned = "abandoned"
)

// Open reports whether a changeset in state s still takes part in conflict detection.
func Open(s string) bool { return s == Draft || s == Ready || s == Stale }

// Fields are node fields an operation sets. In a create they are the new node; in an update
// a nil field is left as it is and an empty string removes the field.
type Fields struct {
	Kind      *string             `json:"kind,omitempty"`
	Family    *string             `json:"family,omitempty"`
	Title     *string             `json:"title,omitempty"`
	Status    *string             `json:"status,omitempty"`
	Authority *string             `json:"authority,omitempty"`
	Tags      *[]string           `json:"tags,omitempty"`
	Body      *string             `json:"body,omitempty"`
	Relations map[string][]string `json:"relations,omitempty"` // create only
}

// Relation is one relation a relationship update adds or removes.
type Relation struct {
	Relation string `json:"relation"`
	Target   string `json:"target_id"`
}

// Confirm names a relation target a relationship update re-confirms: the node's relations
// to it get a review stamp of the target as it is.
type Confirm struct {
	Target string `json:"target_id"`
	// ContentHash is the target's content hash the writer read and confirms; a stored
	// changeset always has it (register_changes and the propose tool capture it).
	ContentHash string `json:"content_hash,omitempty"`
}

// Operation is one proposed change to one node.
type Operation struct {
	Op     string `json:"op"`
	NodeID string `json:"node_id"`
	// ExpectedContentHash binds an operation on an existing node to the content it was
	// written against. A stored changeset always has it; register_changes captures it when
	// the caller omits it.
	ExpectedContentHash string     `json:"expected_content_hash,omitempty"`
	Path                string     `json:"path,omitempty"` // create: the file to write; move: the new file
	Fields              *Fields    `json:"fields,omitempty"`
	Add                 []Relation `json:"add,omitempty"`
	Remove              []Relation `json:"remove,omitempty"`
	Confirm             []Confirm  `json:"confirm,omitempty"` // relationship_update only
}

// Changeset is the hash-bound document.
type Changeset struct {
	SchemaVersion int         `json:"schema_version"`
	ID            string      `json:"id"`
	ProjectID     string      `json:"project_id"`
	Writer        string      `json:"writer"`
	Title         string      `json:"title"`
	Description   string      `json:"description,omitempty"`
	Operations    []Operation `json:"operations"`
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidID reports whether id can name a changeset (and its folder).
func ValidID(id string) bool { return idPattern.MatchString(id) && !strings.Contains(id, "..") }

// Canonical is the canonical encoding of v: compact JSON with object keys in byte order, no
// HTML escaping, and every non-ASCII character escaped, so that equal values have equal bytes
// and any prefix cut is still ASCII.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	var b bytes.Buffer
	writeCanonical(&b, tree)
	return b.Bytes(), nil
}

func writeCanonical(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			writeCanonical(b, t[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string using only ASCII.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f:
			if r > 0xffff {
				r -= 0x10000
				writeU(b, 0xd800+(r>>10))
				writeU(b, 0xdc00+(r&0x3ff))
				continue
			}
			writeU(b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

// HashBytes is the changeset hash form of data's SHA-256.
func HashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Encode returns the canonical bytes of cs and their hash, the changeset's identity.
func (cs *Changeset) Encode() ([]byte, string, error) {
	data, err := Canonical(cs)
	if err != nil {
		return nil, "", err
	}
	return data, HashBytes(data), nil
}

// Decode reads a changeset document strictly: unknown fields, trailing data and a wrong
// schema version are errors.
func Decode(data []byte) (*Changeset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cs Changeset
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("decode changeset: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode changeset: trailing data after the document")
	}
	if cs.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("decode changeset: schema_version %d, want %d", cs.SchemaVersion, SchemaVersion)
	}
	if !ValidID(cs.ID) {
		return nil, fmt.Errorf("decode changeset: id %q is not a changeset ID", cs.ID)
	}
	return &cs, nil
}

// Touches lists the node IDs the operations touch, sorted and unique.
func (cs *Changeset) Touches() []string {
	var ids []string
	for _, op := range cs.Operations {
		ids = append(ids, op.NodeID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
