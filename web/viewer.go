package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// MaxSourceBytes bounds one source read.
const MaxSourceBytes = 256 << 10

// Viewer serves one exact, validated index snapshot to a browser over loopback HTTP. It never
// opens another generation: when the published index file is replaced or altered, every data
// request answers "stale" and the page tells the user to visualize again.
type Viewer struct {
	d    *project.Descriptor
	snap *index.Snapshot
	g    *guard
	ln   net.Listener
	srv  *http.Server
	page fs.FS
	last atomic.Int64 // unix nanoseconds of the last authorized request
	// clusters is the snapshot's cluster map, made on the first request: the snapshot never
	// changes under a viewer.
	clusters struct {
		once sync.Once
		m    *index.ClusterMap
		err  error
	}
}

// Listen opens the viewer's listener: 127.0.0.1 on a port the kernel picks.
func Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("viewer listen: %w", err)
	}
	return ln, nil
}

// New prepares a viewer of snap on ln with a fresh 256-bit token. The viewer owns neither:
// the caller closes the snapshot after Serve returns.
func New(d *project.Descriptor, snap *index.Snapshot, ln net.Listener) (*Viewer, error) {
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("viewer token: %w", err)
	}
	addr := ln.Addr().String()
	v := &Viewer{d: d, snap: snap, ln: ln, page: Page(),
		g: &guard{addr: addr, token: token}}
	v.last.Store(time.Now().UnixNano())
	v.srv = &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	return v, nil
}

// URL is the address to open: the token travels in the fragment, which browsers never send.
// The query, when given, tells the page what to show first (focus, q, view).
func (v *Viewer) URL(query url.Values) string {
	u := v.g.origin() + "/"
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return u + "#token=" + hex.EncodeToString(v.g.token)
}

// Port is the listener's port.
func (v *Viewer) Port() int { return v.ln.Addr().(*net.TCPAddr).Port }

// Snapshot is the exact snapshot the viewer serves.
func (v *Viewer) Snapshot() *index.Snapshot { return v.snap }

// LastActivity is when the browser last made an authorized request (or the viewer started).
func (v *Viewer) LastActivity() time.Time { return time.Unix(0, v.last.Load()) }

// Idle is how long ago the browser last made an authorized request.
func (v *Viewer) Idle() time.Duration { return time.Since(time.Unix(0, v.last.Load())) }

// Serve answers until ctx ends.
func (v *Viewer) Serve(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			v.srv.Shutdown(sctx)
			cancel()
		case <-done:
		}
	}()
	err := v.srv.Serve(v.ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler is the guarded handler, for Serve and for tests.
func (v *Viewer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/session", v.g.session)
	mux.HandleFunc("GET /{file...}", v.servePage)
	api := func(path string, params []string, fn func(r *http.Request) (any, error)) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			if !v.g.authorized(r) {
				refuse(w, http.StatusUnauthorized, "no viewer token: open the URL docforge_visualize printed, with its #token part")
				return
			}
			v.last.Store(time.Now().UnixNano())
			if err := onlyParams(r, params); err != nil {
				writeError(w, err)
				return
			}
			if stale := v.staleness(); stale != "" {
				writeJSON(w, http.StatusConflict, map[string]any{"state": "stale", "message": stale,
					"remediation": "call docforge_visualize again (or run 'docforge view') for a viewer of the current index"})
				return
			}
			out, err := fn(r)
			if err != nil {
				writeError(w, err)
				return
			}
			writeJSON(w, http.StatusOK, out)
		})
	}
	api("/api/status", nil, func(*http.Request) (any, error) {
		return map[string]any{"state": "current", "snapshot": v.snap.Info()}, nil
	})
	api("/api/overview", nil, v.overview)
	api("/api/clusters", nil, func(r *http.Request) (any, error) {
		v.clusters.once.Do(func() { v.clusters.m, v.clusters.err = v.snap.Clusters(context.WithoutCancel(r.Context())) })
		return v.clusters.m, v.clusters.err
	})
	api("/api/search", []string{"q", "limit"}, func(r *http.Request) (any, error) {
		limit, err := intParam(r, "limit")
		if err != nil {
			return nil, err
		}
		return v.snap.Search(r.Context(), r.URL.Query().Get("q"), limit)
	})
	api("/api/filter", []string{"family", "authority", "status", "tag", "kind", "language", "capability", "limit"}, func(r *http.Request) (any, error) {
		q := r.URL.Query()
		limit, err := intParam(r, "limit")
		if err != nil {
			return nil, err
		}
		return v.snap.FilterNodes(r.Context(), index.Filter{Family: q.Get("family"), Authority: q.Get("authority"), Status: q.Get("status"),
			Tag: q.Get("tag"), Kind: q.Get("kind"), Language: q.Get("language"), Capability: q.Get("capability")}, limit)
	})
	api("/api/node", []string{"id"}, func(r *http.Request) (any, error) {
		return v.snap.Get(r.Context(), r.URL.Query().Get("id"))
	})
	api("/api/logic", []string{"id"}, func(r *http.Request) (any, error) {
		return v.snap.Logic(r.Context(), r.URL.Query().Get("id"))
	})
	api("/api/source", []string{"id"}, v.source)
	api("/api/neighborhood", []string{"id", "depth", "limit"}, v.neighborhood)
	api("/api/flow", []string{"id", "depth"}, v.flow("flow"))
	api("/api/web", []string{"id", "depth"}, v.flow("web"))
	return v.g.wrap(mux)
}

// staleness says why the snapshot no longer matches the published index, or "" when it does.
func (v *Viewer) staleness() string {
	now, err := index.PublishedSignature(v.d, v.snap.Info().Policy)
	if err != nil {
		return "the published index is gone: " + err.Error()
	}
	if !now.SameFile(v.snap.Info().Index) {
		return fmt.Sprintf("the index this viewer shows (generation %d) was replaced or altered", v.snap.Info().Generation)
	}
	return ""
}

func (v *Viewer) overview(r *http.Request) (any, error) {
	families := map[string][]string{}
	for _, name := range v.d.FamilyNames() {
		families[name] = v.d.Families[name].Kinds
	}
	if len(v.d.Sources.CodeRoots) > 0 {
		// The code family's kinds are the adapters' (source.Adapters).
		families[source.CodeFamily] = source.CodeKinds()
	}
	info := v.snap.Info()
	return map[string]any{"project": map[string]string{"id": v.d.Project.ID, "name": v.d.Project.Name},
		"generation": info.Generation, "node_count": info.NodeCount, "edge_count": info.EdgeCount,
		"families": families, "relations": v.d.Relations.Allowed}, nil
}

// source reads the indexed source file of one node, bounded and confined: the path comes
// from the index, and its real location (symlinks resolved) must still lie inside the
// project root.
func (v *Viewer) source(r *http.Request) (any, error) {
	n, err := v.snap.Get(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		return nil, err
	}
	rel := filepath.FromSlash(n.SourcePath)
	if rel == "" || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, problem.Errorf(problem.PathEscape, "node %s has no readable source path", n.ID)
	}
	// Confined when read, not only when indexed: the path must still resolve inside the root
	// that declares it (a content or code root; symlinks followed), and the bytes must still
	// be the ones this generation indexed, so a file swapped for a link to a secret after
	// indexing is never served.
	declared, ok := v.d.RootOf(n.SourcePath)
	if !ok {
		return nil, problem.Errorf(problem.PathEscape, "the source of %s is under no declared content or code root", n.ID)
	}
	root, err := filepath.EvalSymlinks(filepath.Join(v.d.Root, filepath.FromSlash(declared)))
	if err != nil {
		return nil, problem.Wrap(problem.UnreadableFile, err, "the root of %s's source", n.ID)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(v.d.Root, rel))
	if err != nil {
		return nil, problem.Wrap(problem.UnreadableFile, err, "source of %s", n.ID)
	}
	if inside, err := filepath.Rel(root, real); err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return nil, problem.Errorf(problem.PathEscape, "the source of %s resolves outside its root %s", n.ID, declared)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return nil, problem.Errorf(problem.UnreadableFile, "the source of %s is not a regular file", n.ID)
	}
	data, current, err := v.snap.SourceFile(r.Context(), n.SourcePath)
	if err != nil {
		return nil, problem.Wrap(problem.UnreadableFile, err, "source of %s", n.ID)
	}
	if !current {
		return nil, problem.Errorf(problem.SourceChanged, "the source of %s is no longer the file generation %d indexed; open the viewer again after the next sync", n.ID, v.snap.Info().Generation)
	}
	truncated := len(data) > MaxSourceBytes
	if truncated {
		data = data[:MaxSourceBytes]
	}
	return map[string]any{"node_id": n.ID, "source_path": n.SourcePath, "line": n.Line, "anchor": n.Anchor,
		"text": string(data), "truncated": truncated}, nil
}

// onlyParams refuses query parameters the endpoint does not define, and repeated ones.
func onlyParams(r *http.Request, allowed []string) error {
	for k, vs := range r.URL.Query() {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return problem.Errorf(problem.InvalidArgument, "unknown parameter %q", k)
		}
		if len(vs) > 1 {
			return problem.Errorf(problem.InvalidArgument, "parameter %q given %d times", k, len(vs))
		}
	}
	return nil
}

func intParam(r *http.Request, name string) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, problem.Errorf(problem.InvalidArgument, "%s must be a positive integer", name)
	}
	return n, nil
}

// depthParam reads the depth parameter: def when absent, at most max.
func depthParam(r *http.Request, def, max int) (int, error) {
	depth, err := intParam(r, "depth")
	switch {
	case err != nil:
		return 0, err
	case depth == 0:
		return def, nil
	case depth > max:
		return 0, problem.Errorf(problem.InvalidArgument, "depth is at most %d", max)
	}
	return depth, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func refuse(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"message": msg}})
}

// writeError answers a structured problem with the status that fits its code.
func writeError(w http.ResponseWriter, err error) {
	var pe *problem.Error
	if !errors.As(err, &pe) {
		pe = problem.Wrap(problem.Internal, err, "%v", err)
	}
	status := http.StatusInternalServerError
	switch pe.Problem.Code {
	case problem.NodeNotFound:
		status = http.StatusNotFound
	case problem.InvalidArgument:
		status = http.StatusBadRequest
	case problem.PathEscape, problem.AdapterPolicyForbidsLogic:
		status = http.StatusForbidden
	case problem.UnreadableFile:
		status = http.StatusUnprocessableEntity
	case problem.SourceChanged:
		status = http.StatusConflict
	}
	remediation := pe.Problem.Remediation
	if remediation == "" {
		remediation = problem.Describe(pe.Problem.Code).Remediation
	}
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": string(pe.Problem.Code), "message": pe.Problem.Message, "remediation": remediation}})
}
