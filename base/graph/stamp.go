package graph

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/docforge/docforge/base/problem"
)

// Stamp is a review stamp: what a relation target was when a person last confirmed the
// relations of the stamping node to it. One stamp covers every relation from that node to
// the target.
type Stamp struct {
	Target string
	// Hash is the target's content hash then; Parts and Path say what its parts and source
	// file were, and are empty in a stamp written by hand with the hash alone.
	Hash  string
	Parts Parts
	Path  string
	// At is where the stamp is written.
	At problem.Location
}

var (
	contentHashPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	partPattern        = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// StampOf is the stamp that confirms the relations to n as it is now.
func StampOf(n *Node) Stamp {
	return Stamp{Target: n.ID, Hash: n.ContentHash, Parts: n.Parts, Path: n.SourcePath}
}

// Text is the stamp's value as written in a source: the content hash, then head=, body= and
// path= (last, so a path may hold spaces).
func (s Stamp) Text() string {
	var b strings.Builder
	b.WriteString(s.Hash)
	if s.Parts.Head != "" {
		b.WriteString(" head=" + s.Parts.Head)
	}
	if s.Parts.Body != "" {
		b.WriteString(" body=" + s.Parts.Body)
	}
	if s.Path != "" {
		b.WriteString(" path=" + s.Path)
	}
	return b.String()
}

// ParseStamp reads a stamp value for target; the error says what is wrong with it.
func ParseStamp(target, text string) (Stamp, error) {
	st := Stamp{Target: target}
	rest := strings.TrimSpace(text)
	hash, rest, _ := strings.Cut(rest, " ")
	if !contentHashPattern.MatchString(hash) {
		return st, fmt.Errorf("stamp %q does not start with a content hash (sha256: and 64 lowercase hex digits)", text)
	}
	st.Hash = hash
	for rest = strings.TrimLeft(rest, " "); rest != ""; rest = strings.TrimLeft(rest, " ") {
		if p, ok := strings.CutPrefix(rest, "path="); ok {
			st.Path = strings.TrimSpace(p)
			break
		}
		var field string
		field, rest, _ = strings.Cut(rest, " ")
		key, val, _ := strings.Cut(field, "=")
		switch {
		case (key == "head" || key == "body") && !partPattern.MatchString(val):
			return st, fmt.Errorf("stamp part %s=%q is not 16 lowercase hex digits", key, val)
		case key == "head":
			st.Parts.Head = val
		case key == "body":
			st.Parts.Body = val
		default:
			return st, fmt.Errorf("stamp part %q is not one of head=, body=, path=", field)
		}
	}
	return st, nil
}

// Review states of a relation.
const (
	// Unreviewed: no stamp covers the relation.
	Unreviewed = ""
	// Confirmed: the target is what the stamp says it was.
	Confirmed = "confirmed"
	// Suspect: the target changed since the stamp.
	Suspect = "suspect"
	// Dangling: the stamped target no longer exists.
	Dangling = "dangling"
)

// ReviewState compares a stamp hash with the target's current hash ("" when the target is
// gone).
func ReviewState(stampHash, currentHash string) string {
	switch {
	case stampHash == "":
		return Unreviewed
	case currentHash == "":
		return Dangling
	case stampHash == currentHash:
		return Confirmed
	}
	return Suspect
}

// Changes says in a few words what changed in a target since the stamp: which parts, and
// whether it moved to another file. code says whether the target is a code node, whose head
// is its signature.
func (s Stamp) Changes(now *Node, code bool) []string {
	var out []string
	head, body := "fields changed", "body changed"
	if code {
		head, body = "signature changed", "body changed"
	}
	switch {
	case s.Parts == (Parts{}):
		if s.Hash != now.ContentHash {
			out = append(out, "content changed (the stamp has no part digests to say which part)")
		}
	default:
		if s.Parts.Head != now.Parts.Head {
			out = append(out, head)
		}
		if s.Parts.Body != now.Parts.Body {
			out = append(out, body)
		}
		if len(out) == 0 && s.Hash != now.ContentHash {
			if code {
				out = append(out, "doc comment or name changed")
			} else {
				out = append(out, "content changed")
			}
		}
	}
	if s.Path != "" && s.Path != now.SourcePath {
		out = append(out, "moved from "+s.Path+" to "+now.SourcePath)
	}
	return out
}
