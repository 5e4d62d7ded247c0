package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
)

// measureStamps times review stamps on a fresh adopted tree: validation before and after
// 'docforge stamp --all', the stamping itself (every file rewritten through the YAML stamp
// editor), and what one edited page costs: its suspect relations found, and the one-file sync.
func measureStamps(ctx context.Context, dir string, files, runs int) (string, error) {
	proj, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("stamped%d", files)))
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(proj); err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "generating a tree of %d files to stamp in %s ...\n", files, proj)
	if err := writeAdopted(proj, files); err != nil {
		return "", err
	}
	d, probs, err := project.Load(proj)
	if err != nil || d == nil {
		return "", fmt.Errorf("stamped tree descriptor: %v %v", err, probs)
	}
	if runs == 0 {
		runs = 3
	}
	validate := func(what string) ([]time.Duration, *source.Validation, error) {
		var times []time.Duration
		var v *source.Validation
		for k := 0; k < runs; k++ {
			start := time.Now()
			if v, err = source.Validate(ctx, d, "", 0); err != nil {
				return nil, nil, fmt.Errorf("validate %s: %w", what, err)
			}
			times = append(times, time.Since(start))
		}
		fmt.Fprintf(os.Stderr, "validate %s: %.0f ms\n", what, median(times))
		return times, v, nil
	}
	plain, _, err := validate("unstamped")
	if err != nil {
		return "", err
	}
	res, err := index.Sync(ctx, d, index.Options{})
	if err != nil {
		return "", fmt.Errorf("unstamped cold sync: %w", err)
	}
	coldPlain := res.Elapsed
	if err := os.RemoveAll(publication.PathsFor(d, "").Dir); err != nil {
		return "", err
	}
	desk, err := changeset.NewDesk(d, "")
	if err != nil {
		return "", err
	}
	start := time.Now()
	confirmed, err := desk.Confirm(ctx, nil, changeset.ConfirmOptions{})
	if err != nil {
		return "", fmt.Errorf("stamp --all: %w", err)
	}
	stampTime := time.Since(start)
	stamps, nodes := 0, 0
	for _, c := range confirmed {
		stamps += len(c.Stamped)
		if c.Changed() {
			nodes++
		}
	}
	stamped, v, err := validate("stamped")
	if err != nil {
		return "", err
	}
	if len(source.Unconfirmed(v.Reviews)) != 0 || len(v.Reviews) != stamps {
		return "", fmt.Errorf("after stamping: %d reviews, %d unconfirmed; %d stamps written", len(v.Reviews), len(source.Unconfirmed(v.Reviews)), stamps)
	}
	if res, err = index.Sync(ctx, d, index.Options{}); err != nil || res.Build != index.BuildCold {
		return "", fmt.Errorf("stamped cold sync: %v", err)
	}
	cold := res.Elapsed

	// Edit pages' bodies, one at a time: each makes the relations of the pages linking to it
	// suspect, in validation and in the index.
	a := adoptedTree{files: files}
	var edits []time.Duration
	suspect := 0
	for k := 0; k < 5; k++ {
		i := 1 + k*files/5
		p := filepath.Join(proj, filepath.FromSlash(a.relPath(i)))
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(p, append(data, fmt.Sprintf("\nEdited %d.\n", k)...), 0o644); err != nil {
			return "", err
		}
		res, err := index.Sync(ctx, d, index.Options{})
		if err != nil || res.Build != index.BuildIncremental {
			return "", fmt.Errorf("stamped edit sync: %v %+v", err, res)
		}
		edits = append(edits, res.Published)
	}
	_, v, err = validate("after 5 edits")
	if err != nil {
		return "", err
	}
	suspect = len(source.Unconfirmed(v.Reviews))
	if suspect == 0 {
		return "", fmt.Errorf("5 edited pages left no relation suspect")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Review stamps (%d YAML files, ~5 relative links each)\n\n", files)
	fmt.Fprintf(&b, "Machine: %s. The adopted tree above, stamped with 'docforge stamp --all' (changeset.Desk.Confirm).\n\n", machine())
	fmt.Fprintf(&b, "| step | median | runs |\n| --- | --- | --- |\n")
	fmt.Fprintf(&b, "| validate, no stamps | %.0f ms | %d |\n", median(plain), runs)
	fmt.Fprintf(&b, "| stamp --all: %d stamps into %d files | %.0f ms | 1 |\n", stamps, nodes, float64(stampTime.Microseconds())/1000)
	fmt.Fprintf(&b, "| validate, every relation stamped | %.0f ms (%.2fx) | %d |\n", median(stamped), median(stamped)/median(plain), runs)
	fmt.Fprintf(&b, "| cold sync, no stamps | %.0f ms | 1 |\n", float64(coldPlain.Microseconds())/1000)
	fmt.Fprintf(&b, "| cold sync, stamped | %.0f ms (%.2fx) | 1 |\n", float64(cold.Microseconds())/1000, float64(cold)/float64(coldPlain))
	fmt.Fprintf(&b, "| one-page body edit, published (stamped tree) | %.1f ms | 5 |\n", median(edits))
	fmt.Fprintf(&b, "\nAfter 5 page edits, validation lists %d suspect relations.\n", suspect)
	return b.String(), nil
}
