package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// toolTime is the median time of one read tool's calls.
type toolTime struct {
	Tool  string  `json:"tool"`
	P50Ms float64 `json:"p50_ms"`
}

// toolCall is a read tool and how to make its arguments.
type toolCall struct {
	name string // the tool, with what the arguments choose when two entries share it
	tool string
	args func(g *generator, rng *rand.Rand, nodes int) map[string]any
}

// readTools are the read tools an agent calls, each as it typically does.
var readTools = []toolCall{
	{"get_node", "docforge_get_node", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"node_id": g.nodeID(rng.IntN(n))}
	}},
	{"backlinks", "docforge_backlinks", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"node_id": g.nodeID(rng.IntN(n))}
	}},
	{"dependencies", "docforge_dependencies", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"node_id": g.nodeID(rng.IntN(n))}
	}},
	{"impact", "docforge_impact", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"node_id": g.nodeID(rng.IntN(n))}
	}},
	{"get_context (node)", "docforge_get_context", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"node_id": g.nodeID(rng.IntN(n))}
	}},
	{"get_context (query)", "docforge_get_context", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"query": g.word(rng) + " " + g.word(rng)}
	}},
	{"filter_nodes (tag)", "docforge_filter_nodes", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"tag": fmt.Sprintf("t%d", rng.IntN(50)), "limit": 50}
	}},
	{"search", "docforge_search", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return map[string]any{"query": g.vocab[rng.IntN(len(g.vocab))]}
	}},
	{"get_task_context (lexical)", "docforge_get_task_context", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return taskArgs(g, rng, rng.IntN(len(taskKinds)), n, false)
	}},
	{"get_task_context (focus)", "docforge_get_task_context", func(g *generator, rng *rand.Rand, n int) map[string]any {
		return taskArgs(g, rng, rng.IntN(len(taskKinds)), n, true)
	}},
	{"get_generation_diff", "docforge_get_generation_diff", func(*generator, *rand.Rand, int) map[string]any { return nil }},
	{"render_status", "docforge_render_status", func(*generator, *rand.Rand, int) map[string]any { return nil }},
}

// bootstrappedWorker is a worker service in this process, its source watch on, that has
// answered docforge_bootstrap for the project at root: warm, as for a session's later calls.
// The caller closes it.
func bootstrappedWorker(ctx context.Context, root string) (*worker.Service, protocol.Binding, error) {
	b := protocol.Binding{ProjectRoot: root}
	if _, err := b.Validate(); err != nil {
		return nil, b, err
	}
	impl, err := index.CurrentImplementation()
	if err != nil {
		return nil, b, err
	}
	svc := worker.NewService(impl, true)
	if _, err := svc.Call(ctx, b, "docforge_bootstrap", nil); err != nil {
		svc.Close()
		return nil, b, fmt.Errorf("bootstrap: %w", err)
	}
	return svc, b, nil
}

// toolCalls is how many times each read tool is called.
const toolCalls = 30

// tools times each read tool through a worker service in this process, with its source
// watch, as the worker answers a warm MCP session: what an agent waits for besides the pipes.
// It publishes the files the edit steps restored first, as a process without a worker, so
// that the service finds nothing to sync and starts no merge while it is measured; it
// returns the deltas it measured over.
func (m *measurer) tools(ctx context.Context) ([]toolTime, int, error) {
	if _, err := index.Sync(ctx, m.d, index.Options{}); err != nil {
		return nil, 0, fmt.Errorf("sync the restored files: %w", err)
	}
	man, err := index.ReadManifest(publication.PathsFor(m.d, "").Index)
	if err != nil {
		return nil, 0, err
	}
	svc, b, err := bootstrappedWorker(ctx, m.d.Root)
	if err != nil {
		return nil, 0, err
	}
	defer svc.Close()
	rng := rand.New(rand.NewPCG(5, 5))
	var out []toolTime
	for _, t := range readTools {
		var times []time.Duration
		for range toolCalls {
			args, err := json.Marshal(t.args(m.gen, rng, m.nodes))
			if err != nil {
				return nil, 0, err
			}
			start := time.Now()
			if _, err := svc.Call(ctx, b, t.tool, args); err != nil {
				return nil, 0, fmt.Errorf("%s %s: %w", t.tool, args, err)
			}
			times = append(times, time.Since(start))
		}
		out = append(out, toolTime{Tool: t.name, P50Ms: median(times)})
	}
	return out, man.Deltas(), nil
}

// capsulesAfterEdits times an agent's loop through a worker service in this process: one of
// three lexical capsules, then a one-file edit, then the same capsule again (answered from the
// generation the edit published, over the same base until a merge), then once more with
// nothing changed; 12 rounds, medians. The edited files are restored (synced by a later step).
func (m *measurer) capsulesAfterEdits(ctx context.Context, r *report) error {
	svc, b, err := bootstrappedWorker(ctx, m.d.Root)
	if err != nil {
		return err
	}
	defer svc.Close()
	rng := rand.New(rand.NewPCG(21, 21))
	var after, again []time.Duration
	var touched []int
	defer m.restore(&touched)
	capsule := func(args []byte) (time.Duration, error) {
		start := time.Now()
		_, err := svc.Call(ctx, b, "docforge_get_task_context", args)
		return time.Since(start), err
	}
	for k := range 12 {
		args, err := json.Marshal(taskArgs(m.gen, rand.New(rand.NewPCG(uint64(k%3), 1)), k%3, m.nodes, false))
		if err != nil {
			return err
		}
		if _, err := capsule(args); err != nil {
			return err
		}
		if err := m.rewrite(&touched, rng.IntN(m.nodes), 300+k); err != nil {
			return err
		}
		d, err := capsule(args)
		if err != nil {
			return err
		}
		after = append(after, d)
		if d, err = capsule(args); err != nil {
			return err
		}
		again = append(again, d)
	}
	r.CapsuleAfterEditMs, r.CapsuleAgainMs = median(after), median(again)
	m.logf("edit, then the same lexical capsule through the worker: median %.1f ms; again %.1f ms", r.CapsuleAfterEditMs, r.CapsuleAgainMs)
	return nil
}

// toolsMarkdown is the read tools' table: over the deltas and merged, per project size.
func toolsMarkdown(reps []report) string {
	var b strings.Builder
	b.WriteString("\nRead tools through a worker service in this process (its source watch on, warm), p50 ms of " + fmt.Sprint(toolCalls) + " calls each, over the deltas the edits published (and one of the files they restored) and after their merge:\n\n| nodes | tool | over the deltas | merged |\n|---|---|---|---|\n")
	for _, r := range reps {
		merged := map[string]float64{}
		for _, t := range r.ToolsMerged {
			merged[t.Tool] = t.P50Ms
		}
		for _, t := range r.ToolsOverDeltas {
			fmt.Fprintf(&b, "| %d | %s | %.2f (%d deltas) | %.2f |\n", r.Nodes, t.Tool, t.P50Ms, r.ToolsDeltas, merged[t.Tool])
		}
	}
	b.WriteString("\nAn agent's loop through a worker service (a lexical capsule, a one-file edit, the same capsule again, then once more unchanged; 12 rounds, medians):")
	for _, r := range reps {
		fmt.Fprintf(&b, " %.1f ms after the edit, %.1f ms again at %d nodes;", r.CapsuleAfterEditMs, r.CapsuleAgainMs, r.Nodes)
	}
	b.WriteString("\n")
	return b.String()
}
