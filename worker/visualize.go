package worker

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/web"
	"github.com/docforge/docforge/worker/protocol"
)

// viewerHost is a running viewer: the snapshot reference it holds (released when it stops)
// and how to stop it.
type viewerHost struct {
	v       *web.Viewer
	d       *project.Descriptor
	held    *held
	started time.Time
	stop    context.CancelFunc
	done    chan struct{}
}

// ViewerStatus is what a worker reports of its viewer.
type ViewerStatus struct {
	Port         int
	Index        publication.Signature
	Started      time.Time
	LastActivity time.Time
	// SnapshotState compares the served snapshot with the published index: current, stale
	// or unknown (nothing verifiable is published).
	SnapshotState string
}

// indexState compares a viewer's snapshot with the published index by stat and receipt.
func indexState(d *project.Descriptor, policy string, served publication.Signature) string {
	pub, err := publication.Probe(d, policy)
	switch {
	case err != nil:
		return publication.Unknown
	case pub.SameFile(served) && pub.Generation == served.Generation:
		return publication.Current
	default:
		return publication.Stale
	}
}

// Viewer reports the binding's running viewer, if any. It never opens SQLite.
func (s *Service) Viewer(b protocol.Binding) (ViewerStatus, bool) {
	s.mu.Lock()
	h := s.viewers[bindingKey(b)]
	s.mu.Unlock()
	if h == nil {
		return ViewerStatus{}, false
	}
	info := h.v.Snapshot().Info()
	return ViewerStatus{Port: h.v.Port(), Index: info.Index, Started: h.started, LastActivity: h.v.LastActivity(),
		SnapshotState: indexState(h.d, b.Policy(), info.Index)}, true
}

// StopViewer stops the binding's viewer; it reports whether one ran.
func (s *Service) StopViewer(b protocol.Binding) bool {
	s.viewerMu.Lock()
	defer s.viewerMu.Unlock()
	return s.stopViewer(b)
}

// stopViewer is StopViewer for a caller holding viewerMu.
func (s *Service) stopViewer(b protocol.Binding) bool {
	s.mu.Lock()
	h := s.viewers[bindingKey(b)]
	delete(s.viewers, bindingKey(b))
	s.mu.Unlock()
	if h == nil {
		return false
	}
	h.halt()
	s.release(h.held)
	return true
}

// halt stops the listener and waits for it to finish its requests.
func (h *viewerHost) halt() {
	h.stop()
	<-h.done
}

// startViewer serves the call's snapshot in a new viewer, holding a reference to it.
func (s *Service) startViewer(c *call, page fs.FS) (*viewerHost, error) {
	ln, err := web.Listen()
	if err != nil {
		return nil, err
	}
	v, err := web.New(c.d, c.snap, ln)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.mu.Lock()
	c.held.refs++ // the viewer's own reference, released when it stops
	s.mu.Unlock()
	ctx, stop := context.WithCancel(s.bg)
	h := &viewerHost{v: v, d: c.d, held: c.held, started: time.Now(), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		v.Serve(ctx)
	}()
	return h, nil
}

type visualizeArgs struct {
	NodeID string `json:"node_id,omitempty" jsonschema:"focus on this exact node ID"`
	Query  string `json:"query,omitempty" jsonschema:"open with this lexical search instead of a focus node" bounds:"maxLength=200"`
	View   string `json:"view,omitempty" jsonschema:"the first view (default nodes); flow, web and logic need node_id" bounds:"enum=nodes|flow|web|logic"`
}

func runVisualize(c *call, a visualizeArgs) (any, error) {
	// The schema bounds the query and names the views (visualizeArgs' tags); what it cannot
	// say is checked here.
	switch {
	case !c.svc.watch:
		return nil, problem.Errorf(problem.ViewerUnavailable, "this is a one-shot process: a viewer would stop with it")
	case !web.PageBuilt(c.svc.page):
		return nil, problem.Errorf(problem.ViewerUnavailable, "the graph browser page was not built into this binary")
	case a.NodeID != "" && a.Query != "":
		return nil, problem.Errorf(problem.InvalidArgument, "give node_id or query, not both")
	case a.View != "" && a.View != "nodes" && a.NodeID == "":
		return nil, problem.Errorf(problem.InvalidArgument, "the %s view needs a focus: give node_id", a.View)
	}
	if a.View == "" {
		a.View = "nodes"
	}
	focus, q, err := c.visualizeFocus(a)
	if err != nil {
		return nil, err
	}
	served := c.snap.Info()
	h, reused, err := c.svc.viewerFor(c)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"template": web.Template,
		"url":      h.v.URL(q),
		"reused":   reused,
		"focus":    focus,
		"snapshot": snapshotIdentity(served),
		"viewer":   viewerRecord(h, publication.Current),
		"note":     "open the URL in a browser on this machine; the viewer serves exactly this snapshot, and after the index changes the page says so: call docforge_visualize again",
	}, nil
}

// visualizeFocus checks what the viewer opens on (a node that exists, with Logic for the
// logic view; a query's matches; or the overview) and returns its description and the page
// URL's query.
func (c *call) visualizeFocus(a visualizeArgs) (map[string]any, url.Values, error) {
	focus := map[string]any{"mode": "overview", "view": a.View}
	q := url.Values{}
	switch {
	case a.NodeID != "":
		if _, err := c.snap.Resolve(c.ctx, []string{a.NodeID}); err != nil {
			return nil, nil, err
		}
		if a.View == "logic" {
			if _, err := c.snap.Logic(c.ctx, a.NodeID); err != nil {
				return nil, nil, err
			}
		}
		focus["mode"], focus["node_id"] = "node", a.NodeID
		q.Set("focus", a.NodeID)
		if a.View != "nodes" {
			q.Set("view", a.View)
		}
	case a.Query != "":
		res, err := c.snap.Search(c.ctx, a.Query, 0)
		if err != nil {
			return nil, nil, err
		}
		focus["mode"], focus["query"], focus["matches"], focus["matches_truncated"] = "query", a.Query, len(res.Hits), res.Truncated
		q.Set("q", a.Query)
	}
	return focus, q, nil
}

// viewerFor returns the binding's viewer of the call's snapshot: the running one when it
// serves that snapshot, else a new one, which replaces a viewer of an older snapshot.
func (s *Service) viewerFor(c *call) (h *viewerHost, reused bool, err error) {
	key := bindingKey(c.b)
	s.viewerMu.Lock()
	defer s.viewerMu.Unlock()
	s.mu.Lock()
	h = s.viewers[key]
	s.mu.Unlock()
	if h != nil && h.v.Snapshot() == c.snap {
		return h, true, nil
	}
	if h != nil {
		s.stopViewer(c.b)
	}
	if h, err = s.startViewer(c, s.page); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	s.viewers[key] = h
	s.mu.Unlock()
	return h, false, nil
}

func snapshotIdentity(info index.Info) map[string]any {
	return map[string]any{"generation": info.Generation, "source_hash": info.SourceHash, "source_identity": info.SourceIdentity,
		"index": info.Index, "node_count": info.NodeCount, "edge_count": info.EdgeCount}
}

func viewerRecord(h *viewerHost, state string) map[string]any {
	return map[string]any{"state": "running", "port": h.v.Port(), "started_at": h.started.UTC().Format(time.RFC3339),
		"last_activity_at": h.v.LastActivity().UTC().Format(time.RFC3339), "snapshot_state": state,
		"reclaimed_after_idle_seconds": int(protocol.ViewerIdleLimit.Seconds())}
}

// runVisualizationStatus reports the viewer's lifecycle and, separately, whether its snapshot
// is still the published index and whether the sources still match it. It never syncs,
// rebuilds or opens the index: a stat and a receipt read for the index, the watch's proof or
// else a stat walk for the sources.
func runVisualizationStatus(c *call, _ noInput) (any, error) {
	s := c.svc
	s.mu.Lock()
	h := s.viewers[bindingKey(c.b)]
	s.mu.Unlock()
	if h == nil {
		return map[string]any{"template": web.Template, "state": "stopped", "snapshot_state": publication.Unknown, "staleness": publication.Unknown,
			"freshness": map[string]string{"index": publication.Unknown, "source": publication.Unknown},
			"note":      "no viewer runs for this project: docforge_visualize starts one"}, nil
	}
	info := h.v.Snapshot().Info()
	idx := indexState(c.d, c.b.Policy(), info.Index)
	src := publication.Unknown
	if identity, err := index.SourceIdentity(c.ctx, c.d, c.watchedIdentity(c.d)); err == nil {
		src = publication.Stale
		if identity == info.SourceIdentity {
			src = publication.Current
		}
	}
	overall := publication.Unknown
	switch {
	case idx == publication.Stale || src == publication.Stale:
		overall = publication.Stale
	case idx == publication.Current && src == publication.Current:
		overall = publication.Current
	}
	c.env.Revision, c.env.SourceHash, c.env.Staleness = info.Generation, info.SourceHash, overall
	out := map[string]any{"template": web.Template, "state": "running", "snapshot_state": overall, "staleness": overall,
		"freshness": map[string]string{"index": idx, "source": src}, "url": h.v.URL(nil),
		"snapshot": snapshotIdentity(info), "viewer": viewerRecord(h, idx),
		"idle_seconds": int(time.Since(h.v.LastActivity()).Seconds())}
	if overall == publication.Stale {
		out["note"] = "the viewer still runs but shows an older snapshot and is never reused: docforge_visualize starts a viewer of the current index"
	}
	return out, nil
}

func runStopVisualization(c *call, _ noInput) (any, error) {
	stopped := c.svc.StopViewer(c.b)
	msg := "no viewer was running for this project"
	if stopped {
		msg = "the viewer stopped; its URL no longer answers"
	}
	return map[string]any{"template": web.Template, "state": "stopped", "stopped": stopped, "note": msg}, nil
}

// visualizationTools are the graph browser's tools, in the contract's order.
func visualizationTools() []ToolSpec {
	return []ToolSpec{
		define(ToolSpec{Name: "docforge_visualize", Description: fmt.Sprintf("Open the %s graph browser on the current index: a token-protected loopback URL for a focus node, one lexical query, or the overview, with the exact snapshot it serves. Reuses the running viewer while its snapshot is current; stops after an hour without browser activity.", web.Template),
			ReadOnly: true, syncs: true}, runVisualize),
		define(ToolSpec{Name: "docforge_stop_visualization", Description: "Stop this project's graph browser viewer, if one runs.",
			ReadOnly: true}, runStopVisualization),
		define(ToolSpec{Name: "docforge_visualization_status", Description: "The viewer's lifecycle (running or stopped) and, independently, its freshness: whether its snapshot is still the published index and whether the sources still match it. Never syncs, rebuilds or loads the project.",
			ReadOnly: true}, runVisualizationStatus),
	}
}
