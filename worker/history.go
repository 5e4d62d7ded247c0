package worker

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/docforge/docforge/index/history"
	"github.com/docforge/docforge/source/project"
)

// historyState is what a binding keeps of its project's history index: the repository state
// it was last brought up to date with.
type historyState struct {
	mu  sync.Mutex
	sig string
}

// WindowOf is the history window a descriptor sets.
func WindowOf(d *project.Descriptor) history.Window {
	return history.Window{MaxCommits: d.History.MaxCommits, MaxAge: time.Duration(d.History.MaxAgeDays) * 24 * time.Hour}
}

// UpdateHistory brings the project's history index up to date (history.Update).
func UpdateHistory(ctx context.Context, d *project.Descriptor) (history.Result, error) {
	if !d.History.On() {
		if err := os.RemoveAll(d.StatePath("history")); err != nil {
			return history.Result{}, fmt.Errorf("remove the history index: %w", err)
		}
		return history.Result{State: history.StateOff, Reason: "the project turns it off ([history] enabled = false)"}, nil
	}
	return history.Update(ctx, d.Root, d.StatePath("history"), WindowOf(d))
}

// history opens the binding's history index, first bringing it up to date when the
// repository moved since the last time (a new commit, a checkout, a rebase): nil when the
// project has no history or turns it off. A failure to update leaves the index as it was.
func (s *Service) history(ctx context.Context, l *live, d *project.Descriptor) (*history.Store, error) {
	if !d.History.On() {
		return nil, nil
	}
	sig := history.Probe(d.Root)
	if sig == "" {
		return nil, nil
	}
	sig += fmt.Sprintf("|%+v", WindowOf(d))
	l.hist.mu.Lock()
	if l.hist.sig != sig {
		if _, err := UpdateHistory(ctx, d); err != nil {
			l.hist.mu.Unlock()
			return nil, err
		}
		l.hist.sig = sig
	}
	l.hist.mu.Unlock()
	return history.Open(ctx, d.StatePath("history"))
}
