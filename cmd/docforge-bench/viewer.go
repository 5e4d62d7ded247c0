package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/web"
)

// viewerSamples is how many focus nodes the neighbourhood timings spread over.
const viewerSamples = 200

// measureViewer serves a synced project's index in a real viewer on loopback and times, over
// HTTP with the token in a header, the neighbourhood endpoint for focus nodes spread across the
// project; then, when Chromium and playwright-core are installed, how long the page takes in
// headless Chromium from navigation to a drawn 300-node neighbourhood.
func measureViewer(ctx context.Context, proj string) (string, error) {
	d, probs, err := project.Load(proj)
	if err != nil || d == nil {
		return "", fmt.Errorf("viewer bench: descriptor: %v %v", err, probs)
	}
	snap, err := index.Open(ctx, d)
	if err != nil {
		return "", fmt.Errorf("viewer bench: %w", err)
	}
	defer snap.Close()
	ln, err := web.Listen()
	if err != nil {
		return "", err
	}
	v, err := web.New(d, snap, ln)
	if err != nil {
		ln.Close()
		return "", err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { v.Serve(sctx); close(served) }()
	defer func() { stop(); <-served }()

	page := v.URL(nil)
	origin, token, _ := strings.Cut(page, "/#token=")
	client := &http.Client{Timeout: 30 * time.Second}
	req, _ := http.NewRequest("GET", origin+"/api/session", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("viewer bench: session: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("viewer bench: the token was refused: %s", resp.Status)
	}
	get := func(path string) (time.Duration, map[string]any, error) {
		req, _ := http.NewRequest("GET", origin+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		took := time.Since(t0)
		if resp.StatusCode != 200 {
			return 0, nil, fmt.Errorf("%s: %s %v", path, resp.Status, body)
		}
		return took, body, err
	}

	base, err := index.BaseSegment(d, "")
	if err != nil {
		return "", err
	}
	ids, err := sampleIDs(base, viewerSamples)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Viewer (graph-browser@18), %d-node project\n\n", snap.Info().NodeCount)
	fmt.Fprintf(&b, "In-process viewer on a real loopback listener, timed over HTTP with the token in a header, "+
		"%d focus nodes spread evenly over the index (one request each, after one warm-up pass).\n\n", len(ids))
	b.WriteString("| endpoint | p50 ms | p95 ms | max ms | median nodes | median edges |\n|---|---:|---:|---:|---:|---:|\n")
	var big url.Values // the page query of a focus whose neighbourhood fills the page's 300 nodes
	for _, ep := range []struct{ label, query string }{
		{"neighborhood depth 1", "depth=1"},
		{"neighborhood depth 2 (limit 300)", "depth=2"},
		{"neighborhood depth 3 (limit 300)", "depth=3"},
		{"flow depth 3", ""},
	} {
		var ds []time.Duration
		var nodes, edges []int
		for pass := 0; pass < 2; pass++ {
			for _, id := range ids {
				path := "/api/neighborhood?id=" + url.QueryEscape(id) + "&" + ep.query
				if ep.query == "" {
					path = "/api/flow?id=" + url.QueryEscape(id)
				}
				took, body, err := get(path)
				if err != nil {
					return "", err
				}
				if pass == 0 {
					continue
				}
				ds = append(ds, took)
				n, e := len(body["nodes"].([]any)), len(body["edges"].([]any))
				nodes, edges = append(nodes, n), append(edges, e)
				if n == 300 && big == nil && ep.query != "" {
					big = url.Values{"focus": {id}, "depth": {strings.TrimPrefix(ep.query, "depth=")}}
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.0f | %.0f |\n", ep.label, median(ds), percentile(ds, 95), percentile(ds, 100), medianCount(nodes), medianCount(edges))
	}
	b.WriteString("\n")
	b.WriteString(measurePage(ctx, page, big))
	// The same page on a small neighbourhood: what any page load costs here, for the ratio.
	b.WriteString(measurePage(ctx, page, url.Values{"focus": {ids[0]}, "depth": {"1"}}))
	return b.String(), nil
}

// measurePage times the page in headless Chromium on a 300-node neighbourhood, or says why it
// could not.
func measurePage(ctx context.Context, page string, focus url.Values) string {
	const runs = 7
	script := filepath.Join("web", "ui", "test", "browser.mjs")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	switch {
	case focus == nil:
		return "Page: no sampled focus had a 300-node neighbourhood; not measured.\n"
	case !fileExists(chromium) || !fileExists(filepath.Join("web", "ui", "node_modules", "playwright-core")):
		return "Page: not measured (needs Debian's chromium and 'make ui'; run make bench from the repository root).\n"
	}
	base, token, _ := strings.Cut(page, "/#token=")
	target := base + "/?" + focus.Encode() + "#token=" + token
	cmd := exec.CommandContext(ctx, "node", script, "bench", target, fmt.Sprint(runs))
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("Page: the browser run failed: %v\n", err)
	}
	var r struct {
		Runs    int     `json:"runs"`
		Nodes   int     `json:"nodes"`
		P50     float64 `json:"p50_ms"`
		Max     float64 `json:"max_ms"`
		TimesMs []int   `json:"times_ms"`
		// Marks are the page's own stages per run, in ms from navigation start.
		Marks []map[string]float64 `json:"marks"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Sprintf("Page: unreadable browser report %q\n", out)
	}
	stages := ""
	for _, stage := range []string{"response", "dom", "session", "data", "added", "laid-out", "drawn", "panels", "painted"} {
		var ds []time.Duration
		for _, m := range r.Marks {
			ds = append(ds, time.Duration(m[stage]*float64(time.Millisecond)))
		}
		stages += fmt.Sprintf(" %s %.0f ms,", stage, median(ds))
	}
	return fmt.Sprintf("\nPage in headless Chromium (1280x800, fresh context per run), navigation to a drawn %d-node neighbourhood (focus %s): "+
		"p50 %.0f ms, max %.0f ms over %d runs (all: %v). The page's own stages (median ms from navigation start; painted is two frames after the draw, when input is answered again):%s.\n",
		r.Nodes, focus.Get("focus")+" at depth "+focus.Get("depth"), r.P50, r.Max, r.Runs, r.TimesMs, strings.TrimSuffix(stages, ","))
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// sampleIDs reads n node IDs spread evenly over the index's keys.
func sampleIDs(path string, n int) ([]string, error) {
	uri := (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}).String()
	conn, err := sqlite.OpenConn(uri, sqlite.OpenReadOnly|sqlite.OpenURI)
	if err != nil {
		return nil, fmt.Errorf("viewer bench: open %s: %w", path, err)
	}
	defer conn.Close()
	var ids []string
	err = sqlitex.Execute(conn, `SELECT id FROM nodes WHERE key % max(1, (SELECT count(*) FROM nodes) / ?) = 0 ORDER BY key LIMIT ?`, &sqlitex.ExecOptions{
		Args: []any{n, n}, ResultFunc: func(s *sqlite.Stmt) error { ids = append(ids, s.ColumnText(0)); return nil }})
	if err != nil {
		return nil, fmt.Errorf("viewer bench: sample nodes: %w", err)
	}
	return ids, nil
}
