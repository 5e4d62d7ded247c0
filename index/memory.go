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
	mu   sync.Mutex
	held remembered // files nil when empty
	key  binding    // the binding it was built for (build, fingerprint, work ignored)
}

// NewMemory returns an empty memory.
func NewMemory() *Memory { return &Memory{} }

// remembered is a memory's content: the manifest's signature, and the generation's state,
// manifest and file table (only the sync holding it changes the table).
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
	r := m.held
	m.held = remembered{}
	return r, r.files != nil && r.sig.SameFile(sig) && m.key == memoryKey(b)
}

// keep stores what a sync published or proved current; with ifEmpty, only if nothing was
// stored meanwhile (Remember, which reads without the publisher lock).
func (m *Memory) keep(r remembered, b binding, ifEmpty bool) {
	if m == nil || r.files == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ifEmpty || m.held.files == nil {
		m.held, m.key = r, memoryKey(b)
	}
}

// Empty reports whether the memory holds nothing.
func (m *Memory) Empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held.files == nil
}

// merged points the memory at the manifest a merge published in place of was, whose
// generation is the same: the state and the file table stay true.
func (m *Memory) merged(was, now publication.Signature, man *Manifest) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.held.files != nil && m.held.sig.SameFile(was) && m.held.man.Generation == man.Generation {
		m.held.sig, m.held.man = now, man
		return
	}
	m.held = remembered{}
}

// memoryKey is the part of a binding that decides what an index holds.
func memoryKey(b binding) binding {
	return binding{projectID: b.projectID, root: b.root, descriptorHash: b.descriptorHash, policy: b.policy}
}
