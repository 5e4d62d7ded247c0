package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bridgesFigures are several agents on one project: bridges MCP sessions (a docforge-mcp
// process each, one manager, one worker), each sending the same mix of calls, first one
// session after another, then all at once; with the worker's snapshots on their pool of read
// connections, and on one connection (DOCFORGE_READERS=1). The two configurations run in
// turn, Rounds times, each round with fresh managers: Pool and One hold each figure's median
// over the rounds, and the ratios are the medians of each round's, so that the machine's
// drift over a minute moves both sides of a ratio alike.
type bridgesFigures struct {
	Nodes   int `json:"nodes"`
	Bridges int `json:"bridges"`
	Calls   int `json:"calls"` // per phase, all sessions together
	Rounds  int `json:"rounds"`
	Pool    bridgesRun
	One     bridgesRun
	// Throughput is the median of each round's pool calls/s over the one connection's; the
	// ranges are the least and greatest over the rounds of it, of the pool's speedup (whose
	// median is Pool.Speedup) and of its get_node p99.
	Throughput                              float64
	SpeedupRange, ThroughputRange, P99Range [2]float64
}

// bridgesRun is one configuration's figures.
type bridgesRun struct {
	SerialMs       float64 `json:"serial_ms"`
	ConcurrentMs   float64 `json:"concurrent_ms"`
	Speedup        float64 `json:"speedup"`
	CallsPerSecond float64 `json:"calls_per_second"` // at once
	GetNodeP50Ms   float64 `json:"get_node_p50_ms"`  // at once
	GetNodeP99Ms   float64 `json:"get_node_p99_ms"`
}

const (
	benchBridges = 8
	// bridgeRounds of one task context, one search and bridgeGets get_node calls per session.
	bridgeRounds = 4
	bridgeGets   = 4
	// bridgeCalls is how many calls one phase sends, all sessions together.
	bridgeCalls = benchBridges * bridgeRounds * (2 + bridgeGets)
	// bridgeRuns is how many times the two configurations run in turn: one phase of 192
	// calls lasts about two seconds, and on this machine the same phase has taken from 2.0 to
	// 3.3 s within five minutes.
	bridgeRuns = 5
)

// measureBridges runs the sessions against a fresh manager for each configuration, the two in
// turn, bridgeRuns times.
func measureBridges(ctx context.Context, proj string, nodes int) (*bridgesFigures, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(self)
	f := &bridgesFigures{Nodes: nodes, Bridges: benchBridges, Calls: bridgeCalls, Rounds: bridgeRuns}
	var pool, one []bridgesRun
	var speedups, throughputs, p99s []float64
	for range bridgeRuns {
		p, err := bridgesWith(ctx, dir, proj, nodes, "")
		if err != nil {
			return nil, err
		}
		o, err := bridgesWith(ctx, dir, proj, nodes, "1")
		if err != nil {
			return nil, err
		}
		pool, one = append(pool, *p), append(one, *o)
		speedups = append(speedups, p.Speedup)
		throughputs = append(throughputs, p.CallsPerSecond/o.CallsPerSecond)
		p99s = append(p99s, p.GetNodeP99Ms)
	}
	f.Pool, f.One = medianRun(pool), medianRun(one)
	f.Throughput = medianOf(throughputs)
	f.SpeedupRange, f.ThroughputRange, f.P99Range = spread(speedups), spread(throughputs), spread(p99s)
	return f, nil
}

// medianRun is each figure's median over runs.
func medianRun(runs []bridgesRun) bridgesRun {
	of := func(get func(bridgesRun) float64) float64 {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = get(r)
		}
		return medianOf(xs)
	}
	return bridgesRun{
		SerialMs:       of(func(r bridgesRun) float64 { return r.SerialMs }),
		ConcurrentMs:   of(func(r bridgesRun) float64 { return r.ConcurrentMs }),
		Speedup:        of(func(r bridgesRun) float64 { return r.Speedup }),
		CallsPerSecond: of(func(r bridgesRun) float64 { return r.CallsPerSecond }),
		GetNodeP50Ms:   of(func(r bridgesRun) float64 { return r.GetNodeP50Ms }),
		GetNodeP99Ms:   of(func(r bridgesRun) float64 { return r.GetNodeP99Ms }),
	}
}

// spread is the least and the greatest of xs.
func spread(xs []float64) [2]float64 {
	if len(xs) == 0 {
		return [2]float64{}
	}
	return [2]float64{slices.Min(xs), slices.Max(xs)}
}

// bridgesWith starts a manager whose worker has readers in DOCFORGE_READERS ("" for none),
// opens the sessions, and times the calls one session after another, then all at once.
func bridgesWith(ctx context.Context, dir, proj string, nodes int, readers string) (*bridgesRun, error) {
	runtimeDir, err := os.MkdirTemp("", "dfbridges")
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir, "DOCFORGE_READERS="+readers)
	defer func() {
		stop := exec.Command(filepath.Join(dir, "docforge"), "manager", "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(runtimeDir)
	}()
	sessions := make([]*mcp.ClientSession, benchBridges)
	for i := range sessions {
		client := mcp.NewClient(&mcp.Implementation{Name: "docforge-bench", Version: "1"}, nil)
		cmd := exec.Command(filepath.Join(dir, "docforge-mcp"), "--project-root", proj)
		cmd.Env = env
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return nil, fmt.Errorf("start docforge-mcp: %w", err)
		}
		defer cs.Close()
		sessions[i] = cs
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_bootstrap"}); err != nil || res.IsError {
			return nil, fmt.Errorf("bootstrap: %v", err)
		}
	}
	g := newGenerator(nodes, 42)
	// work is one session's calls; gets collects its get_node latencies.
	work := func(i int, seed uint64, gets *[]time.Duration) error {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		call := func(name string, args map[string]any) (time.Duration, error) {
			t0 := time.Now()
			res, err := sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			d := time.Since(t0)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", name, err)
			}
			if res.IsError {
				return 0, fmt.Errorf("%s: %s", name, res.Content[0].(*mcp.TextContent).Text)
			}
			return d, nil
		}
		for k := range bridgeRounds {
			if _, err := call("docforge_get_task_context", taskArgs(g, rng, k+i, nodes, false)); err != nil {
				return err
			}
			if _, err := call("docforge_search", map[string]any{"query": g.vocab[rng.IntN(len(g.vocab))], "limit": 20}); err != nil {
				return err
			}
			for range bridgeGets {
				d, err := call("docforge_get_node", map[string]any{"node_id": g.nodeID(rng.IntN(nodes))})
				if err != nil {
					return err
				}
				*gets = append(*gets, d)
			}
		}
		return nil
	}
	// atOnce runs every session's calls at once and returns how long they took together.
	atOnce := func(seed uint64, gets [][]time.Duration) (time.Duration, error) {
		errs := make([]error, len(sessions))
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = work(i, seed, &gets[i])
			}()
		}
		wg.Wait()
		return time.Since(t0), errors.Join(errs...)
	}
	// Warm: every session's first calls, and the worker's caches and connections (the calls
	// at once open the pool's).
	var discard []time.Duration
	for i := range sessions {
		if err := work(i, 1, &discard); err != nil {
			return nil, err
		}
	}
	if _, err := atOnce(1, make([][]time.Duration, len(sessions))); err != nil {
		return nil, err
	}
	run := &bridgesRun{}
	t0 := time.Now()
	for i := range sessions {
		if err := work(i, 2, &discard); err != nil {
			return nil, err
		}
	}
	serial := time.Since(t0)
	gets := make([][]time.Duration, len(sessions))
	concurrent, err := atOnce(3, gets)
	if err != nil {
		return nil, err
	}
	var all []time.Duration
	for _, g := range gets {
		all = append(all, g...)
	}
	run.SerialMs, run.ConcurrentMs = ms(serial), ms(concurrent)
	run.Speedup = serial.Seconds() / concurrent.Seconds()
	run.CallsPerSecond = float64(bridgeCalls) / concurrent.Seconds()
	run.GetNodeP50Ms, run.GetNodeP99Ms = percentile(all, 50), percentile(all, 99)
	return run, nil
}

// bridgesMarkdown renders the figures against the bounds of the parallel readers.
func bridgesMarkdown(f *bridgesFigures) string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d MCP sessions (a docforge-mcp bridge each, one manager and worker) on the %d-node project, each sending %d rounds of a lexical task context, a search and %d get_node calls (%d calls a phase): one session after another, then all at once; the worker's snapshots on their pool of read connections, then on one (DOCFORGE_READERS=1); the two in turn %d times, fresh managers each time, each figure the median:\n\n",
		f.Bridges, f.Nodes, bridgeRounds, bridgeGets, f.Calls, f.Rounds)
	b.WriteString("| readers | one after another ms | at once ms | speedup | calls/s at once | get_node p50 / p99 ms at once |\n|---|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		run  bridgesRun
	}{{"pool", f.Pool}, {"one connection", f.One}} {
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2fx | %.0f | %.1f / %.1f |\n", r.name, r.run.SerialMs, r.run.ConcurrentMs, r.run.Speedup, r.run.CallsPerSecond, r.run.GetNodeP50Ms, r.run.GetNodeP99Ms)
	}
	met := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	b.WriteString("\n| target | bound | median (range over the rounds) | met |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| at once against one after another | 1.6x | %.2fx (%.2f-%.2f) | %s |\n", f.Pool.Speedup, f.SpeedupRange[0], f.SpeedupRange[1], met(f.Pool.Speedup >= 1.6))
	fmt.Fprintf(&b, "| throughput against one connection | 1.5x | %.2fx (%.2f-%.2f) | %s |\n", f.Throughput, f.ThroughputRange[0], f.ThroughputRange[1], met(f.Throughput >= 1.5))
	fmt.Fprintf(&b, "| get_node p99 at once | 20 ms | %.1f ms (%.1f-%.1f) | %s |\n", f.Pool.GetNodeP99Ms, f.P99Range[0], f.P99Range[1], met(f.Pool.GetNodeP99Ms <= 20))
	return b.String()
}

// bridgesCommand runs measureBridges alone on a synced project and prints its table.
func bridgesCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bridges", flag.ContinueOnError)
	proj := fs.String("project", "", "generated project root (synced)")
	nodes := fs.Int("nodes", 0, "node count the project was generated with")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *proj == "" || *nodes <= 0 {
		return fmt.Errorf("bridges: --project and --nodes are required")
	}
	f, err := measureBridges(ctx, *proj, *nodes)
	if err != nil {
		return err
	}
	fmt.Print(bridgesMarkdown(f))
	return nil
}
