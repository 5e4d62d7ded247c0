package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docforge/docforge/index/history"
)

const historyUsage = `docforge-bench history: time the history index (index/history)

Usage:
  docforge-bench history (--git DIR | --synthetic N) [--runs 5] [--window 5000] [--work DIR]

Clones the repository at DIR (or generates one of N first-parent commits over 1,200 files
with git fast-import, a history the size of grpc-go's), then times: the cold index of the
window ending at HEAD (--runs times, each afresh), and one new commit added to it (the index
built at HEAD~runs, then HEAD moved forward one first-parent commit at a time). It prints the
medians, the commits indexed, and the peak resident memory the indexing added to this process.
`

func historyCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, historyUsage) }
	gitDir := fs.String("git", "", "a git repository to clone (a path or URL)")
	synthetic := fs.Int("synthetic", 0, "generate a history of this many commits instead")
	runs := fs.Int("runs", 5, "cold indexes, and new commits, to time")
	window := fs.Int("window", history.DefaultWindow.MaxCommits, "commits in the window")
	work := fs.String("work", "bench-out/history", "where the repository is cloned or generated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*gitDir == "") == (*synthetic == 0) || *runs < 1 {
		fs.Usage()
		return errors.New("give one of --git or --synthetic, and --runs of at least 1")
	}
	abs, err := filepath.Abs(*work)
	if err != nil {
		return err
	}
	*work = abs
	repo := filepath.Join(*work, "repo")
	if err := os.RemoveAll(*work); err != nil {
		return err
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		return err
	}
	if *synthetic > 0 {
		err = generateHistory(ctx, repo, *synthetic)
	} else {
		_, err = gitOut(ctx, *work, "clone", "-q", "--no-checkout", *gitDir, repo)
	}
	if err != nil {
		return err
	}
	head, err := gitOut(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	w := history.Window{MaxCommits: *window, MaxAge: 100 * 365 * 24 * time.Hour}
	dir := filepath.Join(*work, "index")
	base := currentRSSMiB()
	var cold []time.Duration
	var res history.Result
	for range *runs {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		start := time.Now()
		if res, err = history.Update(ctx, repo, dir, w); err != nil {
			return err
		}
		cold = append(cold, time.Since(start))
	}
	peak := selfPeakRSSMiB()
	line, err := gitOut(ctx, repo, "rev-list", "--first-parent", "-n", strconv.Itoa(*runs+1), head)
	if err != nil {
		return err
	}
	chain := strings.Fields(line)
	if len(chain) < *runs+1 {
		return fmt.Errorf("the history has %d commits; --runs %d needs %d", len(chain), *runs, *runs+1)
	}
	move := func(commit string) error {
		_, err := gitOut(ctx, repo, "update-ref", "--no-deref", "HEAD", commit)
		return err
	}
	if err := move(chain[*runs]); err != nil {
		return err
	}
	if _, err := history.Update(ctx, repo, dir, w); err != nil {
		return err
	}
	var step []time.Duration
	for i := *runs - 1; i >= 0; i-- {
		if err := move(chain[i]); err != nil {
			return err
		}
		start := time.Now()
		r, err := history.Update(ctx, repo, dir, w)
		if err != nil {
			return err
		}
		if r.State != history.StateIncremental || r.Added != 1 {
			return fmt.Errorf("moving HEAD one commit forward gave %+v", r)
		}
		step = append(step, time.Since(start))
	}
	fmt.Printf("| history | commits indexed | cold index, median (min-max) of %d | a new commit, median (max) of %d | peak RSS added |\n| --- | --- | --- | --- | --- |\n", *runs, *runs)
	what := *gitDir
	if *synthetic > 0 {
		what = fmt.Sprintf("synthetic, %d commits over 1,200 files", *synthetic)
	}
	fmt.Printf("| %s | %d | %.0f ms (%.0f-%.0f) | %.1f ms (%.1f) | %.0f MiB |\n", what, res.Commits,
		median(cold), percentile(cold, 0), percentile(cold, 100), median(step), percentile(step, 100), peak-base)
	return nil
}

// currentRSSMiB is this process's resident set now (Linux's VmRSS), or 0 where unknown.
func currentRSSMiB() float64 { return procStatusMiB("VmRSS:") }

// gitOut runs git in dir and returns its output, trimmed; a failure says what git said.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// historyWords make commit messages that read like a project's: a verb, then two or three
// of the rest.
var historyWords = strings.Fields(`add fix remove refactor update support handle rename document test
	transport stream server client balancer resolver credentials channel retry backoff deadline
	metadata interceptor codec compressor health reflection keepalive xds picker config status
	error logging metrics tracing buffer window flow control handshake tls certificate proxy`)

// generateHistory writes a repository of n first-parent commits with git fast-import: the
// first adds 1,200 files of 150 lines; each later one rewrites one to five ranges of lines
// in one to six files (about the patch grpc-go's commits average, 7 KB). The same n gives
// the same repository.
func generateHistory(ctx context.Context, repo string, n int) error {
	if _, err := gitOut(ctx, ".", "init", "-q", repo); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	const files, fileLines = 1200, 150
	content := make([][]string, files)
	for f := range content {
		for l := range fileLines {
			content[f] = append(content[f], fmt.Sprintf("\tline %d of file %d", l, f))
		}
	}
	name := func(f int) string { return fmt.Sprintf("pkg%02d/file%04d.go", f%60, f) }
	blob := func(f int) string { return "package p\n" + strings.Join(content[f], "\n") + "\n" }
	when := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for c := 1; c <= n; c++ {
		words := []string{historyWords[rng.IntN(9)]}
		for range 2 + rng.IntN(2) {
			words = append(words, historyWords[9+rng.IntN(len(historyWords)-9)])
		}
		msg := strings.Join(words, " ") + "\n\nWhy: " + strings.Join(words[1:], " and ") + ".\n"
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s", c, when+int64(c)*3600, len(msg), msg)
		if c > 1 {
			fmt.Fprintf(w, "from :%d\n", c-1)
		}
		var touched []int
		if c == 1 {
			for f := range files {
				touched = append(touched, f)
			}
		} else {
			for range 1 + rng.IntN(6) {
				f := rng.IntN(files)
				for range 1 + rng.IntN(5) {
					at := rng.IntN(len(content[f]))
					cut := min(len(content[f])-at, rng.IntN(8))
					var add []string
					for k := range rng.IntN(16) {
						add = append(add, fmt.Sprintf("\tchange %d.%d", c, k))
					}
					content[f] = append(content[f][:at], append(add, content[f][at+cut:]...)...)
				}
				touched = append(touched, f)
			}
		}
		for _, f := range touched {
			b := blob(f)
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", name(f), len(b), b)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := in.Close(); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	_, err = gitOut(ctx, repo, "symbolic-ref", "HEAD", "refs/heads/main")
	return err
}
