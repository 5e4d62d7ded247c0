// Command docforge-bench generates synthetic projects and measures the index on them: cold
// sync, the no-change identity check, a one-file edit, search and impact latency, and the peak
// resident memory of the process doing it all. `make bench` runs it; it is never part of
// `make test`, and nothing in it asserts a time.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

const usage = `docforge-bench: measure DocForge's index on synthetic projects

Usage:
  docforge-bench [--sizes 10000,100000] [--goroot=true] [--adopted 20000] [--dir bench-out] [--runs N] [--profile]
  docforge-bench --adopted-only [--adopted 20000]
  docforge-bench --stamps-only [--stamps 20000]
  docforge-bench measure --project DIR --nodes N [--runs N] [--profile] [--steps cold,nochange,edit,worker,queries,capsules,merge,session]
  docforge-bench measure-go --project DIR [--runs N]
  docforge-bench bridges --project DIR --nodes N
  docforge-bench replay --git DIR [--commits N] [--work DIR]
  docforge-bench history (--git DIR | --synthetic N) [--runs N] [--window N]

The first form generates (or reuses) one project per size under --dir, runs 'measure' on each
in a child process so its peak RSS is the child's own, and prints a Markdown report that can
be pasted into docs/benchmarks.md. With --goroot (the default) it also copies GOROOT/src
(without testdata) under --dir and measures the Go adapter on it; --sizes "" runs that alone. --profile writes CPU profiles of the cold sync and the
one-file edit next to each project (cold.pprof, edit.pprof). --adopted N also times a tree
of N Markdown files with YAML front matter and relative links, adopted through the descriptor
'docforge init' writes (cold sync, one-file edit); --adopted-only runs that alone. --stamps N
stamps a fresh such tree and times validation before and after, the stamping, and edits that
make relations suspect; --stamps-only runs that alone.

'measure' runs its steps in order on an existing project: cold syncs, no-change syncs, one-file
edits as a process without a watch syncs them (the walk, the file table read back), the same
edits as a worker syncs them (the folder named by its watch, its memory of the generation)
followed by edits answered through the real worker service, queries over the deltas the edits
published, the merge of those deltas with the queries again, and two edit sessions through
the worker (50 one-file edits, with a 2 s pause after each and with none: the bytes written,
then search and task context over what they left and over a freshly merged index). Without 'cold' it uses the
index as it is; the edit steps restore the files they change and sync them at the end, so the
project is current for the next run. 'measure-go' times cold and warm syncs and edits on the
GOROOT copy, both ways, and the same edit sessions. 'bridges' opens eight MCP sessions on one
synced project and times the same calls one session after another and all at once, with the
worker's snapshots on their pool of read connections and on one (the first form runs it at
100,000 nodes). 'replay' publishes a real repository's last N commits one by one as
edits and compares each generation's answers with a cold build of the same tree
('docforge-bench replay --help'). 'history' times the history index: cold, and a new commit
('docforge-bench history --help').
`

// genVersion changes whenever the generator's output changes, so stale projects are rebuilt.
const genVersion = "2"

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "docforge-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "measure" {
		return measureCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "bridges" {
		return bridgesCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "measure-go" {
		return measureGoCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "measure-corpus" {
		return measureCorpusCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "replay" {
		return replayCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "history" {
		return historyCommand(ctx, args[1:])
	}
	fs := flag.NewFlagSet("docforge-bench", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	sizes := fs.String("sizes", "10000,100000", "comma-separated node counts")
	dir := fs.String("dir", "bench-out", "where generated projects live")
	runs := fs.Int("runs", 0, "repetitions of each timed step (0: 5 cold syncs at 10k, 3 above; 15 edits)")
	profile := fs.Bool("profile", false, "write CPU profiles of the cold sync and the edit")
	goroot := fs.Bool("goroot", true, "also run the Go adapter over a copy of GOROOT/src")
	scripts := fs.Bool("scripts", true, "also run the tree-sitter adapters over Python's standard library and the TypeScript, Rust and Java corpora")
	scriptsOnly := fs.Bool("scripts-only", false, "measure only the tree-sitter adapters' corpora")
	corpora := fs.String("corpora", "../shared/corpora", "the folder of the TypeScript, Rust and Java corpus tarballs (each left out when missing)")
	mcpBench := fs.Bool("mcp", true, "also measure docforge-mcp over stdio on each synthetic project")
	mcpOnly := fs.Bool("mcp-only", false, "measure only docforge-mcp over stdio (the projects must have been synced)")
	viewerOnly := fs.Bool("viewer-only", false, "measure only the graph browser's viewer (the projects must have been synced)")
	renderSizes := fs.String("render-sizes", "10000", "comma-separated node counts (of --sizes) at which to measure rendering")
	adopted := fs.Int("adopted", 20000, "files of the adopted YAML tree with Markdown links to measure (0: none)")
	adoptedOnly := fs.Bool("adopted-only", false, "measure only the adopted tree")
	stamps := fs.Int("stamps", 20000, "files of a fresh adopted tree to stamp and validate (0: none)")
	stampsOnly := fs.Bool("stamps-only", false, "measure only review stamps")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var reports []report
	var mcpReports []*mcpReport
	var renderReports []*renderReport
	var ftsText string
	if *adoptedOnly {
		*sizes, *goroot, *stamps = "", false, 0
	}
	if *stampsOnly {
		*sizes, *goroot, *adopted = "", false, 0
	}
	if *scriptsOnly {
		*sizes, *goroot, *adopted, *stamps, *scripts = "", false, 0, 0, true
	}
	for _, f := range strings.Split(*sizes, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			return fmt.Errorf("--sizes: %q is not a node count of at least 10", f)
		}
		proj, err := ensureProject(*dir, n)
		if err != nil {
			return err
		}
		if *viewerOnly {
			vt, err := measureViewer(ctx, proj)
			if err != nil {
				return err
			}
			ftsText += vt
			continue
		}
		if !*mcpOnly {
			rep, err := measureChild(ctx, proj, n, *runs, *profile)
			if err != nil {
				return err
			}
			reports = append(reports, *rep)
		}
		if !*mcpOnly && slices.Contains(strings.Split(*renderSizes, ","), strconv.Itoa(n)) {
			rr, err := measureRender(ctx, proj, n)
			if err != nil {
				return err
			}
			renderReports = append(renderReports, rr)
		}
		if *mcpBench || *mcpOnly {
			mr, err := measureMCP(ctx, proj, n)
			if err != nil {
				return err
			}
			mcpReports = append(mcpReports, mr)
			if n >= 100000 {
				bf, err := measureBridges(ctx, proj, n)
				if err != nil {
					return err
				}
				ftsText += bridgesMarkdown(bf)
			}
			// The MCP run synced the project, so its index is there to read.
			t, err := measureFTS(proj)
			if err != nil {
				return err
			}
			ftsText += t
			vt, err := measureViewer(ctx, proj)
			if err != nil {
				return err
			}
			ftsText += vt
		}
	}
	text := markdown(reports) + renderMarkdown(renderReports) + mcpMarkdown(mcpReports) + ftsText
	if *adopted > 0 && !*mcpOnly && !*viewerOnly {
		t, err := measureAdopted(ctx, *dir, *adopted, *runs)
		if err != nil {
			return err
		}
		text += t
	}
	if *stamps > 0 && !*mcpOnly && !*viewerOnly {
		t, err := measureStamps(ctx, *dir, *stamps, *runs)
		if err != nil {
			return err
		}
		text += t
	}
	if *goroot && !*mcpOnly && !*viewerOnly {
		proj, err := ensureGoroot(*dir)
		if err != nil {
			return err
		}
		rep, err := measureGoChild(ctx, proj, *runs)
		if err != nil {
			return err
		}
		text += goMarkdown(rep)
	}
	if *scripts && !*mcpOnly && !*viewerOnly {
		t, err := measureScripts(ctx, *dir, *corpora, *runs)
		if err != nil {
			return err
		}
		text += t
	}
	fmt.Print(text)
	return os.WriteFile(filepath.Join(*dir, "report.md"), []byte(text), 0o644)
}

// ensureProject generates the project of n nodes unless an identical one is already there.
func ensureProject(dir string, n int) (string, error) {
	proj, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("p%d", n)))
	if err != nil {
		return "", err
	}
	return proj, generateOnce(proj, fmt.Sprintf("generator %s nodes %d\n", genVersion, n), func() error {
		fmt.Fprintf(os.Stderr, "generating %d nodes in %s ...\n", n, proj)
		start := time.Now()
		if err := newGenerator(n, 42).write(proj); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated in %s\n", time.Since(start).Round(time.Millisecond))
		return nil
	})
}

// generateOnce runs write unless proj's .generated marker already says want, then records
// want: generated projects are reused until their generator changes.
func generateOnce(proj, want string, write func() error) error {
	marker := filepath.Join(proj, ".generated")
	if got, err := os.ReadFile(marker); err == nil && string(got) == want {
		return nil
	}
	if err := write(); err != nil {
		return err
	}
	return os.WriteFile(marker, []byte(want), 0o644)
}

// measureChild runs 'measure' in a child process and adds the child's peak RSS to its report.
func measureChild(ctx context.Context, proj string, n, runs int, profile bool) (*report, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"measure", "--project", proj, "--nodes", strconv.Itoa(n), "--runs", strconv.Itoa(runs)}
	if profile {
		args = append(args, "--profile")
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("measure %d nodes: %w", n, err)
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("measure %d nodes: bad report: %w", n, err)
	}
	rep.Machine = machine()
	return &rep, nil
}

func machine() string {
	cpu := ""
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":")) + ", "
				break
			}
		}
	}
	return fmt.Sprintf("%s%d cores, %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
