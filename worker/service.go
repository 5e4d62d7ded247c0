package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/web"
	"github.com/docforge/docforge/worker/protocol"
)

// Service runs tools. It holds the implementation fingerprint taken when the process started
// and nothing else: every call names its binding, so one service can serve many projects.
type Service struct {
	impl  *index.Implementation
	mu    sync.Mutex
	lives map[string]*live  // per binding: source watch and current snapshot
	descs map[string]loaded // per project root: the descriptor, while its file is unchanged
	// tools are every tool, derived once (deriving and resolving their schemas takes about
	// 10 ms): by name, and in the contract's order.
	tools     map[string]ToolSpec
	toolOrder []ToolSpec
	watch     bool // start a source watch per binding

	stats   counters
	sources changeset.Cache // parsed sources for proposal checks, per project and policy
	diffs   diffCache       // the changeset diffs being paged through
	// provider is a project integration's own context selection; with one, the core task
	// planner is not offered (task_context_unavailable).
	provider ContextProvider
	// viewers are the running graph browsers, one per binding key; viewerMu serialises
	// starting and stopping them. page is the browser's embedded bundle.
	viewers  map[string]*viewerHost
	viewerMu sync.Mutex
	page     fs.FS
	// mergeQuiet is how long a binding's syncs must pause before a merge due for ranking
	// starts (scheduleQuietMerge); tests lengthen it to see what a call merges itself.
	mergeQuiet time.Duration
	// readers bounds the read connections of each snapshot the service opens (0: the
	// index's own bound, index.DefaultReaders).
	readers int
	// scans holds a token for each scan running (WithScanLanes); nil: unbounded.
	scans chan struct{}
	// proofAge is how long the watch's proof that no source changed is trusted without a
	// stat walk (WithProofAge).
	proofAge time.Duration
	bg       context.Context // background rebuilds; cancelled by Close
	stop     context.CancelFunc
	wg       sync.WaitGroup
}

// loaded is a descriptor with the stats of the files it was read from.
type loaded struct {
	sig string
	d   *project.Descriptor
}

// descriptor loads a project's descriptor, reusing the last load while the files it was
// read from (docforge.toml, and an MkDocs site's configuration when it reads one) keep the same
// size, mtime and inode: reading and validating it on every call is measurable, and a call
// stats only the files its descriptor depends on.
func (s *Service) descriptor(root string) (*project.Descriptor, []problem.Problem, error) {
	s.mu.Lock()
	l, cached := s.descs[root]
	s.mu.Unlock()
	if cached {
		if stats := configStats(root, l.d.ConfigFiles()); stats[project.FileName] != "" && signature(stats, l.d.ConfigFiles()) == l.sig {
			return l.d, nil, nil
		}
	}
	// Every file a descriptor may depend on, stat'ed before the load: a change during it
	// makes the next call load again.
	stats := configStats(root, append([]string{project.FileName}, project.MkDocsNames()...))
	d, probs, err := project.Load(root)
	if err == nil && d != nil && stats[project.FileName] != "" {
		s.mu.Lock()
		s.descs[root] = loaded{sig: signature(stats, d.ConfigFiles()), d: d}
		s.mu.Unlock()
	}
	return d, probs, err
}

// configStats are the size, mtime and inode of each named file under root, "" for one that
// is absent.
func configStats(root string, names []string) map[string]string {
	out := make(map[string]string, len(names))
	for _, name := range names {
		st, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			out[name] = ""
			continue
		}
		var ino uint64
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			ino = uint64(sys.Ino)
		}
		out[name] = fmt.Sprintf("%d/%d/%d", st.Size(), st.ModTime().UnixNano(), ino)
	}
	return out
}

// signature joins the stats of names.
func signature(stats map[string]string, names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(stats[n])
		b.WriteByte('|')
	}
	return b.String()
}

// Option configures a Service when it is made.
type Option func(*Service)

// WithContextProvider makes docforge_get_context answer from a project's own selection.
// Version 1 has no task-planner extension point, so such a server answers
// docforge_get_task_context with task_context_unavailable instead of the core planner.
func WithContextProvider(p ContextProvider) Option { return func(s *Service) { s.provider = p } }

// DefaultProofAge is how long a source watch's proof that nothing changed stands without a
// stat walk: an edit no event reports (through a hard link from outside the root, on a
// network file system, an event dropped) is answered as current for at most this long.
// From half of it on, a call starts a stat walk in the background that renews the proof
// (docs/benchmarks.md, "The watch's proof has an age").
const DefaultProofAge = 30 * time.Second

// WithProofAge sets how long the watch's proof stands without a stat walk (DefaultProofAge).
func WithProofAge(d time.Duration) Option { return func(s *Service) { s.proofAge = d } }

// NewService returns a service for a process whose implementation was fingerprinted at start.
// A long-lived process (the MCP server) watches sources so that unchanged calls skip the stat
// walk; a one-shot command passes watch = false. Close the service to stop its watches.
func NewService(impl *index.Implementation, watch bool, opts ...Option) *Service {
	order := Tools()
	tools := map[string]ToolSpec{}
	for _, t := range order {
		tools[t.Name] = t
	}
	bg, stop := context.WithCancel(context.Background())
	s := &Service{impl: impl, watch: watch, lives: map[string]*live{}, descs: map[string]loaded{}, tools: tools, toolOrder: order,
		viewers: map[string]*viewerHost{}, page: web.Page(), mergeQuiet: mergeQuiet, proofAge: DefaultProofAge, bg: bg, stop: stop}
	for _, o := range opts {
		o(s)
	}
	return s
}

// call is the state of one tool call.
type call struct {
	ctx     context.Context
	tool    string
	b       protocol.Binding
	d       *project.Descriptor
	snap    *index.Snapshot
	held    *held
	sync    *index.Result
	env     protocol.Envelope
	started time.Time
	stages  map[string]float64
	counts  map[string]int64
	svc     *Service
	// follower is set when another worker publishes the binding's index (follow); publishedBy
	// then says which.
	follower    bool
	publishedBy string
	// noDiagnostics drops the diagnostics of an answer whose budget cannot hold them.
	noDiagnostics bool
	// local answers a process on this machine (the CLI), which no MCP output limit binds.
	local bool
	// fallbacks are smaller results to answer with, in order, when a committed mutation's
	// full result does not fit; stageName and committed describe a mutation's failure.
	fallbacks []any
	stageName string
	committed *bool
}

func (c *call) stage(name string, since time.Time) {
	c.stages[name] += float64(time.Since(since).Microseconds()) / 1000
}

// Call runs one tool for a binding and returns its result as JSON. When the tool fails, the
// result is the structured error result and the error is a *protocol.ToolError naming its code.
// A local binding (the CLI) is answered whole: max_response_chars is the MCP output limit, so
// a local answer is never cut to fit it (paged tools still page).
func (s *Service) Call(ctx context.Context, b protocol.Binding, tool string, args json.RawMessage) (json.RawMessage, error) {
	s.stats.calls.Add(1)
	c := &call{ctx: ctx, tool: tool, b: b, svc: s, started: time.Now(), stages: map[string]float64{}, counts: map[string]int64{}, local: b.Local}
	c.env = protocol.Envelope{ContentNotice: protocol.ContentNotice, Adapter: publication.AdapterName + "@" + publication.AdapterVersion, Policy: b.Policy(), Staleness: publication.Unknown}
	payload, err := c.run(tool, args)
	c.identify(err)
	if err != nil {
		return c.fail(err)
	}
	c.env.Result = payload
	return c.fit()
}

// identify gives an protocol.Envelope that no sync filled (a tool that does not sync, a failure before
// the sync) the project's identity and the published generation it concerns, so that every
// answer says which project and index it is about; its staleness is what a stat walk says
// (stale for a worker that must restart). The one place that reads the publication for an
// protocol.Envelope.
func (c *call) identify(err error) {
	if c.env.Revision != 0 {
		return
	}
	if c.env.Project.Root == "" {
		c.env.Project.Root = c.b.ProjectRoot
	}
	d := c.env.Identify(c.b, c.d)
	if d == nil || c.env.Revision == 0 {
		return // no descriptor to name the project by (the error says why), or nothing published
	}
	switch {
	case err != nil && problem.CodeOf(err) == problem.AdapterRestartRequired:
		c.env.Staleness = publication.Stale
	default:
		if st, serr := index.CheckStatus(c.ctx, d, c.b.Policy(), c.watchedIdentity(d)); serr == nil {
			c.env.Staleness = st.State
		}
	}
}

func (c *call) run(tool string, args json.RawMessage) (any, error) {
	spec, ok := c.svc.tools[tool]
	if !ok {
		return nil, problem.Errorf(problem.InvalidArgument, "no tool %q in this server", tool)
	}
	if err := validateArgs(tool, spec.validator, args); err != nil {
		return nil, err
	}
	if err := c.svc.impl.Check(); err != nil {
		return nil, err
	}
	d, probs, err := c.svc.descriptor(c.b.ProjectRoot)
	if err != nil {
		return nil, err
	}
	if d == nil {
		pe := problem.Errorf(problem.InvalidDescriptor, "%s has problems; run docforge_validate_project", project.FileName)
		pe.Problems = probs
		return nil, pe
	}
	c.d = d
	c.env.Project = protocol.ProjectRef{ID: d.Project.ID, Name: d.Project.Name, Root: d.Root}
	if spec.corePlanner && c.svc.provider != nil {
		// Refused before any sync: the custom projection is never loaded for it.
		return nil, problem.Errorf(problem.TaskContextUnavailable, "this server's context comes from a custom context provider; version 1 has no custom task planner")
	}
	if spec.syncs || spec.Proposal() && !spec.destructive {
		// A proposal tool is a normal call too: its answer names a generation proven current,
		// and the node hashes it binds are the synchronized ones.
		if err := c.syncAndOpen(false, false); err != nil {
			return nil, err
		}
		defer c.done()
	} else if spec.mutates || spec.preview || spec.destructive {
		// A mutation answers about the published index: say which before it runs, so that its
		// preflight measures the protocol.Envelope it will send. Other tools that do not sync are
		// identified after they run, and only if they did not say themselves (render status
		// proves currency without a walk; this must not add one).
		c.identify(nil)
	}
	// The lane is taken after the sync: a scan waiting for the watch's barrier or for
	// another call's sync would hold a core's lane and use none of it.
	leave, err := c.svc.enterLane(c.ctx, spec)
	if err != nil {
		return nil, err
	}
	defer leave()
	start := time.Now()
	out, err := spec.run(c, args)
	c.stage("tool", start)
	return out, err
}

// syncAndOpen brings the index up to date and opens it. When the project has validation
// errors the previous index answers, marked stale, with a warning.
// An explicit sync (docforge_sync) always runs index.Sync; other calls skip it when the watch
// proves nothing changed. Syncs of one binding never overlap: a call that finds one running
// waits for it and then usually finds the index current.
func (c *call) syncAndOpen(rebuild, explicit bool) error {
	start := time.Now()
	l := c.svc.liveFor(c.b, c.d)
	defer func() {
		if msg, ok := l.repairNotice(); ok {
			c.env.Warnings = append(c.env.Warnings, msg)
		}
	}()
	if !c.svc.claim(l, c.d) {
		return c.follow(l, start)
	}
	trust := !rebuild && !explicit
	if trust && c.fast(l, start) {
		return nil
	}
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if trust && c.fast(l, start) {
		return nil // another call or the background rebuild synced while this one waited
	}
	res, err := c.svc.syncLocked(c.ctx, l, c.d, rebuild)
	c.stage("sync", start)
	staleness := "current"
	if err != nil {
		reason, ok := index.StaleReason(err)
		if !ok {
			return err
		}
		staleness = "stale"
		c.env.Warnings = append(c.env.Warnings, fmt.Sprintf("%s, so this answer comes from the last published generation; %s",
			reason, problem.Describe(problem.CodeOf(err)).Remediation))
	}
	if err == nil {
		if r := res.Recovered; r != nil {
			c.env.Warnings = append(c.env.Warnings, fmt.Sprintf("an interrupted application of changeset %s was %s before the sources were read", r.ChangesetID, strings.ReplaceAll(r.Action, "_", " ")))
		}
		c.sync = res
		c.counts["files_changed"] = int64(res.FilesChanged)
		c.counts["files_parsed"] = int64(res.FilesParsed)
	}
	start = time.Now()
	snap, oerr := index.OpenWith(c.ctx, c.d, l.policy)
	c.stage("open", start)
	if oerr != nil {
		if err != nil {
			return err // nothing published yet: the validation errors are the answer
		}
		return oerr
	}
	c.held = c.svc.install(l, snap)
	c.snap = snap
	info := snap.Info()
	c.env.Revision, c.env.SourceHash, c.env.Staleness = info.Generation, info.SourceHash, staleness
	return nil
}

// followerWait bounds how long a follower waits for the publishing worker to catch up with
// the sources before it answers stale.
const followerWait = 3 * time.Second

// follow answers from the index another worker publishes (this service could not claim the
// publisher lock): it never syncs, waits a little for that worker to publish what the files
// hold, and says that it follows and whether the answer is current.
func (c *call) follow(l *live, start time.Time) error {
	c.follower = true
	deadline := time.Now().Add(followerWait)
	var st *index.Status
	for {
		var err error
		if st, err = index.CheckStatus(c.ctx, c.d, l.policy, ""); err != nil {
			return err
		}
		if st.State == publication.Current || time.Now().After(deadline) {
			break
		}
		select {
		case <-c.ctx.Done():
			return c.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	c.stage("follow", start)
	snap, err := index.OpenWith(c.ctx, c.d, l.policy)
	if err != nil {
		return err
	}
	c.held = c.svc.install(l, snap)
	c.snap = snap
	info := snap.Info()
	staleness := "current"
	if st.State != publication.Current {
		staleness = "stale"
	}
	c.env.Revision, c.env.SourceHash, c.env.Staleness = info.Generation, info.SourceHash, staleness
	who := "another DocForge worker"
	if pid := publisherPid(c.d, l.policy); pid != "" {
		who += " (pid " + pid + ")"
	}
	c.publishedBy = who
	c.env.Warnings = append(c.env.Warnings, who+" publishes this project's index, so this one answers read-only from what it publishes and never syncs itself")
	return nil
}

// fast answers from the current snapshot when the watch proves no source changed since the
// index was proven current.
func (c *call) fast(l *live, start time.Time) bool {
	h := c.svc.current(c.ctx, l, c.d)
	if h == nil {
		return false
	}
	c.stage("watch", start)
	c.counts["walks_skipped"]++
	c.svc.stats.walksSkipped.Add(1)
	c.held, c.snap = h, h.snap
	info := h.snap.Info()
	c.env.Revision, c.env.SourceHash, c.env.Staleness = info.Generation, info.SourceHash, "current"
	return true
}

// watchedIdentity is the sources' identity by the watch's proof (call.watched), counted as a
// walk skipped; empty when the caller must walk (index.SourceIdentity).
func (c *call) watchedIdentity(d *project.Descriptor) string {
	info, _ := c.watched(d)
	return info.SourceIdentity
}

// watched is the published generation by the watch's proof (Service.watched), counted as a
// walk skipped.
func (c *call) watched(d *project.Descriptor) (index.Info, bool) {
	info, ok := c.svc.watched(c.ctx, c.b, d)
	if ok {
		c.counts["walks_skipped"]++
	}
	return info, ok
}

// walkSkipped reports whether the watch proved this call's index current (fast).
func (c *call) walkSkipped() bool { return c.counts["walks_skipped"] > 0 }

// done releases the call's snapshot.
func (c *call) done() {
	if c.held != nil {
		c.svc.release(c.held)
		c.held, c.snap = nil, nil
	}
}

// fail builds the structured error result.
func (c *call) fail(err error) (json.RawMessage, error) {
	var pe *problem.Error
	if !errors.As(err, &pe) {
		pe = problem.Wrap(problem.Internal, err, "%v", err)
	}
	body := &protocol.ErrorBody{Code: pe.Problem.Code, Message: pe.Problem.Message, Remediation: pe.Problem.Remediation, Problems: pe.Problems,
		Stage: c.stageName, MutationCommitted: c.committed}
	if body.Remediation == "" {
		body.Remediation = problem.Describe(body.Code).Remediation
	}
	if pe.Err != nil && body.Code != problem.Internal {
		body.Message += ": " + pe.Err.Error()
	}
	c.env.Result, c.env.Error = nil, body
	out, _ := c.fit()
	return out, &protocol.ToolError{Code: body.Code, Message: body.Message}
}

// fit encodes the protocol.Envelope within max_response_chars: diagnostics go first, then collection
// entries (the result says it was truncated by the response limit); an answer that still
// cannot fit is result_too_large.
func (c *call) fit() (json.RawMessage, error) {
	limit := 65536
	if c.d != nil {
		limit = c.d.Limits.MaxResponseChars
	}
	if c.b.Diagnostics && !c.noDiagnostics {
		c.env.Diagnostics = c.diagnostics()
	}
	out := protocol.Marshal(c.env)
	if len(out) <= limit || c.local && c.env.Error == nil {
		return out, nil
	}
	// Diagnostics are the first thing to go, before any part of the answer.
	c.env.Diagnostics = nil
	out = protocol.Marshal(c.env)
	if c.env.Error == nil {
		for _, fb := range c.fallbacks {
			if len(out) <= limit {
				break
			}
			c.env.Result = fb
			out = protocol.Marshal(c.env)
		}
	}
	for {
		out = protocol.Marshal(c.env)
		if len(out) <= limit {
			return out, nil
		}
		if !shrink(c.env.Result) {
			break
		}
	}
	if c.env.Error != nil {
		// Even the error does not fit: drop its problem list, which is the only part that grows.
		c.env.Error.Problems = nil
		return c.squeezed(limit), nil
	}
	c.env.Result = nil
	c.env.Error = &protocol.ErrorBody{Code: problem.ResultTooLarge, Message: fmt.Sprintf("the smallest answer is over max_response_chars (%d)", limit),
		Remediation: problem.Describe(problem.ResultTooLarge).Remediation}
	return c.squeezed(limit), &protocol.ToolError{Code: problem.ResultTooLarge, Message: c.env.Error.Message}
}

// squeezed encodes an error protocol.Envelope within limit characters, however long its texts: the
// message and remediation are shortened, then the project's name and root left out; the
// code, the identity hashes and the content notice always stay.
func (c *call) squeezed(limit int) json.RawMessage {
	out := protocol.Marshal(c.env)
	for _, text := range []*string{&c.env.Error.Message, &c.env.Error.Remediation, &c.env.Project.Root, &c.env.Project.Name} {
		if over := len(out) - limit; over > 0 {
			r := []rune(*text)
			*text = string(r[:max(0, len(r)-over-3)])
			if *text != "" {
				*text += "…"
			}
			out = protocol.Marshal(c.env)
		}
	}
	return out
}

// diagnostics folds the call's measurements into the fixed stages: a sync's loaders' parse
// and extraction time (summed over goroutines) are their own stages, the rest of syncing,
// opening and proving the index is index work, and the tool's own time counts as rendering
// or viewer-manager work for the tools that do that.
func (c *call) diagnostics() *protocol.Diagnostics {
	// The same keys on every answer, 0 where nothing ran: the contract's fixed aggregate.
	stages := map[string]float64{"source_parsing": 0, "adapter_extraction": 0, "index": 0, "rendering": 0, "viewer_manager": 0, "tool": 0, "total": 0}
	counts := map[string]int64{"files_changed": 0, "files_parsed": 0, "syncs": 0, "walks_skipped": 0, "edges_examined": 0}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	index := c.stages["sync"] + c.stages["open"] + c.stages["watch"] + c.stages["follow"]
	if c.sync != nil {
		stages["source_parsing"], stages["adapter_extraction"] = ms(c.sync.ParseTime), ms(c.sync.ExtractTime)
		counts["syncs"] = 1
	}
	stages["index"] = index
	switch tool := c.stages["tool"]; {
	case strings.HasPrefix(c.tool, "docforge_render") || c.tool == "docforge_preview_changeset" || c.tool == "docforge_apply_changeset":
		stages["rendering"] = tool
	case strings.Contains(c.tool, "visuali"):
		stages["viewer_manager"] = tool
	default:
		stages["tool"] = tool
	}
	stages["total"] = ms(time.Since(c.started))
	counts["files_changed"], counts["files_parsed"], counts["walks_skipped"] = c.counts["files_changed"], c.counts["files_parsed"], c.counts["walks_skipped"]
	counts["edges_examined"] = c.counts["task_edges_examined"]
	return &protocol.Diagnostics{Version: 1, StagesMs: stages, Counters: counts}
}

// decodeArgs reads a tool's arguments strictly: unknown fields are errors.
func decodeArgs(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		return nil
	}
	err := decodeStrict(args, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		// JSON Schema counts 2.0 and 2e0 as integers, and the schema passed them: decode
		// them as the integers they are.
		if whole, ok := wholeNumbers(args); ok {
			err = decodeStrict(whole, v)
		}
	}
	if err != nil {
		return problem.Errorf(problem.InvalidArgument, "arguments: %v", err)
	}
	return nil
}

func decodeStrict(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// wholeNumbers is args with every number of integral value written as an integer (2.0 as 2).
func wholeNumbers(args json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	var rewrite func(v any) any
	rewrite = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10))
			}
		case map[string]any:
			for k, e := range v {
				v[k] = rewrite(e)
			}
		case []any:
			for i, e := range v {
				v[i] = rewrite(e)
			}
		}
		return v
	}
	out, err := json.Marshal(rewrite(v))
	return out, err == nil
}
