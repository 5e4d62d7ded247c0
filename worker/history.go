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
// it was last brought up to date with, and what that update said of it.
type historyState struct {
	mu   sync.Mutex
	sig  string
	note string
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
// project has no history or turns it off. note says how the history falls short, or why there
// is none, where that is the repository's state rather than the project's choice: history
// degrades and never fails a call, so only the context's end is an error.
func (s *Service) history(ctx context.Context, l *live, d *project.Descriptor) (store *history.Store, note string, err error) {
	if !d.History.On() {
		return nil, "", nil
	}
	sig := history.Probe(d.Root)
	if sig == "" {
		return nil, "", nil
	}
	sig += fmt.Sprintf("|%+v", WindowOf(d))
	l.hist.mu.Lock()
	if l.hist.sig != sig {
		res, err := UpdateHistory(ctx, d)
		if ctx.Err() != nil {
			l.hist.mu.Unlock()
			return nil, "", ctx.Err()
		}
		switch {
		case err != nil:
			l.hist.note = fmt.Sprintf("history: not brought up to date (%v); %s", err, history.TurnOff)
		case res.State == history.StateOff:
			l.hist.note = "history: none, " + res.Reason
		default:
			l.hist.note = ""
			if res.Limited != "" {
				l.hist.note = "history: partial, " + res.Limited
			}
		}
		l.hist.sig = sig
	}
	note = l.hist.note
	l.hist.mu.Unlock()
	store, err = history.Open(ctx, d.StatePath("history"))
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, fmt.Sprintf("history: left out, the index cannot be opened (%v)", err), nil
	}
	return store, note, nil
}
