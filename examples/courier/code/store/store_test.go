package store

import (
	"testing"
	"time"
)

func TestLateEventsKeepOrder(t *testing.T) {
	var l Log
	l.Append(Event{State: "in_transit", At: time.Unix(20, 0)})
	l.Append(Event{State: "picked_up", At: time.Unix(10, 0)})
	if got := l.State(); got != "in_transit" {
		t.Fatalf("state = %s", got)
	}
}
