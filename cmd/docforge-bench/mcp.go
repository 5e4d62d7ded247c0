package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/manager"
	"github.com/docforge/docforge/worker/protocol"
)

// mcpReport holds the stdio figures of one project, in milliseconds.
type mcpReport struct {
	Nodes                  int
	StartP50               float64
	GetNodeP50, GetNodeP95 float64
	SearchP50, SearchP95   float64
	ImpactP50, ImpactP95   float64
	// The same calls made in this process through worker.Service.Call, without MCP or pipes.
	InProcGetNodeP50, InProcSearchP50 float64
	Calls                             int
	// A new bridge process, manager and worker warm: spawn to the first get_node result.
	FirstResultP50 float64
	// The worker's check before a call when nothing changed (the watch barrier, no stat walk)
	// and everything a get_node costs in the worker besides the tool itself, from --diagnostics.
	WatchP50, OverheadP50   float64
	WalksSkipped, DiagCalls int
	// get_node from this process through a manager.Session straight to the worker over gRPC:
	// the full path without the bridge and MCP, and the worker's own total for those calls.
	GRPCGetNodeP50, WorkerTotalP50 float64
	// docforge_render_status (cheap) over the full path: the watch proves the identity, so
	// no stat walk.
	RenderStatusP50 float64
	// docforge_get_task_context with an 8,000-token budget over the full path: a lexical task
	// of three vocabulary words, and an exact focus (the kinds in turn); the median items
	// selected and tokens used; and the same lexical calls in-process.
	TaskLexP50, TaskLexP95, TaskExactP50, TaskExactP95 float64
	TaskItemsP50, TaskTokensP50, TaskEdgesP50          float64
	InProcTaskLexP50, InProcTaskLexP95                 float64
}

// taskKinds are the closed task kinds, cycled by the benchmark.
var taskKinds = []string{"change", "implementation", "failure", "ownership", "test", "operation", "release"}

// taskArgs is the k-th benchmark task: three vocabulary words, optionally with an exact focus.
func taskArgs(g *generator, rng *rand.Rand, k, nodes int, exact bool) map[string]any {
	args := map[string]any{"kind": taskKinds[k%len(taskKinds)], "budget": 8000,
		"task": strings.Join([]string{g.word(rng), g.word(rng), g.word(rng)}, " ")}
	if exact {
		args["focus_node_id"] = g.nodeID(rng.IntN(nodes))
	}
	return args
}

// measureMCP drives the real docforge-mcp binary over stdio with the go-sdk client, through
// the full path: bridge, manager (in a private runtime directory, stopped at the end) and the
// project's worker. It times process start to the initialize answer and to the first result,
// then warm calls of one session.
func measureMCP(ctx context.Context, proj string, nodes int) (*mcpReport, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(filepath.Dir(self), "docforge-mcp")
	docforge := filepath.Join(filepath.Dir(self), "docforge")
	for _, b := range []string{bin, docforge} {
		if _, err := os.Stat(b); err != nil {
			return nil, fmt.Errorf("%s not found: run 'make build' first", b)
		}
	}
	runtimeDir, err := os.MkdirTemp("", "dfbench")
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+runtimeDir)
	defer func() {
		stop := exec.Command(docforge, "manager", "stop")
		stop.Env = env
		stop.Run()
		os.RemoveAll(runtimeDir)
	}()
	connect := func(args ...string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "docforge-bench", Version: "1"}, nil)
		cmd := exec.Command(bin, append([]string{"--project-root", proj}, args...)...)
		cmd.Env = env
		return client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	rep := &mcpReport{Nodes: nodes}
	// Warm the manager and worker: the first session starts both and syncs.
	warm, err := connect()
	if err != nil {
		return nil, fmt.Errorf("start docforge-mcp: %w", err)
	}
	if res, err := warm.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_bootstrap"}); err != nil || res.IsError {
		return nil, fmt.Errorf("bootstrap: %v", err)
	}
	warm.Close()
	g := newGenerator(nodes, 42)
	var firsts []time.Duration
	for i := 0; i < 9; i++ {
		t0 := time.Now()
		cs, err := connect()
		if err != nil {
			return nil, fmt.Errorf("start docforge-mcp: %w", err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_get_node", Arguments: map[string]any{"node_id": g.nodeID(i)}})
		if err != nil || res.IsError {
			return nil, fmt.Errorf("first call: %v", err)
		}
		firsts = append(firsts, time.Since(t0))
		cs.Close()
	}
	rep.FirstResultP50 = median(firsts)
	var starts []time.Duration
	for i := 0; i < 9; i++ {
		t0 := time.Now()
		cs, err := connect()
		if err != nil {
			return nil, fmt.Errorf("start docforge-mcp: %w", err)
		}
		starts = append(starts, time.Since(t0))
		cs.Close()
	}
	rep.StartP50 = median(starts)

	cs, err := connect()
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var lastText string
	call := func(name string, args map[string]any) (time.Duration, error) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(t0)
		if err != nil {
			return 0, err
		}
		lastText = res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			return 0, fmt.Errorf("%s: %s", name, lastText)
		}
		return d, nil
	}
	if _, err := call("docforge_bootstrap", nil); err != nil { // the sync, outside the timings
		return nil, err
	}
	rng := rand.New(rand.NewPCG(11, 11))
	const n = 100
	var get, search, impact []time.Duration
	for k := 0; k < n; k++ {
		id := g.nodeID(rng.IntN(nodes))
		d, err := call("docforge_get_node", map[string]any{"node_id": id})
		if err != nil {
			return nil, err
		}
		get = append(get, d)
		q := g.vocab[rng.IntN(len(g.vocab))]
		if d, err = call("docforge_search", map[string]any{"query": q, "limit": 20}); err != nil {
			return nil, err
		}
		search = append(search, d)
		if d, err = call("docforge_impact", map[string]any{"node_id": id, "depth": 3}); err != nil {
			return nil, err
		}
		impact = append(impact, d)
	}
	var taskLex, taskExact []time.Duration
	var taskItems, taskTokens, taskEdges []int
	for k := 0; k < n; k++ {
		for _, exact := range []bool{false, true} {
			d, err := call("docforge_get_task_context", taskArgs(g, rng, k, nodes, exact))
			if err != nil {
				return nil, err
			}
			if exact {
				taskExact = append(taskExact, d)
				continue
			}
			taskLex = append(taskLex, d)
			var page struct {
				Result struct {
					Counts struct {
						Selected      int `json:"selected"`
						EdgesExamined int `json:"edges_examined"`
					} `json:"counts"`
					Budget struct {
						Used int `json:"used"`
					} `json:"budget"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(lastText), &page); err != nil {
				return nil, err
			}
			taskItems = append(taskItems, page.Result.Counts.Selected)
			taskTokens = append(taskTokens, page.Result.Budget.Used)
			taskEdges = append(taskEdges, page.Result.Counts.EdgesExamined)
		}
	}
	rep.TaskLexP50, rep.TaskLexP95 = percentile(taskLex, 50), percentile(taskLex, 95)
	rep.TaskExactP50, rep.TaskExactP95 = percentile(taskExact, 50), percentile(taskExact, 95)
	rep.TaskItemsP50, rep.TaskTokensP50, rep.TaskEdgesP50 = medianCount(taskItems), medianCount(taskTokens), medianCount(taskEdges)
	if err := measureDiagnostics(ctx, connect, g, nodes, rep); err != nil {
		return nil, err
	}
	if err := measureGRPC(ctx, manager.PathsIn(filepath.Join(runtimeDir, "docforge")), proj, g, nodes, rep); err != nil {
		return nil, err
	}
	var rs []time.Duration
	for k := 0; k < 30; k++ {
		d, err := call("docforge_render_status", nil)
		if err != nil {
			return nil, err
		}
		rs = append(rs, d)
	}
	rep.RenderStatusP50 = percentile(rs, 50)
	// In process last, with the manager stopped: while its worker holds the publisher lock, a
	// service here only follows, and a follower walks the sources on every call.
	stop := exec.Command(docforge, "manager", "stop")
	stop.Env = env
	if out, err := stop.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("stop the manager: %v: %s", err, out)
	}
	if err := measureInProcess(ctx, proj, g, nodes, rep); err != nil {
		return nil, err
	}
	rep.Calls = n
	rep.GetNodeP50, rep.GetNodeP95 = percentile(get, 50), percentile(get, 95)
	rep.SearchP50, rep.SearchP95 = percentile(search, 50), percentile(search, 95)
	rep.ImpactP50, rep.ImpactP95 = percentile(impact, 50), percentile(impact, 95)
	fmt.Fprintf(os.Stderr, "[mcp %d] start %.1f ms, first result %.1f ms; watch check %.2f ms; get_node %.1f, search %.1f, impact %.1f ms (p50)\n", nodes, rep.StartP50, rep.FirstResultP50, rep.WatchP50, rep.GetNodeP50, rep.SearchP50, rep.ImpactP50)
	return rep, nil
}

// measureDiagnostics runs get_node calls in a --diagnostics session and reads the worker's own
// stage timings: the no-change check (the watch barrier) and the call's cost besides the tool.
func measureDiagnostics(ctx context.Context, connect func(...string) (*mcp.ClientSession, error), g *generator, nodes int, rep *mcpReport) error {
	cs, err := connect("--diagnostics")
	if err != nil {
		return err
	}
	defer cs.Close()
	rng := rand.New(rand.NewPCG(13, 13))
	var watch, overhead []time.Duration
	for k := 0; k < 100; k++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "docforge_get_node", Arguments: map[string]any{"node_id": g.nodeID(rng.IntN(nodes))}})
		if err != nil || res.IsError {
			return fmt.Errorf("diagnostics call: %v", err)
		}
		var env struct {
			Diagnostics struct {
				StagesMs map[string]float64 `json:"stages_ms"`
				Counters map[string]int64
			}
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &env); err != nil {
			return err
		}
		st := env.Diagnostics.StagesMs
		ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
		watch = append(watch, ms(st["watch"]))
		overhead = append(overhead, ms(st["total"]-st["tool"]))
		rep.WalksSkipped += int(env.Diagnostics.Counters["walks_skipped"])
		rep.DiagCalls++
	}
	rep.WatchP50, rep.OverheadP50 = percentile(watch, 50), percentile(overhead, 50)
	return nil
}

// measureGRPC times get_node through a manager.Session, as the bridge makes them, without
// the bridge process and MCP; diagnostics give the worker's own share.
func measureGRPC(ctx context.Context, paths manager.Paths, proj string, g *generator, nodes int, rep *mcpReport) error {
	s := manager.NewSession(paths, nil)
	defer s.Close()
	b := protocol.Binding{ProjectRoot: proj, CapabilityMode: protocol.ModeRead, Diagnostics: true}
	if _, err := b.Validate(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(17, 17))
	var calls, totals []time.Duration
	for k := 0; k < 100; k++ {
		args, _ := json.Marshal(map[string]any{"node_id": g.nodeID(rng.IntN(nodes))})
		t0 := time.Now()
		out, err := s.Call(ctx, b, "docforge_get_node", args)
		if err != nil {
			return fmt.Errorf("grpc get_node: %w", err)
		}
		calls = append(calls, time.Since(t0))
		var env struct {
			Diagnostics struct {
				StagesMs map[string]float64 `json:"stages_ms"`
			}
		}
		if err := json.Unmarshal(out, &env); err != nil {
			return err
		}
		totals = append(totals, time.Duration(env.Diagnostics.StagesMs["total"]*float64(time.Millisecond)))
	}
	rep.GRPCGetNodeP50, rep.WorkerTotalP50 = percentile(calls, 50), percentile(totals, 50)
	return nil
}

// measureInProcess times get_node and search through worker.Service.Call in this process, with
// the same source watch the server uses: the tool cost without MCP and pipes.
func measureInProcess(ctx context.Context, proj string, g *generator, nodes int, rep *mcpReport) error {
	svc, b, err := bootstrappedWorker(ctx, proj)
	if err != nil {
		return err
	}
	defer svc.Close()
	rng := rand.New(rand.NewPCG(11, 11))
	var get, search []time.Duration
	for k := 0; k < 100; k++ {
		args, _ := json.Marshal(map[string]any{"node_id": g.nodeID(rng.IntN(nodes))})
		t0 := time.Now()
		if _, err := svc.Call(ctx, b, "docforge_get_node", args); err != nil {
			return err
		}
		get = append(get, time.Since(t0))
		args, _ = json.Marshal(map[string]any{"query": g.vocab[rng.IntN(len(g.vocab))], "limit": 20})
		t0 = time.Now()
		if _, err := svc.Call(ctx, b, "docforge_search", args); err != nil {
			return err
		}
		search = append(search, time.Since(t0))
	}
	rep.InProcGetNodeP50, rep.InProcSearchP50 = percentile(get, 50), percentile(search, 50)
	var task []time.Duration
	for k := 0; k < 100; k++ {
		args, _ := json.Marshal(taskArgs(g, rng, k, nodes, false))
		t0 := time.Now()
		if _, err := svc.Call(ctx, b, "docforge_get_task_context", args); err != nil {
			return err
		}
		task = append(task, time.Since(t0))
	}
	rep.InProcTaskLexP50, rep.InProcTaskLexP95 = percentile(task, 50), percentile(task, 95)
	return nil
}

func mcpMarkdown(reps []*mcpReport) string {
	if len(reps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nMCP over stdio through the full path (the real docforge-mcp bridge, go-sdk client, the manager and the project's worker warm; every call checks the sources first):\n\n")
	b.WriteString("| nodes | start to initialize p50 ms | new bridge to first result p50 ms | get_node p50 / p95 ms | search p50 / p95 ms | impact p50 / p95 ms | render_status p50 ms | in-process get_node / search p50 ms |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.1f | %.2f / %.2f |\n", r.Nodes, r.StartP50, r.FirstResultP50, r.GetNodeP50, r.GetNodeP95,
			r.SearchP50, r.SearchP95, r.ImpactP50, r.ImpactP95, r.RenderStatusP50, r.InProcGetNodeP50, r.InProcSearchP50)
	}
	b.WriteString("\nWhere a warm get_node's time goes (p50 ms): in the harness's own process; inside the worker (its diagnostics total); from the harness to the worker over gRPC through a manager.Session (no bridge, no MCP); and the full path above:\n\n")
	b.WriteString("| nodes | in-process | worker total | gRPC session | full path (MCP) |\n|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.2f | %.2f | %.2f | %.2f |\n", r.Nodes, r.InProcGetNodeP50, r.WorkerTotalP50, r.GRPCGetNodeP50, r.GetNodeP50)
	}
	b.WriteString("\nNo-change call overhead in the worker (--diagnostics stages of 100 get_node calls; the watch check replaces the stat walk):\n\n")
	b.WriteString("| nodes | watch check p50 ms | worker overhead besides the tool p50 ms | walks skipped |\n|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.3f | %.3f | %d of %d |\n", r.Nodes, r.WatchP50, r.OverheadP50, r.WalksSkipped, r.DiagCalls)
	}
	b.WriteString("\ndocforge_get_task_context, budget 8,000 tokens, full path (100 lexical tasks of three vocabulary words and 100 exact-focus tasks, the seven kinds in turn); medians of what a lexical capsule held; the lexical calls in-process:\n\n")
	b.WriteString("| nodes | lexical p50 / p95 ms | exact focus p50 / p95 ms | items selected | tokens used | edges examined | in-process lexical p50 / p95 ms |\n|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.1f / %.1f | %.1f / %.1f | %.0f | %.0f | %.0f | %.1f / %.1f |\n", r.Nodes, r.TaskLexP50, r.TaskLexP95, r.TaskExactP50, r.TaskExactP95,
			r.TaskItemsP50, r.TaskTokensP50, r.TaskEdgesP50, r.InProcTaskLexP50, r.InProcTaskLexP95)
	}
	b.WriteString("\n| target | at | bound | measured | met |\n|---|---|---|---|---|\n")
	for _, r := range reps {
		if r.Nodes == 10000 {
			met := "yes"
			if r.RenderStatusP50 > 5 {
				met = "**no**"
			}
			fmt.Fprintf(&b, "| render_status (cheap) p50, full path | 10000 nodes | 5 ms | %.1f ms | %s |\n", r.RenderStatusP50, met)
		}
		if r.Nodes != 100000 {
			continue
		}
		for _, t := range []struct {
			name  string
			v, lt float64
		}{{"get_node p50 (MCP issue)", r.GetNodeP50, 2}, {"get_node p50 (full path)", r.GetNodeP50, 3}, {"search p50", r.SearchP50, 8}, {"impact p50", r.ImpactP50, 25},
			{"start to initialize", r.StartP50, 50}, {"new bridge to first result", r.FirstResultP50, 150},
			{"task context p50 (lexical, budget 8000)", r.TaskLexP50, 50}, {"task context p95 (lexical, budget 8000)", r.TaskLexP95, 150},
			{"task context p50 (exact focus)", r.TaskExactP50, 50}, {"task context p95 (exact focus)", r.TaskExactP95, 150}} {
			met := "yes"
			if t.v > t.lt {
				met = "**no**"
			}
			fmt.Fprintf(&b, "| %s | 100000 nodes | %g ms | %.1f ms | %s |\n", t.name, t.lt, t.v, met)
		}
	}
	return b.String()
}
