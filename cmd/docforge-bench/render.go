package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/source/project"
)

// renderReport holds the rendering figures of one project, in milliseconds.
type renderReport struct {
	Nodes, Rendered         int
	Load                    float64 // reading and parsing every source into memory
	RenderSeq, GoldmarkSeq  float64 // every view, one goroutine; bare goldmark over the same bodies, one goroutine
	RenderPar               float64 // every view with the default parallelism
	Publish                 float64 // docforge render end to end: load, render, write pages and receipts
	StatusWalk, StatusKnown float64 // cheap render_status: with its own stat walk; with the identity proven (the worker's case)
	Bytes                   int
}

// measureRender times rendering every declared view of the project, against bare goldmark
// conversion of the same bodies in the same process, and the cheap status. Medians of 3 (5
// for status).
func measureRender(ctx context.Context, proj string, nodes int) (*renderReport, error) {
	d, probs, err := project.Load(proj)
	if err != nil || d == nil {
		return nil, fmt.Errorf("load %s: %v %v", proj, err, probs)
	}
	rep := &renderReport{Nodes: nodes}
	var g *render.Graph
	var loads []time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		if g, err = render.Load(ctx, d, ""); err != nil {
			return nil, err
		}
		loads = append(loads, time.Since(t0))
	}
	rep.Load = median(loads)
	renderAll := func(workers int) (time.Duration, int, error) {
		t0 := time.Now()
		total := 0
		for _, v := range d.Views {
			// Pages stream to their file (or, for the deep check, a comparison): count the
			// bytes and drop them, so the figure is the rendering alone.
			w := &countWriter{}
			if err := render.HTML.RenderTo(w, d, g, v.ID, render.Options{Workers: workers}); err != nil {
				return 0, 0, err
			}
			total += w.n
		}
		return time.Since(t0), total, nil
	}
	var seq, par, bare []time.Duration
	for i := 0; i < 3; i++ {
		dt, n, err := renderAll(1)
		if err != nil {
			return nil, err
		}
		seq, rep.Bytes = append(seq, dt), n
		if dt, _, err = renderAll(0); err != nil {
			return nil, err
		}
		par = append(par, dt)
		bare = append(bare, goldmarkAll(g))
	}
	rep.RenderSeq, rep.RenderPar, rep.GoldmarkSeq = median(seq), median(par), median(bare)
	for _, v := range d.Views {
		for _, n := range g.Nodes {
			if render.Selects(v, n) {
				rep.Rendered++
			}
		}
	}
	var pubs []time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		if _, err := render.Publish(ctx, d, "", nil, render.PublishOptions{}); err != nil {
			return nil, err
		}
		pubs = append(pubs, time.Since(t0))
	}
	rep.Publish = median(pubs)
	var walk, known []time.Duration
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		st, err := render.Status(ctx, d, "", render.StatusRequest{})
		if err != nil {
			return nil, err
		}
		walk = append(walk, time.Since(t0))
		for _, v := range st.Views {
			if v.State != render.Current {
				return nil, fmt.Errorf("render status of a fresh render: %s %v", v.State, v.Reasons)
			}
		}
		t0 = time.Now()
		if _, err := render.Status(ctx, d, "", render.StatusRequest{SourceIdentity: st.SourceIdentity}); err != nil {
			return nil, err
		}
		known = append(known, time.Since(t0))
	}
	rep.StatusWalk, rep.StatusKnown = median(walk), median(known)
	fmt.Fprintf(os.Stderr, "[render %d] load %.0f ms; render %.0f ms (1 goroutine), %.0f ms (parallel); bare goldmark %.0f ms; ratio %.2f; status %.1f / %.2f ms\n",
		nodes, rep.Load, rep.RenderSeq, rep.RenderPar, rep.GoldmarkSeq, rep.RenderSeq/rep.GoldmarkSeq, rep.StatusWalk, rep.StatusKnown)
	return rep, nil
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// goldmarkAll converts every node body with goldmark alone (the same extensions and heading
// IDs, default renderer), one goroutine: the baseline rendering is compared with.
func goldmarkAll(g *render.Graph) time.Duration {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote), goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	var buf bytes.Buffer
	t0 := time.Now()
	for _, n := range g.Nodes {
		buf.Reset()
		md.Convert([]byte(n.Body), &buf)
	}
	return time.Since(t0)
}

func renderMarkdown(reps []*renderReport) string {
	if len(reps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nRendering every declared view (median ms; nodes/s counts rendered nodes):\n\n")
	b.WriteString("| nodes | load sources | render, 1 goroutine | bare goldmark, 1 goroutine | ratio | render, parallel | nodes/s (1 goroutine / parallel) | docforge render end to end | pages | cheap status: walk / identity known |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range reps {
		fmt.Fprintf(&b, "| %d | %.0f | %.0f | %.0f | %.2f | %.0f | %.0f / %.0f | %.0f | %.1f MB | %.1f / %.2f |\n", r.Nodes, r.Load, r.RenderSeq, r.GoldmarkSeq, r.RenderSeq/r.GoldmarkSeq,
			r.RenderPar, float64(r.Rendered)/r.RenderSeq*1000, float64(r.Rendered)/r.RenderPar*1000, r.Publish, float64(r.Bytes)/1e6, r.StatusWalk, r.StatusKnown)
	}
	b.WriteString("\n| target | at | bound | measured | met |\n|---|---|---|---|---|\n")
	for _, r := range reps {
		if r.Nodes != 10000 {
			continue
		}
		row := func(name, bound string, v string, ok bool) {
			met := "yes"
			if !ok {
				met = "**no**"
			}
			fmt.Fprintf(&b, "| %s | %d nodes | %s | %s | %s |\n", name, r.Nodes, bound, v, met)
		}
		rate := float64(r.Rendered) / r.RenderPar * 1000
		row("render throughput (parallel)", "2000 nodes/s", fmt.Sprintf("%.0f nodes/s", rate), rate >= 2000)
		ratio := r.RenderSeq / r.GoldmarkSeq
		row("render vs bare goldmark", "2x", fmt.Sprintf("%.2fx", ratio), ratio <= 2)
		row("cheap render_status (identity known, as in the worker)", "5 ms", fmt.Sprintf("%.2f ms", r.StatusKnown), r.StatusKnown <= 5)
	}
	return b.String()
}
