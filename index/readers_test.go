package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docforge/docforge/index"
)

// concurrentAnswers runs the same queries from workers goroutines at once on snap and
// returns what each goroutine saw, as JSON, in goroutine order.
func concurrentAnswers(t *testing.T, snap *index.Snapshot, workers int) []string {
	t.Helper()
	ctx := context.Background()
	out := make([]string, workers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var answers []any
			for _, q := range []string{"storage", "write ahead", "log*", "node"} {
				res, err := snap.Search(ctx, q, 20)
				if err != nil {
					out[g] = "search: " + err.Error()
					return
				}
				answers = append(answers, res)
			}
			for i := range 10 {
				v, err := snap.Get(ctx, fmt.Sprintf("n%03d", i))
				if err != nil {
					out[g] = "get: " + err.Error()
					return
				}
				imp, err := snap.Impact(ctx, fmt.Sprintf("n%03d", i), index.ImpactOptions{Depth: 2})
				if err != nil {
					out[g] = "impact: " + err.Error()
					return
				}
				answers = append(answers, v, imp)
			}
			rk, err := snap.RankAny(ctx, nil, []string{"storage", "log", "write"}, 10, 1000, nil)
			if err != nil {
				out[g] = "rank: " + err.Error()
				return
			}
			answers = append(answers, rk)
			data, err := json.Marshal(answers)
			if err != nil {
				out[g] = err.Error()
				return
			}
			out[g] = string(data)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// Queries sent at once to one snapshot run on several read connections, over a base alone
// and over deltas, and answer exactly as one query at a time does.
func TestSnapshotAnswersConcurrentQueriesAlike(t *testing.T) {
	ctx := context.Background()
	root, d, r := syncedProject(t, 80, 5)
	for _, deltas := range []int{0, 2} {
		for k := range deltas {
			writeNode(t, root, k, r, fmt.Sprintf("concurrent edit %d", k))
			res, err := index.Sync(ctx, d, index.Options{})
			must(t, err)
			if res.Build != index.BuildIncremental {
				t.Fatalf("edit %d: build %s", k, res.Build)
			}
		}
		serial, err := index.Open(ctx, d)
		must(t, err)
		want := concurrentAnswers(t, serial, 1)[0]
		serial.Close()
		snap, err := index.Open(ctx, d)
		must(t, err)
		snap.SetGrowAfterForTest(0)
		for g, got := range concurrentAnswers(t, snap, 8) {
			if got != want {
				t.Fatalf("%d deltas: goroutine %d answered differently:\n%s", deltas, g, firstDiff(got, want))
			}
		}
		if n := snap.ReadersForTest(); n < 2 {
			t.Errorf("%d deltas: eight goroutines at once used %d read connection(s)", deltas, n)
		}
		must(t, snap.Close())
		if n := snap.ReadersForTest(); n != 0 {
			t.Errorf("%d deltas: %d connections open after Close", deltas, n)
		}
		if _, err := snap.Get(ctx, "n000"); err == nil {
			t.Errorf("%d deltas: a closed snapshot answered", deltas)
		}
	}
}

// A merge retires the segments a snapshot opened; the snapshot cannot open another
// connection to them, and answers on the one it has.
func TestSnapshotMakesDoWithItsConnectionsOnceSegmentsRetire(t *testing.T) {
	ctx := context.Background()
	root, d, r := syncedProject(t, 60, 6)
	for k := range 2 {
		writeNode(t, root, k, r, fmt.Sprintf("retire edit %d", k))
		_, err := index.Sync(ctx, d, index.Options{})
		must(t, err)
	}
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	want := concurrentAnswers(t, snap, 1)[0]
	if m, err := index.Merge(ctx, d, index.MergeOptions{Full: true}); err != nil || m.Merged == 0 {
		t.Fatalf("merge: %+v %v", m, err)
	}
	for g, got := range concurrentAnswers(t, snap, 6) {
		if got != want {
			t.Fatalf("goroutine %d after the merge answered differently:\n%s", g, firstDiff(got, want))
		}
	}
	if n := snap.ReadersForTest(); n != 1 {
		t.Errorf("after its segments retired the snapshot has %d connections, want the 1 it had", n)
	}
}

// Closing a snapshot while queries run and wait ends every one of them: the running ones
// finish, the waiting ones are told the snapshot is closed, and every connection closes.
func TestSnapshotCloseEndsWaitingQueries(t *testing.T) {
	ctx := context.Background()
	_, d, _ := syncedProject(t, 60, 8)
	snap, err := index.Open(ctx, d)
	must(t, err)
	var wg sync.WaitGroup
	started := make(chan struct{}, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			for {
				if _, err := snap.Search(ctx, "storage log", 20); err != nil {
					return // closed
				}
			}
		}()
	}
	for range 16 {
		<-started
	}
	must(t, snap.Close())
	wg.Wait()
	if n := snap.ReadersForTest(); n != 0 {
		t.Errorf("%d connections open after Close and the queries' end", n)
	}
}

// A query waits for a busy connection before the pool opens another: within the wait it
// takes the released one, past it a new one.
func TestSnapshotGrowsOnlyAfterAWait(t *testing.T) {
	ctx := context.Background()
	_, d, _ := syncedProject(t, 20, 7)
	for _, tc := range []struct {
		wait    time.Duration
		readers int
	}{{time.Hour, 1}, {0, 2}} {
		snap, err := index.Open(ctx, d)
		must(t, err)
		snap.SetGrowAfterForTest(tc.wait)
		_, release, err := snap.HoldReaderForTest(ctx)
		must(t, err)
		done := make(chan error, 1)
		go func() { _, err := snap.Get(ctx, "n000"); done <- err }()
		if tc.wait == 0 {
			must(t, <-done) // answered on a second connection while the first is held
			release()
		} else {
			time.Sleep(50 * time.Millisecond)
			select {
			case err := <-done:
				t.Fatalf("answered (%v) while its one connection was held and the wait had not passed", err)
			default:
			}
			release()
			must(t, <-done)
		}
		if n := snap.ReadersForTest(); n != tc.readers {
			t.Errorf("wait %s: %d read connections, want %d", tc.wait, n, tc.readers)
		}
		must(t, snap.Close())
	}
}

// A query takes the connection released last, whose caches the previous query warmed: one
// query after another keeps to one connection of the pool.
func TestSnapshotTakesTheConnectionReleasedLast(t *testing.T) {
	ctx := context.Background()
	_, d, _ := syncedProject(t, 20, 9)
	snap, err := index.Open(ctx, d)
	must(t, err)
	defer snap.Close()
	snap.SetGrowAfterForTest(0)
	first, releaseFirst, err := snap.HoldReaderForTest(ctx)
	must(t, err)
	second, releaseSecond, err := snap.HoldReaderForTest(ctx)
	must(t, err)
	if first == second {
		t.Fatal("two held readers share a connection")
	}
	releaseFirst()
	releaseSecond()
	for range 3 {
		got, release, err := snap.HoldReaderForTest(ctx)
		must(t, err)
		release()
		if got != second {
			t.Fatal("a query took the connection idle longest, not the one released last")
		}
	}
}
