// Command docforge-mcp is DocForge's MCP server for one project, over stdio. Its binding
// (the flags) is validated once at start and never changes; a bad binding exits with status
// 2 and one line on stderr before any MCP traffic. It opens no network listener.
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

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/mcpbridge"
	"github.com/docforge/docforge/worker"
)

const usage = `docforge-mcp: the DocForge MCP server for one project, over stdio.

Usage:
  docforge-mcp --project-root /absolute/project [flags]

An MCP host starts it; see the README for an mcp.json example. Flags:
`

func main() {
	index.ApplyMemoryLimit()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("docforge-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b worker.Binding
	fs.StringVar(&b.ProjectRoot, "project-root", "", "absolute path of the project directory (required)")
	fs.StringVar(&b.ProposalWriter, "proposal-writer", "", "`WRITER_ID` from [[proposals.writers]] bound for proposal tools")
	fs.StringVar(&b.CanonicalApplier, "canonical-applier", "", "`APPLIER_ID` from [[proposals.appliers]] (the second, separate gate for application)")
	fs.StringVar(&b.CapabilityMode, "capability-mode", "", "read | proposal | application | operator (default proposal)")
	fs.BoolVar(&b.NoAST, "no-ast", false, "no go/ast and no function Logic: the lexical declaration scanner only")
	fs.BoolVar(&b.Diagnostics, "diagnostics", false, "add content-free stage timings and counters to every result")
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
	if _, err := b.Validate(); err != nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 2
	}
	impl, err := index.CurrentImplementation()
	if err != nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 3
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	svc := worker.NewService(impl, true)
	defer svc.Close()
	server := mcpbridge.NewServer(b, svc)
	transport := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := server.Run(ctx, transport); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "docforge-mcp: %v\n", err)
		return 3
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
