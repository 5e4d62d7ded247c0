// Command docforge is the DocForge command line: it syncs, validates and queries the project
// graph of the project containing the current directory (or --project-root).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/docs"
	"github.com/docforge/docforge/index"
)

// Exit codes, documented in --help and docs/errors.md.
const (
	exitOK         = 0
	exitValidation = 1
	exitUsage      = 2
	exitInternal   = 3
)

const usage = `docforge: a typed graph of your project's documentation.

Usage:
  docforge <command> [flags] [arguments]

Commands:
  init [DIR]             adopt the docs and code in DIR (default .): write docforge.toml, say
                         what the first sync will find
  sync                   bring the index up to date with the sources
  validate               check every source; print every problem with its position
  status                 say whether the index is current, without building anything
  review ID...           confirm a document's relations after reading what they point at
  stamp --all            stamp every never-reviewed relation once, when adopting DocForge
  drift                  per document: relations confirmed, suspect, dangling, never reviewed
  search QUERY           find nodes by ID, ID prefix, then full text
  get ID                 show one node: metadata, relations, body
  filter                 list nodes by --family --kind --status --authority --tag ...
  backlinks ID           list relations pointing at a node
  deps ID                list relations a node declares
  impact ID              list nodes a change to ID may affect (transitively)
  logic ID               show the control paths of a function or method node
  context [ID]           a node (or --query) with its neighbours, bodies included, paged
  task-context --kind K TASK
                         the evidence for one task (change, implementation, failure, ownership,
                         test, operation, release) within a token budget, with its gaps
  diff                   what the latest generation changed, paged (never syncs)
  render                 write each declared view as an HTML page; --status, --deep check them
  changeset list|show|validate|diff|preview|abandon|apply [ID]
                         review the changesets agents proposed; only apply (by exact hash)
                         writes canonical files
  view [ID]              open the graph browser (Nodes, Flow, Web, Logic) on the current index;
                         --stop stops it
  call TOOL [ARGS_JSON]  run one MCP tool through the manager's worker, as an MCP session does
  mcp-config --host HOST the entry an MCP host (claude-code, claude-desktop, vscode, cursor)
                         needs for this project; --write merges it into the host's config
  manager run|start|stop|status|install
                         the per-user daemon that runs one worker per project for MCP sessions
  worker                 serve one project's tools over a Unix socket; the manager starts these

Flags every command accepts:
  --project-root DIR     the project (default: nearest docforge.toml above the current directory)
  --json                 machine-readable output
  --no-ast               the no-AST policy: Go declarations from a lexical scanner, other code as text, no Logic
                         (the index records its policy; switching rebuilds it)

Help:
  help COMMAND           a command's own flags and an example (as 'docforge COMMAND --help')
  help format            the project format: docforge.toml, nodes, links, code nodes, views,
                         changesets (the page problem remediations point at)
  help errors            every error code with its meaning and what to do
  help tools             every MCP tool with its arguments

Exit codes: 0 ok, 1 validation problems, 2 usage error, unknown node or a request the policy
forbids, 3 internal error.
Flags go before or after the command.
`

func main() {
	index.ApplyMemorySettings()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// help prints a help topic: the project format, or a command's own help.
func help(ctx context.Context, cmds map[string]command, topic string, stdout, stderr io.Writer) int {
	topics := map[string]func() string{"format": docs.ProjectFormat, "errors": errorsReference, "tools": toolsReference}
	if page, ok := topics[topic]; ok {
		fmt.Fprint(stdout, strings.TrimPrefix(page(), generatedNote))
		return exitOK
	}
	if _, ok := cmds[topic]; ok {
		return run(ctx, []string{topic, "--help"}, stdout, stderr)
	}
	fmt.Fprintf(stderr, "docforge: no help topic %q%s; the topics are format, errors, tools and the commands ('docforge --help' lists them)\n",
		topic, problem.Suggest(topic, append(slices.Collect(maps.Keys(cmds)), slices.Collect(maps.Keys(topics))...)))
	return exitUsage
}

// run executes one command line and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) > 1 && args[0] == "help" {
		return help(ctx, cmds, args[1], stdout, stderr)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	args = commandFirst(cmds, args)
	cmd, ok := cmds[args[0]]
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "docforge: no command given (flags alone: %s)\n\n%s", strings.Join(args, " "), usage)
			return exitUsage
		}
		fmt.Fprintf(stderr, "docforge: unknown command %q%s; 'docforge --help' lists the commands\n", args[0], problem.Suggest(args[0], slices.Collect(maps.Keys(cmds))))
		return exitUsage
	}
	fs := flag.NewFlagSet("docforge "+args[0], flag.ContinueOnError)
	// The flag package's own messages are replaced by ours (with a suggestion) below.
	fs.SetOutput(io.Discard)
	// Everything printed goes through the terminal escape; the progress line alone, which
	// draws with a carriage return and prints no content, writes to stderr itself.
	env := &env{ctx: ctx, stdout: newTerminalWriter(stdout), stderr: newTerminalWriter(stderr), tty: stderr}
	fs.StringVar(&env.root, "project-root", "", "project root `DIR` (default: nearest docforge.toml above the current directory)")
	fs.BoolVar(&env.json, "json", false, "print JSON for scripts")
	fs.BoolVar(&env.noAST, "no-ast", false, "read Go code with the lexical declaration scanner and every other language as text: no parser, no function Logic")
	cmd.define(fs, env)
	printUsage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: docforge %s [flags] %s\n\n%s\n", args[0], cmd.args, cmd.help)
		if ex := examples[args[0]]; ex != "" {
			fmt.Fprintf(w, "\nExample:\n  %s\n", strings.ReplaceAll(ex, "\n", "\n  "))
		}
		fmt.Fprintf(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	fs.Usage = func() {}
	positional, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout) // asked for: the answer, on stdout
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "docforge %s: %s%s\n", args[0], err, flagSuggestion(fs, err))
		fmt.Fprintf(stderr, "Run 'docforge %s --help' for its flags and an example.\n", args[0])
		return exitUsage
	}
	if len(positional) < cmd.minArgs || len(positional) > cmd.maxArgs {
		fmt.Fprintf(stderr, "docforge %s: expected %s\n\n", args[0], cmd.args)
		printUsage(stderr)
		return exitUsage
	}
	env.args = positional
	if cmd.tool != nil {
		// A count outside its bounds is a mistake, never a request for the default: refused
		// here, with the flag's name, before anything runs.
		if env.toolArgs, err = cmd.tool.arguments(fs, env, positional); err != nil {
			var pe *problem.Error
			if errors.As(err, &pe) {
				fmt.Fprintf(stderr, "docforge %s: %s\n", args[0], pe.Problem.Message)
			}
			return exitUsage
		}
	}
	return env.report(cmd.run(env))
}

// globalValueFlags are the flags every command takes that have a value.
var globalValueFlags = map[string]bool{"project-root": true}

// commandFirst moves the command to the front when flags come before it (docforge
// --project-root X get ID): the first argument that is neither a flag nor the value of one.
// Which flags take values is read from every command's flag set.
func commandFirst(cmds map[string]command, args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	takesValue := maps.Clone(globalValueFlags)
	for _, c := range cmds {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		c.define(fs, &env{})
		fs.VisitAll(func(f *flag.Flag) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				takesValue[f.Name] = true
			}
		})
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args
		}
		if !strings.HasPrefix(a, "-") {
			out := append([]string{a}, args[:i]...)
			return append(out, args[i+1:]...)
		}
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && takesValue[name] {
			i++ // its value
		}
	}
	return args
}

// flagSuggestion is " (did you mean --x?)" for an unknown flag close to a defined one.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return problem.Suggest(strings.TrimPrefix(msg[len(prefix):], "-"), names)
}

// parseInterspersed lets flags follow positional arguments (docforge search wal --json).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// report prints err (if any) and maps it to an exit code.
func (e *env) report(err error) int {
	if err == nil {
		return exitOK
	}
	var silent exitError
	if errors.As(err, &silent) {
		return int(silent)
	}
	var pe *problem.Error
	if !errors.As(err, &pe) {
		pe = problem.Wrap(problem.Internal, err, "%v", err)
		pe.Err = nil
	}
	code := exitCode(pe.Problem.Code)
	if e.json {
		e.writeJSON(e.stdout, map[string]any{"error": pe.Problem, "problems": pe.Problems})
		return code
	}
	if len(pe.Problems) > 0 {
		printProblemSummary(e.stderr, pe.Problems)
	}
	msg := pe.Problem.Message
	if pe.Err != nil {
		msg += ": " + pe.Err.Error()
	}
	fmt.Fprintf(e.stderr, "docforge: %s: %s\n  fix: %s\n", pe.Problem.Code, msg, pe.Problem.Remediation)
	return code
}

// exitError is a command's chosen exit code after it printed its own output.
type exitError int

func (x exitError) Error() string { return fmt.Sprintf("exit %d", int(x)) }

func exitCode(c problem.Code) int {
	switch c {
	case problem.ProjectInvalid, problem.MalformedDescriptor, problem.InvalidDescriptor, problem.UnsupportedSchemaVersion,
		problem.ChangesetInvalid:
		return exitValidation
	case problem.DescriptorNotFound, problem.NodeNotFound, problem.InvalidArgument, problem.AdapterPolicyForbidsLogic,
		problem.ProposalAccessDisabled, problem.OperationNotPermitted, problem.ChangesetNotFound, problem.ChangesetConflict,
		problem.ChangesetStale, problem.ChangesetState, problem.PathEscape:
		return exitUsage
	}
	return exitInternal
}
