// Command docforge-mcp is DocForge's MCP server for one project, over stdio: a short-lived
// bridge that forwards every tool call to the project's worker, which the per-user manager
// runs (and which this bridge starts when none answers, unless --no-autostart). Its binding
// (the flags) is validated once at start and never changes; a bad binding exits with status
// 2 and one line on stderr before any MCP traffic, but for a root with no docforge.toml yet:
// that session starts, and each call answers descriptor_not_found with 'docforge init'. It opens no network listener and never
// touches the index.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/manager"
	"github.com/docforge/docforge/mcpbridge"
	"github.com/docforge/docforge/worker/protocol"
)

const usage = `docforge-mcp: the DocForge MCP server for one project, over stdio.

Usage:
  docforge-mcp --project-root /absolute/project [flags]

An MCP host starts it: 'docforge mcp-config --host claude-code|claude-desktop|vscode|cursor'
prints (--write merges) the host's entry for a project. Tool calls run in the
project's worker under the per-user manager ('docforge manager status' lists them); the
bridge starts a manager from the docforge command next to it (or on PATH) when none answers.
Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("docforge-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b protocol.Binding
	fs.StringVar(&b.ProjectRoot, "project-root", "", "absolute path of the project directory (required)")
	fs.StringVar(&b.ProposalWriter, "proposal-writer", "", "`WRITER_ID` from [[proposals.writers]] bound for proposal tools")
	fs.StringVar(&b.CanonicalApplier, "canonical-applier", "", "`APPLIER_ID` from [[proposals.appliers]] (the second, separate gate for application)")
	fs.StringVar(&b.CapabilityMode, "capability-mode", "", "read | proposal | application | operator (default proposal)")
	fs.BoolVar(&b.NoAST, "no-ast", false, "no go/ast and no function Logic: the lexical declaration scanner only")
	fs.BoolVar(&b.Diagnostics, "diagnostics", false, "add content-free stage timings and counters to every result")
	noAutostart := fs.Bool("no-autostart", false, "never start a manager: calls fail with manager_unavailable when none runs")
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "docforge-mcp: unexpected argument %q (every setting is a flag)\n", fs.Arg(0))
		return 2
	}
	_, err := b.Validate()
	if problem.CodeOf(err) == problem.DescriptorNotFound {
		// Serve anyway: a host whose server exits shows only "connection closed", while a
		// session that answers each call with the fix tells the user (and the agent) what to do.
		fmt.Fprintf(stderr, "docforge-mcp: %v; every tool call answers descriptor_not_found until you %s\n", err, mcpbridge.InitRemediation(b.ProjectRoot))
		return serve(mcpbridge.NewServer(b, mcpbridge.Uninitialised{}), stdin, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 2
	}
	paths, err := manager.DefaultPaths()
	if err != nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 2
	}
	var start manager.StartFunc
	if !*noAutostart {
		exe, err := manager.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
			return 2
		}
		start = func(ctx context.Context) error {
			_, err := manager.Start(ctx, exe, paths)
			return err
		}
	}
	session := manager.NewSession(paths, start)
	defer session.Close()
	// Reach the worker while the host initialises, so the first call finds it ready; a
	// failure here is reported by that call, with its code.
	prepare, cancel := context.WithCancel(context.Background())
	defer cancel()
	go session.Prepare(prepare, b)
	return serve(mcpbridge.NewServer(b, session), stdin, stdout, stderr)
}

// serve runs the MCP session over stdio until stdin ends or a signal arrives.
func serve(server *mcp.Server, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The gate in front of the SDK answers a malformed, batched, oversized or wrongly typed
	// line with a JSON-RPC error, so that no line ends the session.
	transport := &mcpbridge.Stdio{In: stdin, Out: stdout}
	// Stdin's end ends the session and this process, never the worker: the manager owns it.
	if err := server.Run(ctx, transport); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 3
	}
	return 0
}
