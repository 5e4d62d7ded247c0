// Command docforge-eval measures evidence quality: it adopts a real repository as a new user
// would (extract, git init, docforge init, docforge sync), runs a task set's tasks through
// `docforge task-context` and its queries through `docforge search`, and scores the answers
// against the set's ground truth beside a ripgrep baseline given the same budget, in the same
// run. The task-set format and the scoring rules are in ../shared/eval/README.md; `make eval`
// runs it on the development set.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// TaskSet is a task set file (../shared/eval/README.md).
type TaskSet struct {
	Repo   string  `json:"repo"`
	Commit string  `json:"commit"`
	Budget int     `json:"budget"`
	Tasks  []Task  `json:"tasks"`
	Query  []Query `json:"queries"`
}

// Task is one task with the files and symbols an engineer must read for it.
type Task struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Task    string   `json:"task"`
	Files   []string `json:"files"`
	Symbols []string `json:"symbols"`
}

// Query is one search query with the answers that count as a hit.
type Query struct {
	Q    string   `json:"q"`
	Want []string `json:"want"`
}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "docforge-eval:", err)
		os.Exit(1)
	}
}

type options struct {
	set, corpus, project, work, docforge, out string
	// git, when set, is where the set's repository is cloned from with its history (%s
	// stands for the repository's name), instead of extracting the corpus.
	git            string
	budget, repeat int
	keep           bool
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	var o options
	fs := flag.NewFlagSet("docforge-eval", flag.ContinueOnError)
	fs.StringVar(&o.set, "set", "", "task set JSON file (required)")
	fs.StringVar(&o.corpus, "corpus", "", "a .tar.gz of the repository the set is about; it is extracted afresh into --work")
	fs.StringVar(&o.project, "project", "", "an already adopted project directory to use instead of --corpus")
	fs.StringVar(&o.work, "work", "bench-out/eval", "where the corpus is extracted and adopted")
	fs.StringVar(&o.docforge, "docforge", "bin/docforge", "the docforge binary to measure")
	fs.StringVar(&o.out, "out", "", "also write the report (Markdown) to this file")
	fs.IntVar(&o.budget, "budget", 0, "token budget for every task (default: the set's, else 8000)")
	fs.IntVar(&o.repeat, "repeat", 3, "runs of each task-context call; latency is their median")
	fs.BoolVar(&o.keep, "keep", false, "keep an existing extraction in --work instead of extracting afresh")
	fs.StringVar(&o.git, "git", "", "clone the set's repository with its history from this URL or path (%s: the repository's name, such as go-sdk) and check out the set's commit, instead of extracting --corpus")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: docforge-eval --set SET.json (--corpus REPO.tar.gz | --project DIR) [flags]\n\n"+
			"Adopts the repository as a new user would (git init, docforge init, docforge sync), runs every\n"+
			"task through 'docforge task-context --json' and every query through 'docforge search --json\n"+
			"--limit 3', and prints files recall@5/10/20, content coverage, file and symbol recall, precision,\n"+
			"whole-response tokens and latency per task and in total, beside two ripgrep baselines in the\n"+
			"same run: the ranked one of ../shared/eval/README.md, and whole files within the same budget.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.set == "" || (o.corpus == "" && o.git == "") == (o.project == "") {
		fs.Usage()
		return errors.New("--set and exactly one of --corpus (or --git) or --project are required")
	}
	if _, err := exec.LookPath("rg"); err != nil {
		return errors.New("ripgrep (rg) is needed for the baseline: apt-get install ripgrep")
	}
	set, err := readTaskSet(o.set)
	if err != nil {
		return err
	}
	o.budget = cmp.Or(o.budget, set.Budget, 8000)
	if o.docforge, err = filepath.Abs(o.docforge); err != nil {
		return err
	}
	root := o.project
	if o.corpus != "" || o.git != "" {
		if root, err = adopt(ctx, o, set); err != nil {
			return err
		}
	}
	rep, err := measure(ctx, o, set, root)
	if err != nil {
		return err
	}
	text := rep.markdown()
	fmt.Fprint(stdout, text)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	return nil
}

// readTaskSet reads a task set file.
func readTaskSet(path string) (TaskSet, error) {
	var set TaskSet
	raw, err := os.ReadFile(path)
	if err != nil {
		return set, fmt.Errorf("read task set: %w", err)
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return set, fmt.Errorf("task set %s: %w", path, err)
	}
	return set, nil
}

// measure runs every task and query of the set on the adopted project at root, with the
// ripgrep baselines of each task.
func measure(ctx context.Context, o options, set TaskSet, root string) (*report, error) {
	rep := &report{set: set, budget: o.budget, root: root}
	for _, t := range set.Tasks {
		r, err := runTask(ctx, o, root, t)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		if r.base, err = baseline(ctx, root, t, o.budget); err != nil {
			return nil, fmt.Errorf("baseline %s: %w", t.ID, err)
		}
		rg, err := rankedBaseline(ctx, root, t.Task)
		if err != nil {
			return nil, fmt.Errorf("ranked baseline %s: %w", t.ID, err)
		}
		for _, k := range recallCutoffs {
			r.rgRecall = append(r.rgRecall, recallAt(rg, t.Files, k))
		}
		rep.tasks = append(rep.tasks, r)
	}
	for _, q := range set.Query {
		r, err := runQuery(ctx, o, root, q)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Q, err)
		}
		rep.queries = append(rep.queries, r)
	}
	return rep, nil
}

// adopt extracts the corpus into a fresh directory and adopts it exactly as the README of
// the task sets says: git init, docforge init, docforge sync, no hand edits.
func adopt(ctx context.Context, o options, set TaskSet) (string, error) {
	work, err := filepath.Abs(o.work)
	if err != nil {
		return "", err
	}
	if !o.keep {
		if err := os.RemoveAll(work); err != nil {
			return "", err
		}
	}
	entries, _ := os.ReadDir(work)
	if len(entries) == 0 {
		if err := os.MkdirAll(work, 0o755); err != nil {
			return "", err
		}
		if o.git != "" {
			// The set's commit with the history that leads to it: the plain corpus has none.
			name := path.Base(set.Repo)
			src := strings.ReplaceAll(o.git, "%s", name)
			dst := filepath.Join(work, name)
			if _, err := command(ctx, work, "git", "clone", "-q", "--no-checkout", src, dst); err != nil {
				return "", fmt.Errorf("clone %s: %w", src, err)
			}
			if _, err := command(ctx, dst, "git", "checkout", "-q", "--detach", set.Commit); err != nil {
				return "", fmt.Errorf("check out %s: %w", set.Commit, err)
			}
		} else if _, err := command(ctx, work, "tar", "-xzf", mustAbs(o.corpus), "-C", work); err != nil {
			return "", err
		}
		if entries, err = os.ReadDir(work); err != nil {
			return "", err
		}
	}
	if len(entries) != 1 || !entries[0].IsDir() {
		return "", fmt.Errorf("%s should hold one extracted repository folder", work)
	}
	root := filepath.Join(work, entries[0].Name())
	if _, err := os.Stat(filepath.Join(root, "docforge.toml")); err != nil {
		if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
			if _, err := command(ctx, root, "git", "init", "-q"); err != nil {
				return "", err
			}
		}
		if out, err := command(ctx, root, o.docforge, "init"); err != nil {
			return "", fmt.Errorf("docforge init: %w\n%s", err, out)
		}
	}
	start := time.Now()
	out, err := command(ctx, root, o.docforge, "sync")
	if err != nil {
		return "", fmt.Errorf("docforge sync: %w\n%s", err, out)
	}
	fmt.Fprintf(os.Stderr, "adopted %s: %s (%s)\n", root, strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]), time.Since(start).Round(time.Millisecond))
	return root, nil
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// command runs name in dir and returns its standard output.
func command(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// taskResult is one task's score.
type taskResult struct {
	task                   Task
	items                  int
	fileRecall, symRecall  float64
	precision              float64
	tokens                 int
	latency                time.Duration
	missedFiles, missedSym []string
	base                   baseResult
	// recall is files recall@k for each of recallCutoffs, over the distinct source paths of
	// the items in response order; content the share of wanted files that an evidence item
	// (one that carries content, not a pointer) has as its source path.
	recall  []float64
	content float64
	// rgRecall is the ranked ripgrep baseline's files recall@k, from the same run.
	rgRecall []float64
}

// evidence is the part of a task-context item the scoring reads.
type evidence struct {
	Type       string `json:"type"`
	NodeID     string `json:"node_id"`
	SourcePath string `json:"source_path"`
}

// contractKind is the task kind the contract names for a set's kind: the sets also write
// "review" (a change read before it lands: what it touches) and "explain" (how something
// works: what implements it), which the contract's kinds cover.
func contractKind(kind string) string {
	switch kind {
	case "review":
		return "change"
	case "explain":
		return "implementation"
	}
	return kind
}

func runTask(ctx context.Context, o options, root string, t Task) (taskResult, error) {
	r := taskResult{task: t}
	var out string
	var times []time.Duration
	for i := 0; i < max(1, o.repeat); i++ {
		start := time.Now()
		var err error
		out, err = command(ctx, root, o.docforge, "task-context", "--kind", contractKind(t.Kind), "--budget", fmt.Sprint(o.budget), "--json", t.Task)
		if err != nil {
			return r, err
		}
		times = append(times, time.Since(start))
	}
	r.latency = median(times)
	r.tokens = len(strings.TrimRight(out, "\n")) / 4
	var env struct {
		Result struct {
			Items []evidence `json:"items"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		return r, fmt.Errorf("decode task-context output: %w", err)
	}
	var ev []evidence
	for _, it := range env.Result.Items {
		if it.NodeID != "" && it.SourcePath != "" {
			ev = append(ev, it)
		}
	}
	r.items = len(ev)
	var order []string
	withContent := map[string]bool{}
	for _, e := range ev {
		order = append(order, e.SourcePath)
		if e.Type == "evidence" {
			withContent[e.SourcePath] = true
		}
	}
	ranked := distinctInOrder(order)
	for _, k := range recallCutoffs {
		r.recall = append(r.recall, recallAt(ranked, t.Files, k))
	}
	covered := 0
	for _, f := range t.Files {
		if withContent[f] {
			covered++
		}
	}
	r.content = share(covered, len(t.Files))
	paths := map[string]bool{}
	inSet := 0
	for _, e := range ev {
		paths[e.SourcePath] = true
		if slices.Contains(t.Files, e.SourcePath) {
			inSet++
		}
	}
	for _, f := range t.Files {
		if !paths[f] {
			r.missedFiles = append(r.missedFiles, f)
		}
	}
	for _, s := range t.Symbols {
		if !slices.ContainsFunc(ev, func(e evidence) bool { return symbolMatch(e.NodeID, s) }) {
			r.missedSym = append(r.missedSym, s)
		}
	}
	r.fileRecall = share(len(t.Files)-len(r.missedFiles), len(t.Files))
	r.symRecall = share(len(t.Symbols)-len(r.missedSym), len(t.Symbols))
	r.precision = share(inSet, len(ev))
	return r, nil
}

// symbolMatch is the README's rule: the node ID ends with .SYMBOL or /SYMBOL, or equals it.
func symbolMatch(id, sym string) bool {
	return id == sym || strings.HasSuffix(id, "."+sym) || strings.HasSuffix(id, "/"+sym)
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// queryResult is one search query's outcome.
type queryResult struct {
	query Query
	hit   bool
	top   []string
}

func runQuery(ctx context.Context, o options, root string, q Query) (queryResult, error) {
	r := queryResult{query: q}
	out, err := command(ctx, root, o.docforge, "search", "--json", "--limit", "3", q.Q)
	if err != nil {
		return r, err
	}
	var env struct {
		Result struct {
			Hits []struct {
				ID         string `json:"id"`
				SourcePath string `json:"source_path"`
			} `json:"hits"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		return r, fmt.Errorf("decode search output: %w", err)
	}
	for _, h := range env.Result.Hits {
		r.top = append(r.top, h.ID)
		for _, w := range q.Want {
			if strings.HasSuffix(h.ID, w) || strings.HasSuffix(h.SourcePath, w) {
				r.hit = true
			}
		}
	}
	return r, nil
}

// baseResult is what the ripgrep baseline hands an agent for the same budget.
type baseResult struct {
	files      []string
	fileRecall float64
	precision  float64
	tokens     int
}

// baseline is ripgrep over the task's words (stopwords dropped, case-insensitive, whole
// words): files ranked by their number of matching lines, then whole files added in that
// order while they fit the budget (bytes / 4); a file that does not fit is skipped and the
// next tried, which is the generous reading of "until the budget is spent".
func baseline(ctx context.Context, root string, t Task, budget int) (baseResult, error) {
	var r baseResult
	args := []string{"--ignore-case", "--word-regexp"}
	for _, w := range words(t.Task) {
		args = append(args, "-e", w)
	}
	files, err := rgCounts(ctx, root, args...)
	if err != nil {
		return r, err
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].lines != files[j].lines {
			return files[i].lines > files[j].lines
		}
		return files[i].path < files[j].path
	})
	inSet := 0
	for _, f := range files {
		st, err := os.Stat(filepath.Join(root, f.path))
		if err != nil {
			continue
		}
		cost := int(st.Size()+3) / 4
		if r.tokens+cost > budget {
			continue
		}
		r.tokens += cost
		r.files = append(r.files, f.path)
		if slices.Contains(t.Files, f.path) {
			inSet++
		}
	}
	found := 0
	for _, f := range t.Files {
		if slices.Contains(r.files, f) {
			found++
		}
	}
	r.fileRecall = share(found, len(t.Files))
	r.precision = share(inSet, len(r.files))
	return r, nil
}

// words are the task's distinct words of three or more letters, English stopwords dropped.
func words(task string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if len(w) < 3 || stopwords[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be because been
		before being below between both but by can could did do does doing down during each few for from further get gets
		had has have having he her here hers him his how i if in into is it its itself just let lets like may me more most
		must my no nor not now of off on once only or other our ours out over own same she should so some such than that
		the their theirs them then there these they this those through to too under until up upon us very via was we were
		what when where which while who whom why will with would you your yours instead without`) {
		m[w] = true
	}
	return m
}()

// report prints the scores as Markdown.
type report struct {
	set     TaskSet
	budget  int
	root    string
	tasks   []taskResult
	queries []queryResult
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Evidence quality: %s@%.7s, budget %d tokens\n\n", r.set.Repo, r.set.Commit, r.budget)
	fmt.Fprintf(&b, "| task | kind | items | r@5 | r@10 | r@20 | content | file recall | symbol recall | precision | tokens | latency | rg r@5 | rg r@10 | rg r@20 | rg whole-file recall | missed |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var fr, sr, pr, bfr, bpr, cov float64
	at, rgAt := make([]float64, len(recallCutoffs)), make([]float64, len(recallCutoffs))
	var toks []int
	var lat []time.Duration
	for _, t := range r.tasks {
		missed := append(slices.Clone(t.missedFiles), t.missedSym...)
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %d | %s | %s | %.2f | %s |\n", t.task.ID, t.task.Kind, t.items,
			cells(t.recall), t.content, t.fileRecall, t.symRecall, t.precision, t.tokens, t.latency.Round(100*time.Microsecond), cells(t.rgRecall), t.base.fileRecall,
			strings.Join(missed, ", "))
		fr, sr, pr, cov = fr+t.fileRecall, sr+t.symRecall, pr+t.precision, cov+t.content
		bfr, bpr = bfr+t.base.fileRecall, bpr+t.base.precision
		for i := range recallCutoffs {
			at[i] += t.recall[i]
			rgAt[i] += t.rgRecall[i]
		}
		toks = append(toks, t.tokens)
		lat = append(lat, t.latency)
	}
	n := float64(max(1, len(r.tasks)))
	if len(r.tasks) > 0 {
		slices.Sort(toks)
		var heads, rgHeads, ratios []string
		for i, k := range recallCutoffs {
			heads = append(heads, fmt.Sprintf("@%d %.3f", k, at[i]/n))
			rgHeads = append(rgHeads, fmt.Sprintf("@%d %.3f", k, rgAt[i]/n))
			ratios = append(ratios, fmt.Sprintf("@%d %s", k, ratio(at[i], rgAt[i])))
		}
		fmt.Fprintf(&b, "\n**Total (mean of %d tasks):** files recall %s; content coverage %.3f; file recall %.3f, symbol recall %.3f, precision %.3f; tokens median %d, max %d (budget %d); latency median %s.  \n",
			len(r.tasks), strings.Join(heads, ", "), cov/n, fr/n, sr/n, pr/n, toks[len(toks)/2], toks[len(toks)-1], r.budget, median(lat).Round(100*time.Microsecond))
		fmt.Fprintf(&b, "**Ranked ripgrep baseline, same run:** files recall %s; DocForge/baseline %s.  \n", strings.Join(rgHeads, ", "), strings.Join(ratios, ", "))
		fmt.Fprintf(&b, "**Whole-file ripgrep baseline, same budget:** file recall %.3f, precision %.3f; DocForge/baseline file recall %s.\n", bfr/n, bpr/n, ratio(fr, bfr))
	}
	if len(r.queries) > 0 {
		hits := 0
		fmt.Fprintf(&b, "\n| query | hit in top 3 | top 3 |\n|---|---|---|\n")
		for _, q := range r.queries {
			mark := "no"
			if q.hit {
				mark, hits = "yes", hits+1
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", q.query.Q, mark, strings.Join(q.top, ", "))
		}
		fmt.Fprintf(&b, "\n**Search:** %d of %d queries have a wanted answer in the top 3.\n", hits, len(r.queries))
	}
	return b.String()
}

// cells writes recall figures as table cells.
func cells(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(s, " | ")
}

// ratio is a/b written as "N.NNx", or "n/a" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", a/b)
}
