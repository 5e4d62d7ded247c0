package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source/project"
)

// The replay: a real repository's history published commit by commit as the segmented index
// publishes edits, each generation compared with a cold build of the same tree. It measures
// what the synthetic churn tests cannot: edits people made, in code and documents at once.

// replayCommit is what one commit's replay found.
type replayCommit struct {
	Commit string  `json:"commit"`
	Files  int     `json:"files"` // paths the commit added, changed or removed
	SyncMS float64 `json:"sync_ms"`
	Parsed int     `json:"parsed"` // files the sync read and parsed
	// Phases says where a sync's time went (index.Result.Timings).
	Phases       []index.Timing `json:"phases,omitempty"`
	Build        string         `json:"build"`
	Deltas       int            `json:"deltas"`
	MergeMS      float64        `json:"merge_ms,omitempty"`
	Nodes        int            `json:"nodes"`
	Probed       int            `json:"probed"`        // nodes whose links and impact were compared
	NodeDiffs    int            `json:"node_diffs"`    // node-level answers that differ from the cold build
	Searches     int            `json:"searches"`      // queries compared, each as a set and ranked
	SetDiffs     int            `json:"set_diffs"`     // queries matching other nodes than the cold build
	OrderDiffs   int            `json:"order_diffs"`   // queries whose top results come in another order
	MaxScoreDiff float64        `json:"max_score_rel"` // largest relative score difference in any top result
}

func replayCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	gitDir := fs.String("git", "", "the git directory of the repository to replay (bare, or a work tree's .git)")
	commits := fs.Int("commits", 30, "how many of the newest first-parent commits to replay")
	work := fs.String("work", "bench-out/replay", "where the project and its cold copies are made (replaced)")
	docforge := fs.String("docforge", "bin/docforge", "the docforge binary that adopts the tree (docforge init)")
	stop := fs.Bool("stop", false, "stop at the first commit whose answers differ, leaving the project and its cold copy as they are")
	mergeAt := fs.String("merge", "due", "when deltas are merged: due (as the worker: after every delta over a small base) or count (only at index.MergeDeltas deltas, so that most comparisons read deltas)")
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, "Usage: docforge-bench replay --git DIR [--commits N] [--work DIR]\n\n"+
			"Adopts the tree of the commit N before HEAD as a new user would (git init, docforge init),\n"+
			"syncs it, then applies each later first-parent commit's changes to the files and syncs\n"+
			"again, merging deltas when the worker would. After each sync it builds a copy of the tree\n"+
			"from scratch and compares the answers: every node, the links and impact of the changed\n"+
			"files' nodes and a sample of the rest, and searches for the changed names. Prints one JSON\n"+
			"line per commit and a summary; differences are detailed on stderr.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gitDir == "" {
		fs.Usage()
		return fmt.Errorf("replay: --git is required")
	}
	if *mergeAt != "due" && *mergeAt != "count" {
		return fmt.Errorf("replay: --merge is due or count, not %q", *mergeAt)
	}
	index.ApplyMemorySettings()
	// The binary runs in the project's directory.
	if bin, err := filepath.Abs(*docforge); err == nil {
		*docforge = bin
	}
	out, err := gitOut(ctx, ".", "--git-dir", *gitDir, "rev-list", "--first-parent", "-n", fmt.Sprint(*commits+1), "HEAD")
	if err != nil {
		return err
	}
	list := strings.Fields(out)
	slices.Reverse(list)
	if len(list) < 2 {
		return fmt.Errorf("replay: the history has %d commits; nothing to replay", len(list))
	}
	proj, coldDir := filepath.Join(*work, "project"), filepath.Join(*work, "cold")
	if err := os.RemoveAll(*work); err != nil {
		return err
	}
	if err := checkoutTree(ctx, *gitDir, list[0], proj); err != nil {
		return err
	}
	for _, c := range [][]string{{"git", "init", "-q"}, {*docforge, "init"}} {
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s in %s: %w\n%s", strings.Join(c, " "), proj, err, out)
		}
	}
	d, err := loadWide(proj)
	if err != nil {
		return err
	}
	if _, err := index.Sync(ctx, d, index.Options{}); err != nil {
		return fmt.Errorf("replay: first sync at %s: %w", list[0], err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "[replay] "+format+"\n", a...) }
	var all []replayCommit
	deltas := 0 // of the generation the comparisons read
	for i := 1; i < len(list); i++ {
		prev, cur := list[i-1], list[i]
		changed, err := applyCommit(ctx, *gitDir, prev, cur, proj)
		if err != nil {
			return err
		}
		rc := replayCommit{Commit: cur[:12], Files: len(changed)}
		start := time.Now()
		res, err := index.Sync(ctx, d, index.Options{})
		if err != nil {
			return fmt.Errorf("replay: sync at %s: %w", cur, err)
		}
		rc.SyncMS = ms(time.Since(start))
		rc.Build, rc.Parsed, rc.Phases = string(res.Build), res.FilesParsed, res.Timings
		if res.Build != index.BuildNone {
			deltas = res.Deltas // a sync that publishes nothing leaves the generation's
		}
		rc.Deltas = deltas
		if res.MergeDue == index.MergeCount || res.MergeDue != index.MergeNone && *mergeAt == "due" {
			start = time.Now()
			mr, err := index.Merge(ctx, d, index.MergeOptions{})
			if err != nil {
				return fmt.Errorf("replay: merge at %s: %w", cur, err)
			}
			rc.MergeMS = ms(time.Since(start))
			deltas = mr.Deltas
		}
		// The copy leaves out the index state and git's; an empty folder is no source.
		if err := os.RemoveAll(coldDir); err != nil {
			return err
		}
		if err := copyFiles(proj, coldDir, func(name string) bool { return name == ".docforge" || name == ".git" }); err != nil {
			return err
		}
		cd, err := loadWide(coldDir)
		if err != nil {
			return err
		}
		if res, err := index.Sync(ctx, cd, index.Options{}); err != nil || res.Build != index.BuildCold {
			return fmt.Errorf("replay: cold build at %s: %v (build %v)", cur, err, res)
		}
		if err := compareGenerations(ctx, d, cd, changed, &rc, logf); err != nil {
			return err
		}
		if *stop && (rc.NodeDiffs+rc.SetDiffs+rc.OrderDiffs > 0 || rc.MaxScoreDiff > 0) {
			return fmt.Errorf("replay: %s answers otherwise than a cold build (%s and %s are left as they are)", cur[:12], proj, coldDir)
		}
		line, _ := json.Marshal(rc)
		fmt.Println(string(line))
		all = append(all, rc)
	}
	return replaySummary(all)
}

// loadWide loads a project's descriptor with no cap on listed results, so that a comparison
// sees every node and every match.
func loadWide(root string) (*project.Descriptor, error) {
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		return nil, fmt.Errorf("load %s: %v %v", root, err, probs)
	}
	d.Limits.MaxResults = math.MaxInt32
	return d, nil
}

// checkoutTree writes the tree of commit into dir, less the files whose contents the
// repository does not hold (a snapshot may leave its largest blobs out).
func checkoutTree(ctx context.Context, gitDir, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	absent, err := absentBlobs(ctx, gitDir, commit)
	if err != nil {
		return err
	}
	args := []string{"--git-dir", gitDir, "archive", commit}
	if len(absent) > 0 {
		fmt.Fprintf(os.Stderr, "[replay] %d file(s) left out, their contents absent from the repository (first: %s)\n", len(absent), absent[0])
		args = append(args, "--", ".")
		for _, p := range absent {
			args = append(args, ":(exclude,literal)"+p)
		}
	}
	archive := exec.CommandContext(ctx, "git", args...)
	tar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	tar.Stdin = pipe
	if err := tar.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive %s: %w", commit, err)
	}
	return tar.Wait()
}

// absentBlobs lists the regular files of commit's tree whose blobs the repository lacks.
func absentBlobs(ctx context.Context, gitDir, commit string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "ls-tree", "-r", "-z", commit).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s: %w", commit, err)
	}
	var paths, shas []string
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		// "mode type sha\tpath"
		meta, rel, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 3 || f[1] != "blob" {
			continue
		}
		paths, shas = append(paths, rel), append(shas, f[2])
	}
	check := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	check.Stdin = strings.NewReader(strings.Join(shas, "\n") + "\n")
	res, err := check.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(res), "\n"), "\n")
	var absent []string
	for i, l := range lines {
		if i < len(paths) && strings.HasSuffix(l, " missing") {
			absent = append(absent, paths[i])
		}
	}
	return absent, nil
}

// applyCommit changes the files under dir as commit cur changed them from prev, and returns
// the changed paths. Symbolic links and submodules are left alone.
func applyCommit(ctx context.Context, gitDir, prev, cur, dir string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "diff", "--raw", "--no-renames", "-z", prev, cur).Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s %s: %w", prev, cur, err)
	}
	// -z: ":old new oldsha newsha status\0path\0" per entry.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var changed []string
	for i := 0; i+1 < len(fields); i += 2 {
		meta, rel := strings.Fields(fields[i]), fields[i+1]
		if len(meta) < 5 {
			continue
		}
		newMode, status := meta[1], meta[4]
		target := filepath.Join(dir, filepath.FromSlash(rel))
		changed = append(changed, rel)
		if status == "D" {
			if err := os.Remove(target); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			continue
		}
		if newMode != "100644" && newMode != "100755" {
			continue
		}
		if exec.CommandContext(ctx, "git", "--git-dir", gitDir, "cat-file", "-e", meta[3]).Run() != nil {
			fmt.Fprintf(os.Stderr, "[replay] %s left out at %s: its contents are absent from the repository\n", rel, cur[:12])
			continue
		}
		data, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "show", cur+":"+rel).Output()
		if err != nil {
			return nil, fmt.Errorf("git show %s:%s: %w", cur, rel, err)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// copyFiles copies the regular files and symbolic links under src to the same places under
// dst, leaving out the folders skip names (and what they hold).
func copyFiles(src, dst string, skip func(name string) bool) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != src && skip(e.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(src, p)
		if e.Type()&fs.ModeSymlink != 0 {
			// Kept a link, as git checks one out: a tree that links a file into its docs
			// must build the same node in the copy.
			to, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
				return err
			}
			return os.Symlink(to, filepath.Join(dst, rel))
		}
		if !e.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// compareGenerations compares the published generation of d with the cold build of cd.
func compareGenerations(ctx context.Context, d, cd *project.Descriptor, changed []string, rc *replayCommit, logf func(string, ...any)) error {
	seg, err := index.Open(ctx, d)
	if err != nil {
		return err
	}
	defer seg.Close()
	cold, err := index.Open(ctx, cd)
	if err != nil {
		return err
	}
	defer cold.Close()
	differ := func(what string, a, b any) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if bytes.Equal(ja, jb) {
			return false
		}
		logf("%s: %s differs\n  segmented: %.400s\n  cold:      %.400s", rc.Commit, what, ja, jb)
		return true
	}
	nodes, err := seg.FilterNodes(ctx, index.Filter{}, math.MaxInt32)
	if err != nil {
		return err
	}
	coldNodes, err := cold.FilterNodes(ctx, index.Filter{}, math.MaxInt32)
	if err != nil {
		return err
	}
	rc.Nodes = len(nodes.Nodes)
	if differ("node list", nodes, coldNodes) {
		rc.NodeDiffs++
	}
	inChange := map[string]bool{}
	for _, p := range changed {
		inChange[p] = true
		inChange[path.Dir(p)] = true // a package node's source is its folder
	}
	var names []string
	for _, n := range nodes.Nodes {
		a, aerr := seg.Get(ctx, n.ID)
		b, berr := cold.Get(ctx, n.ID)
		if differ("get "+n.ID, []any{a, errText(aerr)}, []any{b, errText(berr)}) {
			rc.NodeDiffs++
		}
		if !inChange[n.SourcePath] && !sampled(n.ID, 20) {
			continue
		}
		rc.Probed++
		if inChange[n.SourcePath] && len(names) < 15 {
			if w := lexicon.Words(n.Title); len(w) > 0 {
				names = append(names, w[len(w)-1])
			}
		}
		for _, q := range []struct {
			what string
			run  func(s *index.Snapshot) (any, error)
		}{
			{"backlinks", func(s *index.Snapshot) (any, error) { return s.Backlinks(ctx, n.ID, 0) }},
			{"dependencies", func(s *index.Snapshot) (any, error) { return s.Dependencies(ctx, n.ID, 0) }},
			{"impact", func(s *index.Snapshot) (any, error) { return s.Impact(ctx, n.ID, index.ImpactOptions{Depth: 3}) }},
		} {
			a, aerr := q.run(seg)
			b, berr := q.run(cold)
			if differ(q.what+" "+n.ID, []any{a, errText(aerr)}, []any{b, errText(berr)}) {
				rc.NodeDiffs++
			}
		}
	}
	// Searches: the changed nodes' names, and words any project's prose holds.
	queries := append(slices.Compact(slices.Sorted(slices.Values(names))), "error", "context", "server client", "returns the", "test*")
	for _, q := range queries {
		rc.Searches++
		a, aerr := seg.Search(ctx, q, 100000)
		b, berr := cold.Search(ctx, q, 100000)
		if aerr != nil || berr != nil {
			if differ("search error "+q, errText(aerr), errText(berr)) {
				rc.SetDiffs++
			}
			continue
		}
		if differ("search set "+q, hitSet(a.Hits), hitSet(b.Hits)) {
			rc.SetDiffs++
		}
		top := min(20, len(a.Hits), len(b.Hits))
		for i := 0; i < top; i++ {
			sa, sb := a.Hits[i].Score, b.Hits[i].Score
			if sa != sb {
				logf("%s: search %q: %s scores %.17g, in a cold build %.17g", rc.Commit, q, a.Hits[i].ID, sa, sb)
			}
			if sb != 0 {
				rc.MaxScoreDiff = max(rc.MaxScoreDiff, math.Abs(sa-sb)/math.Abs(sb))
			}
		}
		if !slices.EqualFunc(a.Hits[:top], b.Hits[:top], func(x, y index.SearchHit) bool { return x.ID == y.ID }) {
			rc.OrderDiffs++
			logf("%s: search %q: the top %d come in another order", rc.Commit, q, top)
		}
	}
	return nil
}

// sampled picks about one node in every n, the same nodes on every run.
func sampled(id string, n uint32) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%n == 0
}

func hitSet(hits []index.SearchHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID + " " + h.Match
	}
	slices.Sort(out)
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// replaySummary prints the medians and totals over the replayed commits.
func replaySummary(all []replayCommit) error {
	var syncs, merges []time.Duration
	sum := replayCommit{Commit: "all"}
	for _, rc := range all {
		syncs = append(syncs, time.Duration(rc.SyncMS*float64(time.Millisecond)))
		if rc.MergeMS > 0 {
			merges = append(merges, time.Duration(rc.MergeMS*float64(time.Millisecond)))
		}
		sum.Files += rc.Files
		sum.Probed += rc.Probed
		sum.NodeDiffs += rc.NodeDiffs
		sum.Searches += rc.Searches
		sum.SetDiffs += rc.SetDiffs
		sum.OrderDiffs += rc.OrderDiffs
		sum.MaxScoreDiff = max(sum.MaxScoreDiff, rc.MaxScoreDiff)
	}
	var mergeP50 float64
	if len(merges) > 0 {
		mergeP50 = median(merges)
	}
	out, err := json.Marshal(struct {
		Commits      int     `json:"commits"`
		SyncP50MS    float64 `json:"sync_p50_ms"`
		SyncMaxMS    float64 `json:"sync_max_ms"`
		Merges       int     `json:"merges"`
		MergeP50MS   float64 `json:"merge_p50_ms"`
		Files        int     `json:"files"`
		Probed       int     `json:"probed"`
		NodeDiffs    int     `json:"node_diffs"`
		Searches     int     `json:"searches"`
		SetDiffs     int     `json:"set_diffs"`
		OrderDiffs   int     `json:"order_diffs"`
		MaxScoreDiff float64 `json:"max_score_rel"`
	}{len(all), median(syncs), percentile(syncs, 100), len(merges), mergeP50, sum.Files, sum.Probed, sum.NodeDiffs,
		sum.Searches, sum.SetDiffs, sum.OrderDiffs, sum.MaxScoreDiff})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	if sum.NodeDiffs+sum.SetDiffs > 0 {
		return fmt.Errorf("replay: %d node answers and %d search match sets differ from a cold build", sum.NodeDiffs, sum.SetDiffs)
	}
	return nil
}
