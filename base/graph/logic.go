package graph

// Logic is the possible static control paths of one function: its steps and the edges
// between them. Truncated is set when the step limit cut it short; the last step is then a
// "truncated" marker.
type Logic struct {
	Steps     []Step      `json:"steps"`
	Edges     []LogicEdge `json:"edges"`
	Truncated bool        `json:"truncated,omitempty"`
}

// Step is one statement-level step of a function.
type Step struct {
	ID    int    `json:"id"`
	Kind  string `json:"kind"`
	Label string `json:"label,omitempty"`
	Line  int    `json:"line"`
}

// LogicEdge is one possible transfer of control between two steps.
type LogicEdge struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Kind string `json:"kind"`
}
