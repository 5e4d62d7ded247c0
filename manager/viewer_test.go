package manager

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/worker/protocol"
)

// viewerSession opens a viewer URL as the page does: the fragment's token is checked once
// and then sent in a header on every request.
type viewerSession struct {
	origin, auth string
}

func openViewer(t *testing.T, raw string) *viewerSession {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !strings.HasPrefix(u.Fragment, "token=") {
		t.Fatalf("viewer URL %q", raw)
	}
	s := &viewerSession{origin: "http://" + u.Host, auth: "Bearer " + strings.TrimPrefix(u.Fragment, "token=")}
	if code, _, err := s.get("/api/session"); err != nil || code != 200 {
		t.Fatalf("token check: %d %v", code, err)
	}
	return s
}

// get answers the status code and the JSON body of one API request, or an error when the
// viewer does not answer at all.
func (s *viewerSession) get(path string) (int, map[string]any, error) {
	req, _ := http.NewRequest("GET", s.origin+path, nil)
	req.Header.Set("Authorization", s.auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body, nil
}

// toolResult calls a tool on the worker and returns its result object.
func toolResult(t *testing.T, rc *protocol.RemoteCaller, b protocol.Binding, tool, args string) map[string]any {
	t.Helper()
	out, err := rc.Call(context.Background(), b, tool, []byte(args))
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	var env struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	return env.Result
}

// The viewer lives in the project's worker, outlives the client that asked for it, is reused
// while its snapshot is the published one, answers stale (and is not reused) after the index
// changes, reports its freshness without syncing, and is reclaimed once the browser has been
// away for the idle limit.
func TestViewerLifecycle(t *testing.T) {
	root := exampleCopy(t)
	r := startManager(t, Config{HealthEvery: 100 * time.Millisecond, ViewerIdle: 2 * time.Second})
	c := dial(t, r.paths)
	ctx := context.Background()
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	info, err := c.Acquire(ctx, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := protocol.DialWorker(info.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	first := toolResult(t, rc, b, "docforge_visualize", `{"node_id":"arch.store"}`)
	if first["template"] != "graph-browser@18" || first["reused"] != false {
		t.Fatalf("visualize: %v", first)
	}
	rawURL := first["url"].(string)
	if !strings.Contains(rawURL, "focus=arch.store") {
		t.Errorf("URL %s does not carry the focus", rawURL)
	}
	rc.Close() // the client that asked goes away, as a bridge does at session end

	v := openViewer(t, rawURL)
	if code, body, err := v.get("/api/neighborhood?id=arch.store"); err != nil || code != 200 || len(body["nodes"].([]any)) < 2 {
		t.Fatalf("neighborhood after the client left: %d %v %v", code, body, err)
	}
	rc, err = protocol.DialWorker(info.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	again := toolResult(t, rc, b, "docforge_visualize", `{}`)
	if again["reused"] != true || !strings.HasPrefix(again["url"].(string), v.origin+"/#token=") {
		t.Errorf("second visualize did not reuse the viewer: %v", again)
	}
	st := toolResult(t, rc, b, "docforge_visualization_status", `{}`)
	fresh := st["freshness"].(map[string]any)
	if st["state"] != "running" || st["snapshot_state"] != "current" || fresh["index"] != "current" || fresh["source"] != "current" {
		t.Errorf("status of a current viewer: %v", st)
	}

	// A source edit: status proves the sources stale without syncing...
	node := filepath.Join(root, "docs", "architecture", "store.md")
	data, _ := os.ReadFile(node)
	os.WriteFile(node, append(data, []byte("\nA new paragraph for the viewer test.\n")...), 0o644)
	st = toolResult(t, rc, b, "docforge_visualization_status", `{}`)
	fresh = st["freshness"].(map[string]any)
	if st["snapshot_state"] != "stale" || st["staleness"] != "stale" || fresh["source"] != "stale" {
		t.Errorf("status after a source edit: %v", st)
	}
	// ...and once a call publishes the next generation, the old page answers stale.
	toolResult(t, rc, b, "docforge_sync", `{}`)
	code, body, err := v.get("/api/neighborhood?id=arch.store")
	if err != nil || code != http.StatusConflict || body["state"] != "stale" || !strings.Contains(body["remediation"].(string), "docforge_visualize") {
		t.Errorf("old viewer after a new generation: %d %v %v", code, body, err)
	}
	st = toolResult(t, rc, b, "docforge_visualization_status", `{}`)
	if fresh = st["freshness"].(map[string]any); fresh["index"] != "stale" || st["state"] != "running" {
		t.Errorf("status of a stale viewer: %v", st)
	}
	third := toolResult(t, rc, b, "docforge_visualize", `{"query":"late events"}`)
	if third["reused"] != false || third["url"] == rawURL {
		t.Fatalf("a stale viewer was reused: %v", third)
	}
	v = openViewer(t, third["url"].(string))
	if code, body, _ := v.get("/api/status"); code != 200 || body["state"] != "current" {
		t.Errorf("new viewer: %d %v", code, body)
	}

	// The manager sees the viewer, then reclaims it when the browser stays away.
	mst, err := c.Status(ctx)
	if err != nil || len(mst.Workers) != 1 || mst.Workers[0].Viewer == nil || mst.Workers[0].Viewer.SnapshotState != "current" {
		t.Fatalf("manager status with a viewer: %v %+v", err, mst)
	}
	// Watched through the manager's status, which is no browser activity: a request to the
	// viewer itself would keep it alive.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mst, err := c.Status(ctx)
		if err == nil && len(mst.Workers) == 1 && mst.Workers[0].Viewer == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle viewer was never reclaimed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, _, err := v.get("/api/status"); err == nil {
		t.Error("the reclaimed viewer still answers")
	}
	st = toolResult(t, rc, b, "docforge_visualization_status", `{}`)
	if st["state"] != "stopped" {
		t.Errorf("status after the reclaim: %v", st)
	}
	stop := toolResult(t, rc, b, "docforge_stop_visualization", `{}`)
	if stop["stopped"] != false {
		t.Errorf("stop with no viewer: %v", stop)
	}
}
