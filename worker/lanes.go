package worker

import (
	"context"
)

// WithScanLanes lets at most n scans (a tool whose work grows with the project: ranking,
// traversal, reading every source) run at once; the calls past n wait for one to end. A
// point lookup (a node, its links) never waits for a lane. With n set to the cores the
// process may use, and goroutine slots to spare beyond them (runtime.GOMAXPROCS; the worker
// command runs two), a get_node sent while every core scans finds a slot free instead of
// queueing behind the scans' time slices (docs/benchmarks.md, "Several agents at once").
// n <= 0 leaves scans unbounded.
func WithScanLanes(n int) Option {
	return func(s *Service) {
		if n > 0 {
			s.scans = make(chan struct{}, n)
		}
	}
}

// enterLane waits for a scan lane when spec is a scan and the service bounds them, and
// returns its release; ctx ending first is the call's error.
func (s *Service) enterLane(ctx context.Context, spec ToolSpec) (leave func(), err error) {
	if !spec.scan || s.scans == nil {
		return func() {}, nil
	}
	select {
	case s.scans <- struct{}{}:
		return func() { <-s.scans }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
