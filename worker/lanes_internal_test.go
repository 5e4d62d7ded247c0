package worker

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/worker/protocol"
)

// With every scan lane taken, a point lookup still answers at once, a scan waits for a lane
// (or its context's end) and answers once one is free.
func TestScansWaitForALanePointLookupsDoNot(t *testing.T) {
	root := CopyExample(t, nil)
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(impl, false, WithScanLanes(1))
	defer svc.Close()
	b := protocol.Binding{ProjectRoot: root}
	ctx := context.Background()
	search := json.RawMessage(`{"query":"store"}`)
	if _, err := svc.Call(ctx, b, "docforge_search", search); err != nil {
		t.Fatalf("search with a free lane: %v", err)
	}
	svc.scans <- struct{}{} // the one lane is busy
	if _, err := svc.Call(ctx, b, "docforge_get_node", json.RawMessage(`{"node_id":"arch.store"}`)); err != nil {
		t.Fatalf("get_node while the lane is busy: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := svc.Call(short, b, "docforge_search", search); err == nil {
		t.Fatal("a search answered while the one scan lane was busy")
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.Call(ctx, b, "docforge_search", search)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a search answered (%v) while the one scan lane was busy", err)
	case <-time.After(100 * time.Millisecond):
	}
	<-svc.scans
	if err := <-done; err != nil {
		t.Fatalf("search once the lane was free: %v", err)
	}
	if n := len(svc.scans); n != 0 {
		t.Errorf("%d lanes still taken after every call ended", n)
	}
}
