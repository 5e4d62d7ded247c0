package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/docforge/docforge/index/graph"
	"github.com/docforge/docforge/index/problem"
	"github.com/docforge/docforge/index/project"
)

// Parsed is one file's fragment together with the file it came from and the SHA-256 of the
// exact bytes parsed.
type Parsed struct {
	File     File
	FileHash string
	Fragment *graph.Fragment
}

// ReadAndParse reads one inventoried file and parses it. The read is bounded by the file size
// limit, so an oversized file is never loaded whole.
func ReadAndParse(d *project.Descriptor, f File) Parsed {
	out := Parsed{File: f}
	abs := filepath.Join(d.Root, filepath.FromSlash(f.Path))
	fh, err := os.Open(abs)
	if err != nil {
		out.Fragment = unreadable(f.Path, err)
		return out
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, d.Limits.MaxFileBytes+1))
	if err != nil {
		out.Fragment = unreadable(f.Path, err)
		return out
	}
	sum := sha256.Sum256(data)
	out.FileHash = "sha256:" + hex.EncodeToString(sum[:])
	out.Fragment = Parse(d, f.Path, f.Format, data)
	return out
}

func unreadable(rel string, err error) *graph.Fragment {
	msg := err.Error()
	if errors.Is(err, fs.ErrNotExist) {
		msg = "file disappeared while loading; sync again"
	}
	return &graph.Fragment{Path: rel, Problems: []problem.Problem{
		problem.New(problem.UnreadableFile, problem.Location{Path: rel}, "%s", msg),
	}}
}

// Each reads and parses files concurrently and calls fn for each result in the order of
// files, so consumers see a deterministic stream while parsing uses every core. At most a
// bounded window of parsed files is held in memory. fn's first error stops the walk.
func Each(ctx context.Context, d *project.Descriptor, files []File, fn func(Parsed) error) error {
	workers := runtime.GOMAXPROCS(0)
	const window = 64
	type slot struct {
		done chan struct{}
		out  Parsed
	}
	slots := make(chan *slot, window)
	jobs := make(chan struct {
		f File
		s *slot
	}, window)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.s.out = ReadAndParse(d, j.f)
				close(j.s.done)
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(slots)
		for _, f := range files {
			s := &slot{done: make(chan struct{})}
			select {
			case slots <- s:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- struct {
				f File
				s *slot
			}{f, s}:
			case <-ctx.Done():
				close(s.done)
				return
			}
		}
	}()
	var err error
	for s := range slots {
		<-s.done
		if err != nil || s.out.Fragment == nil {
			continue // drain so the producer can finish
		}
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("load sources: %w", cerr)
			cancel()
			continue
		}
		if ferr := fn(s.out); ferr != nil {
			err = ferr
			cancel()
		}
	}
	wg.Wait()
	return err
}

// Validate loads every source of d and returns all problems (bounded), without writing
// anything. It is the whole of `docforge validate`.
func Validate(ctx context.Context, d *project.Descriptor, limit int) ([]problem.Problem, *Inventory, error) {
	inv, err := Scan(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	list := problem.List{Limit: limit}
	list.AddAll(inv.Problems)
	check := NewChecker()
	err = Each(ctx, d, inv.Files, func(p Parsed) error {
		list.AddAll(p.Fragment.Problems)
		check.Add(p.Fragment)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	list.AddAll(check.Problems())
	return list.Problems(), inv, nil
}
