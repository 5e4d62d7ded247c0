package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/base/fixture"
)

// titleHistory records each title written to a source: when its write began and when its
// rename had completed (zero until then).
type titleHistory struct {
	mu          sync.Mutex
	titles      []string
	begun, done []time.Time
}

// begin records a write about to start and returns its index for finish.
func (h *titleHistory) begin(title string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.titles, h.begun, h.done = append(h.titles, title), append(h.begun, time.Now()), append(h.done, time.Time{})
	return len(h.titles) - 1
}

func (h *titleHistory) finish(i int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done[i] = time.Now()
}

// valid reports whether an answer of title, to a call that ran from start to end, shows
// what the file may have held then: a write of that title began before the call ended, and
// no later write had completed before the call began. Anything else marked current is a
// stale answer served as fresh.
func (h *titleHistory) valid(title string, start, end time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.titles) - 1; i >= 0; i-- {
		if h.titles[i] != title || h.begun[i].After(end) {
			continue
		}
		for j := i + 1; j < len(h.titles); j++ {
			if !h.done[j].IsZero() && h.done[j].Before(start) {
				return false // a newer title was on disk before the call began
			}
		}
		return true
	}
	return false
}

// around describes the writes within a second of t.
func (h *titleHistory) around(t time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var parts []string
	for i, at := range h.begun {
		if d := at.Sub(t); d > -time.Second && d < time.Second {
			parts = append(parts, fmt.Sprintf("%q written from %s to %s", h.titles[i], at.Format("15:04:05.000000"), h.done[i].Format("15:04:05.000000")))
		}
	}
	return strings.Join(parts, ", ")
}

// Eight real bridges (the go-sdk client over stdio, each its own docforge-mcp process, one
// manager, one worker) call while a source is rewritten every 200 ms: no call fails and no
// answer marked current shows an older title than the file held when the call began.
func TestBridgesUnderChurn(t *testing.T) {
	const bridges = 8
	root := fixture.Temp(t, filepath.Join("..", "..", "examples", "courier"))
	r := newRuntime(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sessions := make([]*mcp.ClientSession, bridges)
	for i := range sessions {
		sessions[i] = r.bridge(t, ctx, root)
	}
	page := filepath.Join(root, "docs", "architecture", "store.md")
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	hist := &titleHistory{}
	hist.finish(hist.begin("Shipment store"))
	write := func(title string) {
		k := hist.begin(title)
		defer hist.finish(k)
		data := strings.Replace(string(src), `title = "Shipment store"`, `title = "`+title+`"`, 1)
		tmp := page + ".tmp" // written by rename, as editors do
		if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
			t.Error(err)
			return
		}
		if err := os.Rename(tmp, page); err != nil {
			t.Error(err)
		}
	}
	duration := fixture.SoakDuration(4 * time.Second)
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; time.Now().Before(deadline); i++ {
			time.Sleep(200 * time.Millisecond)
			write(fmt.Sprintf("Store edit %d", i))
		}
	}()
	type outcome struct {
		latency        time.Duration
		failed, stale  bool
		staleAsCurrent bool
		detail         string
	}
	results := make(chan outcome, 1<<16)
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_get_node", Arguments: map[string]any{"node_id": "arch.store"}})
				end := time.Now()
				o := outcome{latency: end.Sub(start)}
				var env struct {
					Staleness string `json:"staleness"`
					Result    struct {
						Title string `json:"title"`
					} `json:"result"`
				}
				switch {
				case err != nil:
					o.failed, o.detail = true, err.Error()
				case res.IsError || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &env) != nil:
					o.failed, o.detail = true, res.Content[0].(*mcp.TextContent).Text
				case env.Staleness != "current":
					o.stale = true
				case !hist.valid(env.Result.Title, start, end):
					o.staleAsCurrent = true
					o.detail = fmt.Sprintf("answered %q in a call from %s to %s; %s", env.Result.Title,
						start.Format("15:04:05.000000"), end.Format("15:04:05.000000"), hist.around(start))
				}
				results <- o
			}
		}()
	}
	wg.Wait()
	close(results)
	var latencies []time.Duration
	var failed, stale, staleAsCurrent int
	for o := range results {
		latencies = append(latencies, o.latency)
		if o.failed {
			failed++
			if failed <= 5 {
				t.Logf("failed call: %s", o.detail)
			}
		}
		if o.stale {
			stale++
		}
		if o.staleAsCurrent {
			staleAsCurrent++
			if staleAsCurrent <= 5 {
				t.Logf("stale answer marked current: %s", o.detail)
			}
		}
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))] }
	t.Logf("soak: %d bridges, %s, %d edits: %d calls, %d errors, %d marked stale, %d stale marked current; latency p50 %s, p99 %s",
		bridges, duration, len(hist.titles)-1, len(latencies), failed, stale, staleAsCurrent, pct(0.5).Round(time.Microsecond*100), pct(0.99).Round(time.Microsecond*100))
	if len(latencies) < bridges {
		t.Fatalf("only %d calls answered", len(latencies))
	}
	if failed > 0 || staleAsCurrent > 0 {
		t.Errorf("%d calls failed and %d stale answers were marked current, of %d", failed, staleAsCurrent, len(latencies))
	}
}
