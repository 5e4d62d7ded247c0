package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// recallCutoffs are the k of files recall@k: an agent reads the first few files a capsule
// names, so these come before whole-response recall.
var recallCutoffs = []int{5, 10, 20}

// recallAt is the share of wanted files among the first k of ranked, a list of distinct
// source paths in response order.
func recallAt(ranked, wanted []string, k int) float64 {
	head := ranked[:min(k, len(ranked))]
	found := 0
	for _, f := range wanted {
		if slices.Contains(head, f) {
			found++
		}
	}
	return share(found, len(wanted))
}

// distinctInOrder keeps the first occurrence of each path.
func distinctInOrder(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// taskWordPattern and rankedStopwords are ../shared/eval/README.md's: task words are
// [A-Za-z_][A-Za-z0-9_]+ runs of at least three characters, less these stop words.
var taskWordPattern = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]+`)

func rankedStopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be by can do does for from how i in is it its of on or our should so
		that the their them then there these this to was we what when where which while who why will with without would add
		adds new make makes change`) {
		m[w] = true
	}
	return m
}

// taskWords are a task's distinct words for the ranked baseline, lower-cased, in order.
func taskWords(task string) []string {
	stop := rankedStopwords()
	var out []string
	for _, w := range taskWordPattern.FindAllString(task, -1) {
		w = strings.ToLower(w)
		if len(w) < 3 || stop[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// rankedBaseline is what an agent's first grep gives, as the README defines it: for each task
// word, `rg -i -c -F WORD` over the tree (hidden folders, ignored files and .docforge out, as
// rg leaves them by default, and the descriptor DocForge wrote); files ranked by how many
// distinct task words they hold, then by matching lines, then by path.
func rankedBaseline(ctx context.Context, root, task string) ([]string, error) {
	type score struct {
		words, lines int
	}
	files := map[string]*score{}
	for _, w := range taskWords(task) {
		counts, err := rgCounts(ctx, root, "-i", "-F", "--", w)
		if err != nil {
			return nil, err
		}
		for _, c := range counts {
			s := files[c.path]
			if s == nil {
				s = &score{}
				files[c.path] = s
			}
			s.words++
			s.lines += c.lines
		}
	}
	ranked := make([]string, 0, len(files))
	for p := range files {
		ranked = append(ranked, p)
	}
	sort.Slice(ranked, func(i, j int) bool {
		a, b := files[ranked[i]], files[ranked[j]]
		if a.words != b.words {
			return a.words > b.words
		}
		if a.lines != b.lines {
			return a.lines > b.lines
		}
		return ranked[i] < ranked[j]
	})
	return ranked, nil
}

// counted is one file of rg's --count output: its path from the root and its matching lines.
type counted struct {
	path  string
	lines int
}

// rgCounts runs `rg --count` with args over root (the descriptor DocForge wrote left out) and
// returns its files; no match is no file, not an error.
func rgCounts(ctx context.Context, root string, args ...string) ([]counted, error) {
	args = append([]string{"--count", "--no-messages", "--glob", "!docforge.toml"}, args...)
	cmd := exec.CommandContext(ctx, "rg", append(args, ".")...)
	cmd.Dir = root
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("rg %s: %w", strings.Join(args, " "), err)
	}
	var files []counted
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		var n int
		fmt.Sscan(line[i+1:], &n)
		files = append(files, counted{strings.TrimPrefix(line[:i], "./"), n})
	}
	return files, nil
}
