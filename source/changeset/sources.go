package changeset

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Sources is the current canonical graph held in memory, file by file: the base a changeset
// is projected onto.
type Sources struct {
	d        *project.Descriptor
	policy   string
	inv      *source.Inventory
	order    []string // paths in inventory order
	frags    map[string]*graph.Fragment
	nodes    map[string]nodeAt
	problems []problem.Problem // the base project's problems
	edges    []graph.EdgeAt    // the base's relations, declared and made by links
}

// nodeAt is where a node is defined.
type nodeAt struct {
	path string
	node *graph.Node
}

// LoadSources reads and parses every source of d under the adapter policy.
func LoadSources(ctx context.Context, d *project.Descriptor, policy string) (*Sources, error) {
	return (*Cache)(nil).Load(ctx, d, policy)
}

// Cache keeps the last parsed sources of each project and policy and hands them out again
// while the stat identity of the sources and the descriptor are unchanged: parsing is the
// cost of every check, and a long-lived worker checks the same base many times. Sources are
// never modified after loading, so sharing them is safe. A nil *Cache caches nothing.
type Cache struct {
	mu   sync.Mutex
	last map[string]*Sources
}

// Load returns the current sources of d, parsed now or reused.
func (c *Cache) Load(ctx context.Context, d *project.Descriptor, policy string) (*Sources, error) {
	inv, err := source.Scan(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("load sources: %w", err)
	}
	key := d.Root + "\x00" + policy
	if c != nil {
		c.mu.Lock()
		s := c.last[key]
		c.mu.Unlock()
		if s != nil && s.inv.Identity() == inv.Identity() && s.d.Hash == d.Hash {
			return s, nil
		}
	}
	s, err := parse(ctx, d, policy, inv)
	if err != nil || c == nil {
		return s, err
	}
	c.mu.Lock()
	if c.last == nil {
		c.last = map[string]*Sources{}
	}
	c.last[key] = s
	c.mu.Unlock()
	return s, nil
}

func parse(ctx context.Context, d *project.Descriptor, policy string, inv *source.Inventory) (*Sources, error) {
	s := &Sources{d: d, policy: policy, inv: inv, frags: map[string]*graph.Fragment{}, nodes: map[string]nodeAt{}}
	err := source.NewLoader(d, policy).WithFiles(inv.Files).Each(ctx, inv.Files, func(p source.Parsed) error {
		s.order = append(s.order, p.File.Path)
		s.frags[p.File.Path] = p.Fragment
		for i := range p.Fragment.Nodes {
			n := &p.Fragment.Nodes[i]
			if _, dup := s.nodes[n.ID]; !dup {
				s.nodes[n.ID] = nodeAt{path: p.File.Path, node: n}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load sources: %w", err)
	}
	base := s.checker(nil)
	s.problems, s.edges = s.problemsOf(nil, base), base.Edges()
	return s, nil
}

// Identity is the cheap source identity the sources were read at.
func (s *Sources) Identity() string { return s.inv.Identity() }

// Descriptor is the descriptor the sources were read with.
func (s *Sources) Descriptor() *project.Descriptor { return s.d }

// ContentHash returns a node's current content hash, or "" when no such node exists.
func (s *Sources) ContentHash(id string) string {
	if at, ok := s.nodes[id]; ok {
		return at.node.ContentHash
	}
	return ""
}

// Errors counts the base project's error-severity problems.
func (s *Sources) Errors() int { return len(problem.Errors(s.problems)) }

// check runs the loader's cross-file validation over the base with overlay's files parsed
// in place of (or beside) theirs, and returns every problem.
func (s *Sources) check(over map[string]*graph.Fragment) []problem.Problem {
	return s.problemsOf(over, s.checker(over))
}

// problemsOf lists the problems of the base with overlay, c being their checker.
func (s *Sources) problemsOf(over map[string]*graph.Fragment, c *source.Checker) []problem.Problem {
	list := problem.List{Limit: 100000}
	list.AddAll(s.inv.Problems)
	for _, p := range s.order {
		if _, replaced := over[p]; !replaced {
			list.AddAll(s.frags[p].Problems)
		}
	}
	for _, p := range sortedKeys(over) {
		if f := over[p]; f != nil {
			list.AddAll(f.Problems)
		}
	}
	list.AddAll(c.Problems())
	return list.Problems()
}

// checker is the cross-file checker of the base with overlay's files in place of theirs.
func (s *Sources) checker(over map[string]*graph.Fragment) *source.Checker {
	c := source.NewChecker(s.d)
	for _, p := range s.order {
		if _, replaced := over[p]; !replaced {
			c.Add(s.frags[p])
		}
	}
	for _, p := range sortedKeys(over) {
		if f := over[p]; f != nil {
			c.Add(f)
		}
	}
	return c
}

// readFile returns a content file's current bytes, confined to its content root.
func (s *Sources) readFile(rel string) (string, bool, error) {
	abs, err := s.contentPath(rel)
	if err != nil {
		return "", false, err
	}
	data, err := readLimited(abs, s.d.Limits.MaxFileBytes)
	if err != nil {
		if isNotExist(err) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("read %s: %w", rel, err)
	}
	return string(data), true, nil
}

// contentPath checks that rel names a content file the loader would read and that no symlink
// leads it out of its content root, and returns its absolute path.
func (s *Sources) contentPath(rel string) (string, error) {
	if err := checkPath(rel); err != nil {
		return "", err
	}
	for _, state := range []string{s.d.Proposals.ChangesetRoot, s.d.Proposals.PreviewRoot} {
		// Compared case-folded: a case-insensitive file system reads Proposals/ as proposals/.
		low, st := strings.ToLower(rel), strings.ToLower(strings.TrimSuffix(state, "/"))
		if state != "" && (low == st || strings.HasPrefix(low, st+"/")) {
			return "", escape("%q is under %s, DocForge's own state: a proposal writes content files only", rel, state)
		}
	}
	if _, ok := source.ContentFormat(s.d, rel); !ok {
		return "", escape("%q is not a content file path: it must be a relative, clean, slash-separated .md or .toml path under a content root (%s), not excluded and without hidden segments",
			rel, strings.Join(s.d.Sources.ContentRoots, ", "))
	}
	abs := filepath.Join(s.d.Root, filepath.FromSlash(rel))
	for _, r := range s.d.Sources.ContentRoots {
		if r == "." || strings.HasPrefix(rel, r+"/") {
			if err := Confined(s.d.Root, filepath.Join(s.d.Root, filepath.FromSlash(r)), abs, r); err != nil {
				return "", err
			}
			return abs, nil
		}
	}
	return "", escape("%q is under no content root", rel)
}

// Bounds of a path a changeset names: what file systems hold (255 bytes a name) and what a
// reviewer can read.
const (
	MaxPathBytes    = 1024
	MaxSegmentBytes = 255
)

// checkPath refuses a path with a control character (a NUL ends it early for the system), an
// invisible format character (U+202E would show a reviewer another name than the one
// written), or longer than a file system holds, before anything resolves it.
func checkPath(rel string) error {
	if len(rel) > MaxPathBytes {
		return problem.Errorf(problem.InvalidArgument, "a path holds at most %d bytes; this one has %d", MaxPathBytes, len(rel))
	}
	if err := checkChars("path "+strconv.Quote(rel), rel, false); err != nil {
		return err
	}
	if i := strings.IndexFunc(rel, func(r rune) bool { return unicode.Is(unicode.Zs, r) && r != ' ' }); i >= 0 {
		// A no-break or other space reads as a plain one: two paths would look the same.
		r, _ := utf8.DecodeRuneInString(rel[i:])
		return problem.Errorf(problem.InvalidArgument, "path %q holds the space U+%04X at byte %d; use a plain space or none", rel, r, i)
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if len(seg) > MaxSegmentBytes {
			return problem.Errorf(problem.InvalidArgument, "a name in a path holds at most %d bytes; %.40q... has %d", MaxSegmentBytes, seg, len(seg))
		}
	}
	return nil
}
