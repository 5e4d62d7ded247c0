package index

import (
	"sync"

	"github.com/docforge/docforge/index/publication"
)

// Memory is what a long-lived publisher (a worker) remembers between syncs of the generation
// it last published: its state, manifest and file table. A sync that finds the published
// manifest still the remembered one starts from the memory instead of reading the file table
// back from the index, which on a large project costs more than the delta itself.
//
// A sync takes the memory (leaving it empty) and gives it back only once it has published or
// proven the index current, so a failure at any point leaves nothing half updated; the next
// sync then reads the index. A merge by the same publisher points it at the merged manifest.
type Memory struct {
	mu  sync.Mutex
	sig publication.Signature // the manifest remembered; zero when empty
	key binding               // the binding it was built for (build, fingerprint, work ignored)
	st  *state
	man *Manifest
	// files is the generation's file table; only the sync holding the memory changes it.
	files fileTable
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{} }

// remembered is a memory's content, while a sync holds it.
type remembered struct {
	sig   publication.Signature
	st    *state
	man   *Manifest
	files fileTable
}

// take empties the memory and returns what it held if it describes the manifest sig for
// binding b.
func (m *Memory) take(sig publication.Signature, b binding) (remembered, bool) {
	if m == nil {
		return remembered{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := remembered{sig: m.sig, st: m.st, man: m.man, files: m.files}
	ok := m.files != nil && m.sig.SameFile(sig) && m.key == memoryKey(b)
	m.sig, m.st, m.man, m.files = publication.Signature{}, nil, nil, nil
	return r, ok
}

// keep stores what a sync published or proved current.
func (m *Memory) keep(r remembered, b binding) {
	if m == nil || r.files == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sig, m.key, m.st, m.man, m.files = r.sig, memoryKey(b), r.st, r.man, r.files
}

// Empty reports whether the memory holds nothing.
func (m *Memory) Empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files == nil
}

// keepIfEmpty stores r unless a sync stored something meanwhile.
func (m *Memory) keepIfEmpty(r remembered, b binding) {
	if r.files == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.sig, m.key, m.st, m.man, m.files = r.sig, memoryKey(b), r.st, r.man, r.files
	}
}

// merged points the memory at the manifest a merge published in place of was, whose
// generation is the same: the state and the file table stay true.
func (m *Memory) merged(was, now publication.Signature, man *Manifest) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files != nil && m.sig.SameFile(was) && m.man != nil && m.man.Generation == man.Generation {
		m.sig, m.man = now, man
		return
	}
	m.sig, m.st, m.man, m.files = publication.Signature{}, nil, nil, nil
}

// memoryKey is the part of a binding that decides what an index holds.
func memoryKey(b binding) binding {
	return binding{projectID: b.projectID, root: b.root, descriptorHash: b.descriptorHash, policy: b.policy}
}
