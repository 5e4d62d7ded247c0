// Package normalize maps carrier scans to Courier events.
package normalize

import (
	"strings"
	"time"

	"example.com/courier/store"
)

// Scan is one raw carrier scan.
type Scan struct {
	Carrier string
	Code    string
	At      time.Time
}

// states maps carrier scan codes to Courier states.
var states = map[string]string{
	"PU": "picked_up",
	"IT": "in_transit",
	"OD": "out_for_delivery",
	"DL": "delivered",
}

// Normalize converts a scan to an event in UTC. Unknown codes become exception events that keep
// the raw code for support.
func Normalize(s Scan) store.Event {
	state, ok := states[strings.ToUpper(s.Code)]
	if !ok {
		return store.Event{State: "exception", Raw: s.Code, At: s.At.UTC()}
	}
	return store.Event{State: state, At: s.At.UTC()}
}

// Ingest normalizes a batch of scans and appends them to the log, skipping empty codes.
func Ingest(log *store.Log, scans []Scan) int {
	n := 0
	for _, s := range scans {
		if s.Code == "" {
			continue
		}
		log.Append(Normalize(s))
		n++
	}
	return n
}
