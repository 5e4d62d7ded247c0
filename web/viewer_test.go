package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/web"
)

type viewerRig struct {
	v      *web.Viewer
	root   string
	d      *project.Descriptor
	origin string
	token  string
	client *http.Client
}

// startViewer syncs a copy of the example project and serves its snapshot on a real loopback
// listener.
func startViewer(t *testing.T) *viewerRig {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "examples", "courier"))); err != nil {
		t.Fatal(err)
	}
	for _, derived := range []string{".docforge", "site"} {
		os.RemoveAll(filepath.Join(root, derived))
	}
	ctx := context.Background()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("descriptor: %v %v", err, probs)
	}
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		t.Fatal(err)
	}
	snap, err := index.Open(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := web.Listen()
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.New(d, snap, ln)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- v.Serve(sctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		snap.Close()
	})
	origin, token, ok := strings.Cut(v.URL(nil), "/#token=")
	if !ok || !strings.HasPrefix(origin, "http://127.0.0.1:") || len(token) != 64 {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/#token=<64 hex digits>", v.URL(nil))
	}
	return &viewerRig{v: v, root: root, d: d, origin: origin, token: token, client: &http.Client{Timeout: 10 * time.Second}}
}

func (r *viewerRig) do(t *testing.T, method, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, r.origin+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// session checks the token with the viewer, as the page does first, and returns the
// Authorization header value every API request carries. No response sets a cookie.
func (r *viewerRig) session(t *testing.T) string {
	t.Helper()
	auth := "Bearer " + r.token
	resp, body := r.do(t, "GET", "/api/session", map[string]string{"Authorization": auth})
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("token check: %d %s, cookies %v (a credential must never live in a cookie)", resp.StatusCode, body, resp.Cookies())
	}
	return auth
}

func TestViewerRefusesWhatIsNotItsOwnPage(t *testing.T) {
	r := startViewer(t)
	auth := r.session(t)
	host := strings.TrimPrefix(r.origin, "http://")
	port := host[strings.LastIndexByte(host, ':')+1:]
	for _, tc := range []struct {
		name   string
		method string
		path   string
		header map[string]string
		status int
	}{
		{"no session", "GET", "/api/node?id=arch.store", nil, http.StatusUnauthorized},
		{"wrong token exchange", "GET", "/api/session", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"token not in a header", "GET", "/api/session?token=" + r.token, nil, http.StatusUnauthorized},
		{"wrong token", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": "Bearer " + strings.Repeat("ab", 32)}, http.StatusUnauthorized},
		{"the token in a cookie is no credential", "GET", "/api/node?id=arch.store", map[string]string{"Cookie": "docforge_viewer_" + port + "=" + r.token}, http.StatusUnauthorized},
		{"the token in the query is no credential", "GET", "/api/node?id=arch.store&token=" + r.token, nil, http.StatusUnauthorized},
		{"foreign Host (DNS rebinding)", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Host": "evil.example:" + port}, http.StatusForbidden},
		{"localhost is not the listener's exact address", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Host": "localhost:" + port}, http.StatusForbidden},
		{"foreign Origin", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"foreign Referer", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Referer": "http://evil.example/x"}, http.StatusForbidden},
		{"cross-site fetch", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"POST", "POST", "/api/node?id=arch.store", map[string]string{"Authorization": auth}, http.StatusMethodNotAllowed},
		{"PUT on the exchange", "PUT", "/api/session", map[string]string{"Authorization": "Bearer " + r.token}, http.StatusMethodNotAllowed},
		{"unknown parameter", "GET", "/api/node?id=arch.store&sql=1", map[string]string{"Authorization": auth}, http.StatusBadRequest},
		{"repeated parameter", "GET", "/api/node?id=arch.store&id=arch.api", map[string]string{"Authorization": auth}, http.StatusBadRequest},
		{"a path is not a node ID", "GET", "/api/source?id=../../../etc/passwd", map[string]string{"Authorization": auth}, http.StatusNotFound},
		{"unknown endpoint", "GET", "/api/sql", map[string]string{"Authorization": auth}, http.StatusNotFound},
		{"same origin is fine", "GET", "/api/node?id=arch.store", map[string]string{"Authorization": auth, "Origin": r.origin, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := r.do(t, tc.method, tc.path, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			h := resp.Header
			if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") || h.Get("X-Frame-Options") != "DENY" ||
				h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("security headers: %v", h)
			}
			if tc.status == http.StatusMethodNotAllowed && h.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q", h.Get("Allow"))
			}
		})
	}
}

func TestViewerEndpoints(t *testing.T) {
	r := startViewer(t)
	auth := map[string]string{"Authorization": r.session(t)}
	get := func(path string, v any) {
		t.Helper()
		resp, body := r.do(t, "GET", path, auth)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	var node struct {
		ID       string `json:"id"`
		Outgoing []struct {
			NodeID string `json:"node_id"`
		}
		Incoming []struct {
			NodeID string `json:"node_id"`
		}
	}
	get("/api/node?id=arch.store", &node)
	if node.ID != "arch.store" || len(node.Incoming) == 0 || len(node.Outgoing) == 0 {
		t.Errorf("neighbourhood: %+v", node)
	}
	var search struct{ Hits []struct{ ID string } }
	get("/api/search?q=late+events&limit=3", &search)
	if len(search.Hits) == 0 || len(search.Hits) > 3 {
		t.Errorf("search: %+v", search)
	}
	var filter struct{ Nodes []struct{ ID string } }
	get("/api/filter?family=requirements&tag=security", &filter)
	if len(filter.Nodes) == 0 {
		t.Errorf("filter: %+v", filter)
	}
	var overview struct {
		NodeCount int64 `json:"node_count"`
		Families  map[string][]string
	}
	get("/api/overview", &overview)
	// The code family lists the kinds the adapters make.
	if overview.NodeCount < 10 || len(overview.Families["architecture"]) == 0 || !slices.Equal(overview.Families["code"], source.CodeKinds()) {
		t.Errorf("overview: %+v", overview)
	}
	var clusters struct {
		Clusters []struct {
			ID    string
			Nodes int
			Top   []struct{ ID string }
		}
		Links []struct{ From, To string }
	}
	get("/api/clusters", &clusters)
	if len(clusters.Clusters) < 4 || len(clusters.Links) == 0 || len(clusters.Clusters[0].Top) == 0 {
		t.Errorf("clusters: %+v", clusters)
	}
	var logic struct{ Steps []any }
	get("/api/logic?id=go:example.com/courier/store.Log.State", &logic)
	if len(logic.Steps) == 0 {
		t.Errorf("logic: %+v", logic)
	}
	for _, view := range []string{"flow", "web"} {
		var fr struct {
			Focus string
			Nodes []struct{ ID string }
			Edges []struct{ From, To string }
		}
		get("/api/"+view+"?id=arch.store&depth=2", &fr)
		if fr.Focus != "arch.store" || len(fr.Nodes) < 2 || len(fr.Edges) == 0 {
			t.Errorf("%s: %+v", view, fr)
		}
	}
	if resp, _ := r.do(t, "GET", "/api/flow?id=arch.store&depth=99", auth); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a depth past the bound is a bad request: %d", resp.StatusCode)
	}
	var src struct {
		Text       string
		SourcePath string `json:"source_path"`
	}
	get("/api/source?id=arch.store", &src)
	if src.SourcePath != "docs/architecture/store.md" || !strings.Contains(src.Text, "Shipment store") {
		t.Errorf("source: %+v", src)
	}
}

// A replaced or altered index file is answered as stale, with what to do.
func TestViewerAnswersStaleWhenTheIndexChanges(t *testing.T) {
	for _, change := range []string{"replaced", "altered"} {
		t.Run(change, func(t *testing.T) {
			r := startViewer(t)
			auth := map[string]string{"Authorization": r.session(t)}
			if resp, body := r.do(t, "GET", "/api/status", auth); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"state":"current"`) {
				t.Fatalf("before: %d %s", resp.StatusCode, body)
			}
			switch change {
			case "replaced":
				p := filepath.Join(r.root, "docs", "architecture", "store.md")
				data, _ := os.ReadFile(p)
				if err := os.WriteFile(p, append(data, "\nMore.\n"...), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := index.Sync(context.Background(), r.d, index.Options{}); err != nil {
					t.Fatal(err)
				}
			case "altered":
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(publication.PathsFor(r.d, "").Index, later, later); err != nil {
					t.Fatal(err)
				}
			}
			resp, body := r.do(t, "GET", "/api/node?id=arch.store", auth)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, `"state":"stale"`) || !strings.Contains(body, "docforge_visualize again") {
				t.Fatalf("after: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// The neighbourhood: the focus, the nodes around it level by level, the stored relations
// between them, and its bounds.
func TestViewerNeighborhood(t *testing.T) {
	r := startViewer(t)
	auth := map[string]string{"Authorization": r.session(t)}
	type result struct {
		Focus string
		Nodes []struct {
			ID    string
			Depth int
		}
		Edges []struct {
			From, To, Relation, Category string
		}
		Truncated   bool
		TruncatedBy string `json:"truncated_by"`
	}
	get := func(path string) (int, result) {
		t.Helper()
		resp, body := r.do(t, "GET", path, auth)
		var out result
		json.Unmarshal([]byte(body), &out)
		return resp.StatusCode, out
	}
	code, one := get("/api/neighborhood?id=arch.store")
	if code != 200 || one.Nodes[0].ID != "arch.store" || one.Nodes[0].Depth != 0 || len(one.Nodes) < 5 {
		t.Fatalf("depth 1: %d %+v", code, one)
	}
	listed := map[string]bool{}
	for _, n := range one.Nodes {
		listed[n.ID] = true
	}
	sawIncoming := false
	for _, e := range one.Edges {
		if !listed[e.From] || !listed[e.To] || e.Category == "" {
			t.Errorf("edge %+v leaves the listed nodes or has no category", e)
		}
		sawIncoming = sawIncoming || e.To == "arch.store"
	}
	if !sawIncoming {
		t.Error("no relation into the focus: both directions must be walked")
	}
	if _, two := get("/api/neighborhood?id=arch.store&depth=2"); len(two.Nodes) <= len(one.Nodes) {
		t.Errorf("depth 2 has %d nodes, depth 1 %d", len(two.Nodes), len(one.Nodes))
	}
	if _, small := get("/api/neighborhood?id=arch.store&limit=3"); len(small.Nodes) != 3 || !small.Truncated || small.TruncatedBy != "node_limit" {
		t.Errorf("limit 3: %+v", small)
	}
	for path, want := range map[string]int{"/api/neighborhood?id=arch.store&depth=4": 400, "/api/neighborhood?id=nope": 404, "/api/neighborhood?id=arch.store&limit=0": 400} {
		if code, _ := get(path); code != want {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
}

// The page is served without a session (it carries no data), only its own files, and with
// the same headers; everything it shows comes through the guarded API.
func TestViewerServesOnlyItsPage(t *testing.T) {
	r := startViewer(t)
	built := web.PageBuilt(web.Page())
	for path, want := range map[string]int{"/": 200, "/index.html": 200, "/boot.js": 200, "/app.js": 200, "/app.css": 200, "/.gitkeep": 404, "/../go.mod": 404, "/web/page.go": 404} {
		if !built && want == 200 {
			want = http.StatusServiceUnavailable
		}
		resp, body := r.do(t, "GET", path, nil)
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d: %.100s", path, resp.StatusCode, want, body)
		}
		if resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no CSP", path)
		}
	}
}

// Source reads are confined when they are made, not only when the source was indexed: a
// file swapped after indexing for a link to a secret, outside the project or elsewhere in it
// (outside every declared root), is refused, and so is one edited since the generation.
func TestViewerSourceIsTheGenerationsOwn(t *testing.T) {
	r := startViewer(t)
	auth := map[string]string{"Authorization": r.session(t)}
	for _, tc := range []struct {
		name, secret, node string
		status             int
		code               string
	}{
		{"a link out of the project", filepath.Join(t.TempDir(), "secret.txt"), "arch.store", http.StatusForbidden, "path_escape"},
		{"a link to a secret in the project", filepath.Join(r.root, ".env"), "arch.notifier", http.StatusForbidden, "path_escape"},
	} {
		if err := os.WriteFile(tc.secret, []byte("TOKEN=secret-value\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		n, err := r.v.Snapshot().Get(context.Background(), tc.node)
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(r.root, filepath.FromSlash(n.SourcePath))
		if err := os.Remove(page); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tc.secret, page); err != nil {
			t.Fatal(err)
		}
		resp, body := r.do(t, "GET", "/api/source?id="+tc.node, auth)
		if resp.StatusCode != tc.status || strings.Contains(body, "secret-value") || !strings.Contains(body, tc.code) {
			t.Errorf("%s: status %d: %s", tc.name, resp.StatusCode, body)
		}
	}
	api := filepath.Join(r.root, "docs", "architecture", "api.md")
	fixture.Append(t, api, "\nAn edit the viewer's generation has not seen.\n")
	resp, body := r.do(t, "GET", "/api/source?id=arch.api", auth)
	if resp.StatusCode != http.StatusConflict || strings.Contains(body, "has not seen") || !strings.Contains(body, "source_changed") {
		t.Fatalf("an edited source: status %d: %s", resp.StatusCode, body)
	}
}
