// Package store keeps every normalized event, in order; a shipment's state is derived from its
// log.
package store

import (
	"sort"
	"time"
)

// Event is one normalized tracking event.
type Event struct {
	State string
	Raw   string
	At    time.Time
}

// Log is the ordered event log of one shipment.
type Log struct {
	events []Event
}

// Append adds an event, keeping the log ordered by time even when scans arrive late.
func (l *Log) Append(e Event) {
	i := sort.Search(len(l.events), func(i int) bool { return l.events[i].At.After(e.At) })
	l.events = append(l.events, Event{})
	copy(l.events[i+1:], l.events[i:])
	l.events[i] = e
}

// State returns the current state: the latest event's, or "created" for an empty log.
func (l *Log) State() string {
	if len(l.events) == 0 {
		return "created"
	}
	last := l.events[len(l.events)-1]
	switch last.State {
	case "delivered", "exception":
		return last.State
	default:
		return l.latestMovement()
	}
}

func (l *Log) latestMovement() string {
	for i := len(l.events) - 1; i >= 0; i-- {
		if l.events[i].State != "exception" {
			return l.events[i].State
		}
	}
	return "created"
}
