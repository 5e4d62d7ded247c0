package index

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/docforge/docforge/base/graph"
)

// A function's Logic is one row of the logic table: its steps and edges encoded together.
// Logic is only ever read whole, by its owner, and a row per step and per edge made it a
// quarter of GOROOT/src's index and 3.2 s of its cold build's single inserting goroutine
// (docs/benchmarks.md, "Logic as one row per function"). The encoding is made on
// the goroutine that parsed the file.

// storedLogic is a function's Logic as the logic table holds it.
type storedLogic struct {
	encoded      []byte
	steps, edges int
}

// encodeLogic encodes l: the steps in ID order, then the edges in (from, to, kind) order
// without repeats, as the step and edge tables once returned them. Every number is a uvarint
// and every string its uvarint length and bytes.
func encodeLogic(l *graph.Logic) storedLogic {
	steps := slices.Clone(l.Steps)
	slices.SortStableFunc(steps, func(a, b graph.Step) int { return cmp.Compare(a.ID, b.ID) })
	edges := slices.Clone(l.Edges)
	slices.SortFunc(edges, func(a, b graph.LogicEdge) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Kind, b.Kind))
	})
	edges = slices.Compact(edges)
	size := 2 * binary.MaxVarintLen64
	for _, s := range steps {
		size += 3*binary.MaxVarintLen32 + len(s.Kind) + len(s.Label) + binary.MaxVarintLen32
	}
	size += len(edges) * (3*binary.MaxVarintLen32 + 8)
	b := make([]byte, 0, size)
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	num := func(n int) { b = binary.AppendUvarint(b, uint64(n)) }
	num(len(steps))
	for _, s := range steps {
		num(s.ID)
		str(s.Kind)
		str(s.Label)
		num(s.Line)
	}
	num(len(edges))
	for _, e := range edges {
		num(e.From)
		num(e.To)
		str(e.Kind)
	}
	return storedLogic{encoded: b, steps: len(steps), edges: len(edges)}
}

var errLogicEncoding = errors.New("malformed Logic row")

// decodeLogic reads back what encodeLogic wrote.
func decodeLogic(b []byte) (steps []graph.Step, edges []graph.LogicEdge, err error) {
	bad := false
	num := func() int {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > 1<<31 {
			bad = true
			return 0
		}
		b = b[n:]
		return int(v)
	}
	str := func() string {
		n := num()
		if bad || n > len(b) {
			bad = true
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	ns := num()
	if bad || ns > len(b) {
		return nil, nil, errLogicEncoding
	}
	steps = make([]graph.Step, 0, ns)
	for i := 0; i < ns && !bad; i++ {
		var s graph.Step
		s.ID = num()
		s.Kind = str()
		s.Label = str()
		s.Line = num()
		steps = append(steps, s)
	}
	ne := num()
	if bad || ne > len(b) {
		return nil, nil, errLogicEncoding
	}
	edges = make([]graph.LogicEdge, 0, ne)
	for i := 0; i < ne && !bad; i++ {
		var e graph.LogicEdge
		e.From = num()
		e.To = num()
		e.Kind = str()
		edges = append(edges, e)
	}
	if bad || len(b) != 0 {
		return nil, nil, errLogicEncoding
	}
	return steps, edges, nil
}
