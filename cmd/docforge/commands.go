package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/history"
	"github.com/docforge/docforge/manager"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
	"github.com/docforge/docforge/worker/taskcontext"
)

// env is what every command gets: its context, output streams and parsed flags.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	// tty is stderr unescaped, for the progress line only (terminal.go).
	tty   io.Writer
	root  string
	json  bool
	noAST bool
	args  []string

	// Command-specific flags (a tool command's are its toolFlags).
	rebuild bool
	query   string
	// One field per flag: init's project identity, changeset's states, reason, hash and
	// applier, render's and view's view.
	projectID, projectName string
	states, reason, hash   string
	applier, view          string
	socket                 string
	lifeFD                 int

	// toolFlags are the flags a tool command derived from its tool's schema; toolArgs the
	// arguments they and the positional ones give.
	toolFlags []toolFlag
	toolArgs  map[string]any

	noAutostart bool
	// managerStarted is the pid of the manager this command started because none answered.
	managerStarted int
	noOpen         bool
	stop           bool
	writer         string
	status         bool
	deep           bool

	dryRun         bool
	all            bool
	confirmSuspect bool

	// mcp-config's host, where it writes and what the entry binds.
	host, configFile, serverName, capabilityMode string
	write                                        bool
}

type command struct {
	args, help       string
	minArgs, maxArgs int
	flags            func(*flag.FlagSet, *env)
	run              func(*env) error
	// tool, for a command that is one read tool, derives the command's flags from the tool's
	// input schema and its arguments from the command line (env.toolArgs).
	tool *toolCommand
}

// define adds the command's own flags and its tool's to fs.
func (c command) define(fs *flag.FlagSet, e *env) {
	if c.tool != nil {
		c.tool.define(fs, e)
	}
	if c.flags != nil {
		c.flags(fs, e)
	}
}

// examples are the command lines each command's --help shows; TestEveryCommandTeaches keeps
// one for every command.
var examples = map[string]string{
	"init":         "docforge init\ndocforge init --name \"Courier\" ../courier",
	"sync":         "docforge sync\ndocforge sync --rebuild --json",
	"validate":     "docforge validate\ndocforge validate --json | jq .problems",
	"review":       "docforge review arch.store\ndocforge review --dry-run arch.store design.api",
	"stamp":        "docforge stamp --all --dry-run\ndocforge stamp --all",
	"drift":        "docforge drift",
	"status":       "docforge status\ndocforge status --json",
	"search":       "docforge search \"late events\"\ndocforge search 'retr*' --limit 5",
	"get":          "docforge get req.event-order",
	"filter":       "docforge filter --family requirements --tag api",
	"backlinks":    "docforge backlinks arch.store",
	"deps":         "docforge deps arch.store --json",
	"context":      "docforge context arch.store --limit 3\ndocforge context --query \"late events\"",
	"task-context": "docforge task-context --kind change \"rename the index publisher\"\ndocforge task-context --kind test --focus arch.store \"cover the retry path\"",
	"diff":         "docforge diff --limit 20",
	"worker":       "docforge worker --socket /tmp/docforge-worker.sock",
	"manager":      "docforge manager start\ndocforge manager status",
	"changeset":    "docforge changeset list\ndocforge changeset diff cs-rename-store\ndocforge changeset apply cs-rename-store --hash sha256:...",
	"render":       "docforge render\ndocforge render --status --deep",
	"call":         "docforge call docforge_search '{\"query\":\"late events\",\"limit\":2}'",
	"view":         "docforge view arch.store\ndocforge view --stop",
	"logic":        "docforge logic go:example.com/courier/store.Log.State",
	"impact":       "docforge impact arch.store --depth 2",
	"mcp-config":   "docforge mcp-config --host claude-code\ndocforge mcp-config --host vscode --write\ndocforge mcp-config --host claude-desktop --capability-mode read --write",
}

func commands() map[string]command {
	cat := &toolCatalogue{}
	tool := func(name string, positional ...string) *toolCommand {
		return &toolCommand{cat: cat, tool: name, positional: positional}
	}
	taskTool := tool("docforge_get_task_context", "task")
	taskTool.flagNames = map[string]string{"focus_node_id": "focus"}
	return map[string]command{
		"init": {"[DIR]", "Write docforge.toml and a .gitignore entry for the state directory. In a tree that already has Markdown (Hugo, Docusaurus, MkDocs, GitHub docs), the descriptor adopts it as it is: IDs from paths, families from folders, relations from links; init then prints what the first sync will find. In a tree with neither, it starts one: docs/ with a single example node to edit.", 0, 1,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.projectID, "id", "", "project `ID` (default: derived from the directory name)")
				fs.StringVar(&e.projectName, "name", "", "project display `NAME`")
			}, runInit, nil},
		"sync": {"", "Bring the index up to date: nothing when sources are unchanged, a per-file delta when few changed, a full build otherwise. Then merge when a merge is due: deltas of like size into one delta, and the deltas into a new base once they reach an eighth of its size, so that an edit writes in proportion to what it changed (a running worker merges in the background instead; answers are the same either way). In a git repository, also bring the history index up to date: task context reads the commits as evidence ([history] in docforge.toml bounds or turns it off).", 0, 0,
			func(fs *flag.FlagSet, e *env) {
				fs.BoolVar(&e.rebuild, "rebuild", false, "build from scratch even if the index is current")
			}, runSync, nil},
		"validate": {"", "Load every source and print every problem (bounded) with file, line, column, code and fix. Writes nothing.", 0, 0, nil, runValidate, nil},
		"review": {"ID...", reviewHelp, 1, 1000,
			func(fs *flag.FlagSet, e *env) {
				fs.BoolVar(&e.dryRun, "dry-run", false, "say what would be stamped; write nothing")
			}, runReview, nil},
		"stamp": {"--all", stampHelp, 0, 0,
			func(fs *flag.FlagSet, e *env) {
				fs.BoolVar(&e.all, "all", false, "stamp every document's relations that were never reviewed (required)")
				fs.BoolVar(&e.confirmSuspect, "confirm-suspect", false, "re-stamp suspect relations too, confirming them unread")
				fs.BoolVar(&e.dryRun, "dry-run", false, "say what would be stamped; write nothing")
			}, runStamp, nil},
		"drift":  {"", driftHelp, 0, 0, nil, runDrift, nil},
		"status": {"", "Say whether the index is current (a stat walk: no parsing, no reading of the index, no writes), what a running worker's source watch last reported, and how cold builds write the full text (an in-memory check of the linked SQLite, about 1 ms).", 0, 0, nil, runStatus, nil},
		"search": {"QUERY", "Find nodes: exact ID first, then ID prefix, then full text ranked by BM25. A word ending in * matches as a prefix.", 1, 1, nil, runSearch,
			tool("docforge_search", "query")},
		"get": {"ID", "Show one node with its metadata, relations and body.", 1, 1, nil, runGet,
			tool("docforge_get_node", "node_id")},
		"filter": {"", "List nodes whose metadata matches every given flag, ordered by ID.", 0, 0, nil, runFilter,
			tool("docforge_filter_nodes")},
		"backlinks": {"ID", "List the relations that point at a node.", 1, 1, nil, runBacklinks,
			tool("docforge_backlinks", "node_id")},
		"deps": {"ID", "List the relations a node declares.", 1, 1, nil, runDeps,
			tool("docforge_dependencies", "node_id")},
		"context": {"[ID]", "Bounded context for a node (or --query): the focus with its body, its direct neighbours, then what was left out. The same stream docforge_get_context pages over MCP.", 0, 1, nil, runContext,
			tool("docforge_get_context", "node_id")},
		"task-context": {"TASK...", taskContextHelp, 1, taskcontext.MaxTaskChars, nil, runTaskContext,
			taskTool},
		"diff": {"", "Page through the latest generation's changes (nodes and edges added, removed, changed). Never syncs.", 0, 0, nil, runDiff,
			tool("docforge_get_generation_diff")},
		"worker": {"", "Serve the project's tools over --socket (version-2 Worker gRPC service) until SIGTERM. The manager starts workers; run it by hand only to debug.", 0, 0,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.socket, "socket", "", "Unix `PATH` to listen on (required)")
				fs.IntVar(&e.lifeFD, "lifeline-fd", 0, "stop when this inherited descriptor reaches end of file (the manager's pipe; 0: none)")
			}, runWorker, nil},
		"manager": {"run|start|stop|status|install", managerHelp, 1, 1, nil, runManager, nil},
		"mcp-config": {"--host HOST", mcpConfigHelp, 0, 0,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.host, "host", "", "the MCP `HOST`: claude-code, claude-desktop, vscode or cursor (required)")
				fs.BoolVar(&e.write, "write", false, "merge the entry into the host's configuration file (a backup is kept) instead of printing it")
				fs.StringVar(&e.configFile, "config", "", "the configuration `FILE` to write (default: the host's own)")
				fs.StringVar(&e.serverName, "name", "", "the server's `NAME` in the host (default docforge; docforge-PROJECT_ID for claude-desktop)")
				fs.StringVar(&e.capabilityMode, "capability-mode", "", "bind this `MODE`: read, proposal (the bridge's default), application or operator")
			}, runMCPConfig, nil},
		"changeset": {"list|show|validate|diff|preview|abandon|apply [ID]", changesetHelp, 1, 2,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.states, "status", "", "list: which `STATE`s to show (draft, ready, stale, applied, abandoned, open, all; default draft and ready)")
				fs.StringVar(&e.view, "view", "", "preview: the declared view `ID` to render")
				fs.StringVar(&e.reason, "reason", "", "abandon: why, recorded in the receipt")
				fs.StringVar(&e.hash, "hash", "", "apply: the exact changeset `SHA256` you reviewed")
				fs.StringVar(&e.applier, "applier", "", "apply: the declared applier `ID` to act as (default: the only one declared)")
			}, runChangeset, nil},
		"render": {"", "Render each declared view (or --view ID) to its self-contained HTML page, atomically, with a publication receipt. --status says whether each page is current (receipts and stats only); --deep re-renders in memory and compares bytes. Neither writes.", 0, 0,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.view, "view", "", "render or check only the view with this `ID`")
				fs.BoolVar(&e.status, "status", false, "report each view's state instead of rendering: current, stale, unverified or missing (exit 1 unless all are current)")
				fs.BoolVar(&e.deep, "deep", false, "with --status: re-render in memory and compare byte for byte")
			}, runRender, nil},
		"call": {"TOOL [ARGUMENTS_JSON]", "Run one MCP tool (docforge_get_node, docforge_search, ...) through the project's worker under the manager, exactly as an MCP session would, and print its result envelope. Starts a manager when none answers.", 1, 2,
			func(fs *flag.FlagSet, e *env) {
				fs.BoolVar(&e.noAutostart, "no-autostart", false, "fail with manager_unavailable instead of starting a manager")
				fs.StringVar(&e.writer, "proposal-writer", "", "bind this declared `WRITER_ID` so proposal mutations are allowed (as docforge-mcp --proposal-writer)")
			}, runCall, nil},
		"view": {"[ID]", viewHelp, 0, 1,
			func(fs *flag.FlagSet, e *env) {
				fs.StringVar(&e.query, "query", "", "open with this lexical `QUERY` instead of a focus node")
				fs.StringVar(&e.view, "view", "", "the first `VIEW`: nodes (default), flow, web or logic (these three need an ID)")
				fs.BoolVar(&e.noOpen, "no-open", false, "print the URL only; do not start a browser")
				fs.BoolVar(&e.stop, "stop", false, "stop the project's running viewer instead")
				fs.BoolVar(&e.noAutostart, "no-autostart", false, "fail with manager_unavailable instead of starting a manager")
			}, runView, nil},
		"logic": {"ID", "Show the possible static control paths of a function, method or constructor node (Go, Python, TypeScript, JavaScript, Rust, Java, C#, Kotlin, C, C++): its steps (entry, conditions, loops, cases, returns, ...) and the edges between them.", 1, 1, nil, runLogic,
			tool("docforge_get_logic", "node_id")},
		"impact": {"ID", "List the nodes a change to ID may affect, breadth first. Stops at --depth, --limit or the --budget of examined edges, and says which.", 1, 1, nil, runImpact,
			tool("docforge_impact", "node_id")},
	}
}

// implementation fingerprints this process (hashing in the background); nil if the executable
// cannot be read, in which case builds record no fingerprint.
func implementation() *index.Implementation {
	im, err := index.CurrentImplementation()
	if err != nil {
		return nil
	}
	return im
}

// policy is the adapter policy the command runs under.
func (e *env) policy() string {
	if e.noAST {
		return golang.PolicyNoAST
	}
	return golang.PolicyAST
}

// descriptor finds and loads the project's descriptor, printing its problems if invalid.
func (e *env) descriptor() (*project.Descriptor, error) {
	root := e.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find project: %w", err)
		}
		if root, err = project.Find(wd); err != nil {
			return nil, err
		}
	}
	d, probs, err := project.Load(root)
	if err != nil {
		return nil, err
	}
	if d == nil {
		pe := problem.Errorf(problem.InvalidDescriptor, "%s has problems", filepath.Join(root, project.FileName))
		pe.Problems = probs
		if len(probs) > 0 {
			pe.Problem.Code = probs[0].Code
			if exitCode(pe.Problem.Code) != exitValidation {
				pe.Problem.Code = problem.InvalidDescriptor
			}
		}
		return nil, pe
	}
	return d, nil
}

// syncOnWorker syncs through the project's worker when one already runs: its source watch
// already knows whether anything changed, so a no-change check walks no tree (docforge_sync
// with trust_watch). It returns nil, nil when no worker runs.
func (e *env) syncOnWorker(d *project.Descriptor) (*worker.SyncAnswer, error) {
	b := protocol.Binding{ProjectRoot: d.Root, CapabilityMode: protocol.ModeRead, NoAST: e.noAST, Local: true}
	args, _ := json.Marshal(map[string]bool{"rebuild": e.rebuild, "trust_watch": !e.rebuild})
	out, ok, err := e.onRunningWorker(b, "docforge_sync", args)
	if !ok {
		return nil, nil
	}
	raw, err := e.result("docforge_sync", out, err)
	if err != nil {
		return nil, err
	}
	var res worker.SyncAnswer
	if err := json.Unmarshal(raw, &res); err != nil || res.Result == nil || res.Build == "" {
		return nil, fmt.Errorf("docforge_sync answered %.200s", raw)
	}
	return &res, nil
}

// syncWarningsShown is how many warnings sync prints; validate prints them all.
const syncWarningsShown = 5

// merge folds a run of the published generation's segments into one after a sync said a
// merge is due (index.Merge). The generation is already published and stays as it is when the merge fails, so a
// failure is reported and not fatal.
func (e *env) merge(d *project.Descriptor) {
	start := time.Now()
	m, err := index.Merge(e.ctx, d, index.MergeOptions{Policy: e.policy()})
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "merge: %v (the deltas stay; the next sync merges them)\n", err)
	case m.Merged > 0 && !e.json:
		noun := "deltas"
		if m.Merged == 1 {
			noun = "delta"
		}
		into := "into one delta"
		if m.Base {
			into = "into a new base"
		}
		fmt.Fprintf(e.stdout, "merged %d %s %s in %s\n", m.Merged, noun, into, time.Since(start).Round(time.Millisecond))
	}
}

func runSync(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	res, err := e.syncOnWorker(d)
	if err != nil {
		return err
	}
	if res == nil {
		// No worker runs: this process walks the sources and builds.
		opts := index.Options{Rebuild: e.rebuild, Policy: e.policy(), Implementation: implementation()}
		progress := newProgress(e.tty)
		opts.Progress = progress.update
		built, err := index.Sync(e.ctx, d, opts)
		progress.done()
		if err != nil {
			return err
		}
		res = &worker.SyncAnswer{Result: built}
		if res.MergeDue != index.MergeNone {
			// What a worker does in the background: the deltas' rows rank as a cold build's
			// only once merged, and at 8 deltas a sync would merge before publishing.
			defer e.merge(d)
		}
	}
	// The history beside the graph follows the repository, not the sources: a commit changes
	// no source. Bringing it up to date is no part of the sync's outcome; a failure is said.
	start := time.Now()
	hist, herr := worker.UpdateHistory(e.ctx, d)
	if e.json {
		return e.writeJSON(e.stdout, res)
	}
	printSync(e.stdout, res)
	switch {
	case herr != nil:
		fmt.Fprintf(e.stderr, "history: not brought up to date: %v; %s\n", herr, history.TurnOff)
	case hist.State == history.StateOff:
		fmt.Fprintf(e.stdout, "history: none (%s)\n", hist.Reason)
	default:
		fmt.Fprintf(e.stdout, "history: %d commits to %.12s (%s in %s)\n", hist.Commits, hist.Head, hist.State, time.Since(start).Round(time.Millisecond))
		if hist.Limited != "" {
			fmt.Fprintf(e.stdout, "history: partial: %s\n", hist.Limited)
		}
	}
	if n := res.WarningCount; n > 0 {
		shown := res.Warnings[:min(len(res.Warnings), syncWarningsShown)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf("; the first %d below, 'docforge validate' lists every one", len(shown))
		}
		fmt.Fprintf(e.stderr, "%s%s%s:\n", problem.Count(n, "warning"), byCode(res.WarningCodes), more)
		printProblems(e.stderr, shown)
	}
	return nil
}

// validation loads and checks every source of the project, writing nothing.
func (e *env) validation() (*source.Validation, error) {
	d, err := e.descriptor()
	if err != nil {
		return nil, err
	}
	return source.Validate(e.ctx, d, e.policy(), 0)
}

func runValidate(e *env) error {
	v, err := e.validation()
	if err != nil {
		return err
	}
	probs, inv, suspects := v.Problems, v.Inventory, source.Unconfirmed(v.Reviews)
	errs := len(problem.Errors(probs))
	warns := len(problem.OfSeverity(probs, problem.SeverityWarning))
	notes := len(probs) - errs - warns
	if e.json {
		if err := e.writeJSON(e.stdout, map[string]any{"valid": errs == 0, "files": len(inv.Files), "errors": errs,
			"warnings": warns, "notes": notes, "problems": probs, "suspect_relations": suspects}); err != nil {
			return err
		}
	} else {
		printProblems(e.stdout, probs)
		printSuspects(e.stdout, suspects)
		counts := problem.Count(warns, "warning")
		if notes > 0 {
			counts += ", " + problem.Count(notes, "note") + " (what DocForge could not read; nothing to fix if the compiler accepts the file)"
		}
		if errs == 0 {
			fmt.Fprintf(e.stdout, "valid: %s, %s\n", problem.Count(len(inv.Files), "source"), counts)
		} else {
			fmt.Fprintf(e.stdout, "invalid: %s, %s in %s\n", problem.Count(errs, "error"), counts, problem.Count(len(inv.Files), "source"))
		}
	}
	if errs > 0 {
		return exitError(exitValidation)
	}
	return nil
}

func runStatus(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	st, err := index.CheckStatus(e.ctx, d, e.policy(), "")
	if err != nil {
		return err
	}
	// What a worker's source watch last reported of itself: a watch that failed makes the
	// worker walk the tree until its next sync rebuilds it.
	var watch *worker.WatchHealth
	if h, ok := worker.ReadWatchHealth(d); ok {
		watch = &h
	}
	// How this build writes a cold build's full text: its own segment writer, or FTS5's
	// inserts when the linked SQLite is not the one that writer is proven against.
	ftsWriter, ftsReason, err := index.FullTextWriter(e.ctx)
	if err != nil {
		return err
	}
	if e.json {
		return e.writeJSON(e.stdout, struct {
			*index.Status
			Watch          *worker.WatchHealth `json:"watch,omitempty"`
			FullTextWriter string              `json:"full_text_writer"`
			FullTextReason string              `json:"full_text_writer_reason,omitempty"`
		}{st, watch, ftsWriter, ftsReason})
	}
	line := st.State
	if st.Publication != nil {
		line += fmt.Sprintf(" (generation %d, %d nodes, %d edges)", st.Publication.Graph.Generation, st.Publication.Graph.NodeCount, st.Publication.Graph.EdgeCount)
	}
	if st.Reason != "" {
		line += ": " + st.Reason
	}
	fmt.Fprintln(e.stdout, line)
	if ftsReason != "" {
		fmt.Fprintf(e.stdout, "full text: cold builds insert through FTS5 (%s)\n", ftsReason)
	}
	if watch != nil && (watch.State != "ok" || watch.Failures > 0) {
		fmt.Fprintf(e.stdout, "source watch (as a worker reported it at %s): %s; %d failures, %d repairs", watch.At, watch.State, watch.Failures, watch.Repairs)
		if watch.LastError != "" {
			fmt.Fprintf(e.stdout, "; last error: %s", watch.LastError)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

func runSearch(e *env) error {
	var r index.SearchResult
	return e.runQuery("docforge_search", &r, func(w io.Writer) { printSearch(w, &r, e.requestedLimit()) })
}

func runGet(e *env) error {
	var v index.NodeView
	return e.runQuery("docforge_get_node", &v, func(w io.Writer) { printNode(w, &v) })
}

func runFilter(e *env) error {
	d, err := e.descriptor()
	if err != nil {
		return err
	}
	family, _ := e.toolArgs["family"].(string)
	kind, _ := e.toolArgs["kind"].(string)
	if err := checkDeclared(d, family, kind); err != nil {
		return err
	}
	var l index.NodeList
	return e.runQuery("docforge_filter_nodes", &l, func(w io.Writer) { printNodeList(w, &l, e.requestedLimit()) })
}

// checkDeclared refuses a family or kind the project does not declare (the code family and
// the kinds the code adapters make count when there are code roots), suggesting the closest
// declared name:
// a filter on a misspelt name would otherwise list nothing, as if nothing matched.
func checkDeclared(d *project.Descriptor, family, kind string) error {
	families := d.FamilyNames()
	var kinds []string
	for _, f := range d.Families {
		kinds = append(kinds, f.Kinds...)
	}
	if len(d.Sources.CodeRoots) > 0 {
		families = append(families, source.CodeFamily)
		kinds = append(kinds, source.CodeKinds()...)
	}
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	if family != "" && !slices.Contains(families, family) {
		return problem.Errorf(problem.InvalidArgument, "--family %q is not a declared family%s; declared: %s", family, problem.Suggest(family, families), strings.Join(families, ", "))
	}
	if kind != "" && !slices.Contains(kinds, kind) {
		return problem.Errorf(problem.InvalidArgument, "--kind %q is not a declared kind%s; declared: %s", kind, problem.Suggest(kind, kinds), strings.Join(kinds, ", "))
	}
	return nil
}

func runBacklinks(e *env) error {
	var l index.LinkList
	return e.runQuery("docforge_backlinks", &l, func(w io.Writer) { printLinks(w, &l, "<-", e.requestedLimit()) })
}

func runDeps(e *env) error {
	var l index.LinkList
	return e.runQuery("docforge_dependencies", &l, func(w io.Writer) { printLinks(w, &l, "->", e.requestedLimit()) })
}

func runLogic(e *env) error {
	var l index.LogicView
	return e.runQuery("docforge_get_logic", &l, func(w io.Writer) { printLogic(w, &l) })
}

// runQuery runs one read tool through the worker's Service, as every client does, with a local
// binding (unbound by the MCP output limit), decodes its result into v and prints it with text; with
// --json it prints the envelope as an MCP client receives it. Arguments left at their zero
// The arguments are the command line's (env.toolArgs): a flag left out is not sent, so the
// tool's default applies.
// requestedLimit is the --limit the command line gave, 0 when none.
func (e *env) requestedLimit() int {
	n, _ := e.toolArgs["limit"].(int)
	return n
}

func (e *env) runQuery(tool string, v any, text func(io.Writer)) error {
	res, err := e.callTool(tool, e.toolArgs, true)
	if err != nil || res == nil {
		return err
	}
	if err := json.Unmarshal(res, v); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	text(e.stdout)
	return nil
}

// toolCall runs one MCP tool through the worker, exactly as the server would, and returns its
// result payload; with --json it prints the whole result and returns nil.
func (e *env) toolCall(tool string, args map[string]any) (json.RawMessage, error) {
	return e.callTool(tool, args, false)
}

// callTool runs one tool through a one-shot worker Service; local lifts the MCP output limit.
func (e *env) callTool(tool string, args map[string]any, local bool) (json.RawMessage, error) {
	d, err := e.descriptor()
	if err != nil {
		return nil, err
	}
	b := protocol.Binding{ProjectRoot: d.Root, CapabilityMode: protocol.ModeRead, NoAST: e.noAST, Local: local}
	argJSON, _ := json.Marshal(args)
	out, err := e.runTool(b, tool, argJSON)
	return e.payload(tool, out, err)
}

// runTool runs one tool for the binding: on the project's worker when one already runs under
// a manager (its source watch already knows whether anything changed, so a query walks no
// tree), else in a one-shot Service of this process. It starts no manager and no worker.
func (e *env) runTool(b protocol.Binding, tool string, args json.RawMessage) (json.RawMessage, error) {
	if out, ok, err := e.onRunningWorker(b, tool, args); ok {
		return out, err
	}
	impl, err := index.CurrentImplementation()
	if err != nil {
		return nil, err
	}
	svc := worker.NewService(impl, false)
	defer svc.Close()
	return svc.Call(e.ctx, b, tool, args)
}

// onRunningWorker calls tool on the binding's worker if a manager and that worker already run;
// ok is false when none could answer, and the caller answers itself.
func (e *env) onRunningWorker(b protocol.Binding, tool string, args json.RawMessage) (out json.RawMessage, ok bool, err error) {
	paths, perr := manager.DefaultPaths()
	if perr != nil {
		return nil, false, nil
	}
	session := manager.Attach(paths)
	defer session.Close()
	out, err = session.Call(e.ctx, b, tool, args)
	var te *protocol.ToolError
	if errors.As(err, &te) && unreachable(te.Code) {
		return nil, false, nil
	}
	return out, true, err
}

// unreachable reports whether a code says no running worker could answer: this process
// answers itself then.
func unreachable(c problem.Code) bool {
	return c == problem.ManagerUnavailable || c == problem.WorkerUnavailable || c == problem.ProtocolMismatch || c == problem.UnsafeRuntimeDir
}

// payload unwraps a tool's result envelope (result): with --json it prints the whole envelope,
// compact, and returns nil, as an MCP client receives it, so that its size is the one a token
// budget (task context) was kept within.
func (e *env) payload(tool string, out json.RawMessage, err error) (json.RawMessage, error) {
	res, err := e.result(tool, out, err)
	if err != nil || !e.json {
		return res, err
	}
	if _, err := fmt.Fprintf(e.stdout, "%s\n", out); err != nil {
		return nil, fmt.Errorf("write JSON: %w", err)
	}
	return nil, nil
}

// result is a tool's result from its envelope: its structured error as a problem the command
// reports with its code and remediation; its warnings (a stale answer, a follower, a recovered
// application) on stderr, once each.
func (e *env) result(tool string, out json.RawMessage, err error) (json.RawMessage, error) {
	var env struct {
		Result   json.RawMessage `json:"result"`
		Warnings []string        `json:"warnings"`
		Error    *struct {
			Code        problem.Code `json:"code"`
			Message     string       `json:"message"`
			Remediation string       `json:"remediation"`
		} `json:"error"`
	}
	if out == nil {
		return nil, err
	}
	if jerr := json.Unmarshal(out, &env); jerr != nil {
		return nil, fmt.Errorf("%s: %w", tool, jerr)
	}
	if env.Error != nil {
		pe := problem.Errorf(env.Error.Code, "%s", env.Error.Message)
		pe.Problem.Remediation = env.Error.Remediation
		return nil, pe
	}
	if err != nil {
		return nil, err
	}
	if !e.json {
		for _, w := range env.Warnings {
			fmt.Fprintf(e.stderr, "docforge: warning: %s\n", w)
		}
	}
	return env.Result, nil
}

func runWorker(e *env) error {
	if e.socket == "" {
		return problem.Errorf(problem.InvalidArgument, "--socket is required")
	}
	if e.root == "" {
		return problem.Errorf(problem.InvalidArgument, "--project-root is required for a worker")
	}
	root, err := filepath.Abs(e.root)
	if err != nil {
		return problem.Errorf(problem.InvalidArgument, "--project-root: %v", err)
	}
	b := protocol.Binding{ProjectRoot: root, NoAST: e.noAST}
	if _, err := b.Validate(); err != nil {
		return err
	}
	impl, err := index.CurrentImplementation()
	if err != nil {
		return err
	}
	ctx := e.ctx
	if e.lifeFD > 0 {
		// The manager holds the write end: when it dies, however it dies, this read ends
		// and the worker stops rather than outlive its supervisor.
		lifeline := os.NewFile(uintptr(e.lifeFD), "lifeline")
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			io.Copy(io.Discard, lifeline)
			cancel()
		}()
	}
	// As many scans at once as the process has cores, and two goroutine slots more than
	// cores: a point lookup sent while every core scans runs on a spare slot at once, as do
	// the watch's and the connection's own goroutines, and the kernel shares the cores
	// among the threads at a finer grain than Go's 10 ms preemption of a goroutine. Each
	// snapshot has a read connection for each scan and for two point lookups beside them
	// (docs/benchmarks.md, "Several agents at once").
	cores := runtime.GOMAXPROCS(0)
	svc := worker.NewService(impl, true, worker.WithScanLanes(cores))
	defer svc.Close()
	runtime.GOMAXPROCS(cores + 2)
	readers := cores + 2
	if n, err := strconv.Atoi(os.Getenv(readersEnv)); err == nil {
		readers = n
	}
	svc.SetReaders(readers)
	return worker.Serve(ctx, e.socket, b, svc)
}

// readersEnv, when set in the worker's environment (inherited from the manager), bounds the
// read connections each snapshot answers on; unset, the cores and two. It exists
// so that 'make bench' can compare the pool with one connection in one run.
const readersEnv = "DOCFORGE_READERS"

func runContext(e *env) error {
	res, err := e.toolCall("docforge_get_context", e.toolArgs)
	if err != nil || res == nil {
		return err
	}
	return printContext(e.stdout, res)
}

const taskContextHelp = `Gather the evidence for one task, as docforge_get_task_context gives it to agents: the
focus (--focus ID, else the nodes the task's words match), then the nodes the task kind's
relation categories reach, each with its source, content hash, graph path from the focus and
what the graph cannot prove about it, within a token --budget; then the gaps: categories the
project does not declare, searches that found nothing, and limits that cut the proof short.`

func runTaskContext(e *env) error {
	res, err := e.toolCall("docforge_get_task_context", e.toolArgs)
	if err != nil || res == nil {
		return err
	}
	return printTaskContext(e.stdout, res)
}

func runDiff(e *env) error {
	res, err := e.toolCall("docforge_get_generation_diff", e.toolArgs)
	if err != nil || res == nil {
		return err
	}
	return printDiff(e.stdout, res)
}

func runImpact(e *env) error {
	var r index.ImpactResult
	return e.runQuery("docforge_impact", &r, func(w io.Writer) { printImpact(w, &r) })
}

// progress draws a one-line counter on a terminal and stays silent otherwise.
type progress struct {
	w       io.Writer
	enabled bool
	last    time.Time
	drawn   bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	enabled := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			enabled = true
		}
	}
	return &progress{w: w, enabled: enabled}
}

func (p *progress) update(done, total int) {
	if !p.enabled || time.Since(p.last) < 100*time.Millisecond && done != total {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\rindexing %d/%d files", done, total)
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", 40)+"\r")
	}
}
