package index

import (
	"errors"
	"reflect"
	"testing"

	"github.com/docforge/docforge/base/graph"
)

func TestLogicRowRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        graph.Logic
		steps     []graph.Step
		edges     []graph.LogicEdge
		wantSteps int
		wantEdges int
	}{
		{name: "empty", steps: []graph.Step{}, edges: []graph.LogicEdge{}},
		{
			name: "steps in ID order, edges sorted without repeats",
			in: graph.Logic{
				Steps: []graph.Step{{ID: 2, Kind: "return", Line: 9}, {ID: 0, Kind: "entry", Line: 3}, {ID: 1, Kind: "call", Label: "f(x) // é\x00", Line: 4}},
				Edges: []graph.LogicEdge{{From: 1, To: 2, Kind: "next"}, {From: 0, To: 1, Kind: "next"}, {From: 1, To: 2, Kind: "next"}, {From: 1, To: 2, Kind: "err"}},
			},
			steps:     []graph.Step{{ID: 0, Kind: "entry", Line: 3}, {ID: 1, Kind: "call", Label: "f(x) // é\x00", Line: 4}, {ID: 2, Kind: "return", Line: 9}},
			edges:     []graph.LogicEdge{{From: 0, To: 1, Kind: "next"}, {From: 1, To: 2, Kind: "err"}, {From: 1, To: 2, Kind: "next"}},
			wantSteps: 3, wantEdges: 3,
		},
		{
			name:  "large numbers",
			in:    graph.Logic{Steps: []graph.Step{{ID: 70000, Kind: "k", Line: 1 << 30}}},
			steps: []graph.Step{{ID: 70000, Kind: "k", Line: 1 << 30}}, edges: []graph.LogicEdge{},
			wantSteps: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := encodeLogic(&tc.in)
			if l.steps != tc.wantSteps || l.edges != tc.wantEdges {
				t.Fatalf("counts %d steps, %d edges; want %d, %d", l.steps, l.edges, tc.wantSteps, tc.wantEdges)
			}
			steps, edges, err := decodeLogic(l.encoded)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(steps, tc.steps) || !reflect.DeepEqual(edges, tc.edges) {
				t.Fatalf("decoded %+v %+v; want %+v %+v", steps, edges, tc.steps, tc.edges)
			}
		})
	}
}

func TestLogicRowRefusesMalformedBytes(t *testing.T) {
	good := encodeLogic(&graph.Logic{Steps: []graph.Step{{ID: 0, Kind: "entry", Label: "x", Line: 1}}, Edges: []graph.LogicEdge{{From: 0, To: 0, Kind: "loop"}}}).encoded
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"nothing", nil},
		{"cut short", good[:len(good)-1]},
		{"trailing bytes", append(append([]byte{}, good...), 0)},
		{"string longer than the row", []byte{1, 0, 200, 'a'}},
		{"count larger than the row", []byte{0xff, 0xff, 0x03}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := decodeLogic(tc.b); !errors.Is(err, errLogicEncoding) {
				t.Fatalf("decodeLogic(%x) = %v; want errLogicEncoding", tc.b, err)
			}
		})
	}
}
