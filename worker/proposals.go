package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/render"
	"github.com/docforge/docforge/source/changeset"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/worker/protocol"
)

// The isolated proposal tools. Mutations need a bound proposal writer; reads (list, get,
// validate, diff) and preview work for every binding that registers them.

func proposalTools() []ToolSpec {
	return []ToolSpec{
		define(ToolSpec{Name: "docforge_create_changeset", Description: "Start a changeset (optionally with operations). Prefer docforge_register_changes for a complete change.",
			mutates: true}, runCreateChangeset),
		define(ToolSpec{Name: "docforge_register_changes", Description: "Preferred write entry point: create, populate, project, conflict-check and validate one complete changeset in one locked operation. Omitted expected_content_hash values are bound to the current nodes. Refused with nothing stored when it would not validate.",
			mutates: true}, runRegister),
		define(ToolSpec{Name: "docforge_list_changesets", Description: "Changesets, draft and ready by default; status = stale, applied, abandoned or all for the rest. Paged.",
			ReadOnly: true}, runListChangesets),
		define(ToolSpec{Name: "docforge_get_changeset", Description: "One changeset: header, exact hash, lifecycle receipts, and its operations in order (paged; an operation too large for a page is summarised with its hash and size).",
			ReadOnly: true}, runGetChangeset),
		define(ToolSpec{Name: "docforge_rebase_changeset", Description: "Move a stale changeset to the current content when every touched node, relation and invariant still validates. Never merges prose.",
			mutates: true}, runRebase),
		define(ToolSpec{Name: "docforge_abandon_changeset", Description: "Close an open changeset; its document and receipts are kept for audit.",
			mutates: true}, runAbandon),
		define(ToolSpec{Name: "docforge_propose_node_create", Description: "Queue a new node: a new .md file, or a [[node]] record in a .toml file under a content root.",
			mutates: true}, func(c *call, a proposeCreateInput) (any, error) {
			return runPropose(c, a.ChangesetID, changeset.Operation{Op: changeset.OpCreate, NodeID: a.NodeID, Path: a.Path, Fields: a.Fields})
		}),
		define(ToolSpec{Name: "docforge_propose_node_update", Description: "Queue new values for a node's fields or body (relations: use relationship_update).",
			mutates: true}, func(c *call, a proposeUpdateInput) (any, error) {
			return runPropose(c, a.ChangesetID, changeset.Operation{Op: changeset.OpUpdate, NodeID: a.NodeID, ExpectedContentHash: a.ExpectedContentHash, Fields: a.Fields})
		}),
		define(ToolSpec{Name: "docforge_propose_node_move", Description: "Queue a move of a node to another file of its format.",
			mutates: true}, func(c *call, a proposeMoveInput) (any, error) {
			return runPropose(c, a.ChangesetID, changeset.Operation{Op: changeset.OpMove, NodeID: a.NodeID, ExpectedContentHash: a.ExpectedContentHash, Path: a.Path})
		}),
		define(ToolSpec{Name: "docforge_propose_relationship_update", Description: "Queue relation additions and removals of one node, and re-confirmations of suspect relations (confirm: after checking that the document still holds for the changed target), without rewriting its content. An empty list is refused.",
			mutates: true}, func(c *call, a proposeRelationsInput) (any, error) {
			return runPropose(c, a.ChangesetID, changeset.Operation{Op: changeset.OpRelationshipUpdate, NodeID: a.NodeID, ExpectedContentHash: a.ExpectedContentHash,
				Add: a.Add, Remove: a.Remove, Confirm: a.Confirm})
		}),
		define(ToolSpec{Name: "docforge_propose_node_delete", Description: "Queue the deletion of a node (its file, or its record).",
			mutates: true}, func(c *call, a proposeDeleteInput) (any, error) {
			return runPropose(c, a.ChangesetID, changeset.Operation{Op: changeset.OpDelete, NodeID: a.NodeID, ExpectedContentHash: a.ExpectedContentHash})
		}),
		// Not read-only: finding the changeset stale, it appends a stale receipt.
		define(ToolSpec{Name: "docforge_validate_changeset", Description: "Project a changeset onto the current sources in memory and run the full loader validation, conflict and staleness checks. Writes nothing but a stale receipt when it finds one. Paged problems."},
			runValidateChangeset),
		define(ToolSpec{Name: "docforge_get_changeset_diff", Description: "Per-node unified diffs of fields and body and relation additions and removals, with the operations. Paged; a diff too large for any page comes as canonical_json_chunk pages to concatenate.",
			ReadOnly: true}, runChangesetDiff),
		define(ToolSpec{Name: "docforge_preview_changeset", Description: "Render one declared view with the changeset applied into one HTML file under preview_root. Never touches canonical files or declared outputs.",
			preview: true}, runPreview),
	}
}

// The inputs of the proposal tools: each takes exactly the fields its operation has.

// draftInput is a whole changeset: create_changeset needs a title, register_changes the
// operations too (required by its own type).
type draftInput struct {
	ChangesetID string                `json:"changeset_id,omitempty" jsonschema:"an ID to use (default: generated)"`
	Title       string                `json:"title" jsonschema:"one line: what the change is for"`
	Description string                `json:"description,omitempty" jsonschema:"why, for the reviewer"`
	Operations  []changeset.Operation `json:"operations,omitempty"`
}

// registerInput is a draft whose operations are required (the field shadows the draft's).
type registerInput struct {
	draftInput
	Operations []changeset.Operation `json:"operations"`
}

type changesetInput struct {
	ChangesetID string `json:"changeset_id" jsonschema:"the changeset ID, for example cs-20261202-1a2b3c4d"`
}

func (a changesetInput) check() error {
	if a.ChangesetID == "" {
		return problem.Errorf(problem.InvalidArgument, "changeset_id is required")
	}
	return nil
}

type changesetPageInput struct {
	changesetInput
	pageArgs
}

type abandonInput struct {
	changesetInput
	Reason string `json:"reason,omitempty" jsonschema:"why, for the record"`
}

type listChangesetsInput struct {
	Status string `json:"status,omitempty" bounds:"enum=draft|ready|stale|applied|abandoned|open|all"`
	pageArgs
}

type previewInput struct {
	changesetInput
	ViewID string `json:"view_id" jsonschema:"a declared view ID"`
}

// expectedHash binds an operation on an existing node to the content it was written against.
type expectedHash struct {
	ExpectedContentHash string `json:"expected_content_hash,omitempty" jsonschema:"the node's content_hash as docforge_get_node returned it; omit to bind the current one"`
}

type proposeCreateInput struct {
	changesetInput
	nodeInput
	Path   string            `json:"path" jsonschema:"the .md file to create or the .toml record file to add to"`
	Fields *changeset.Fields `json:"fields"`
}

type proposeUpdateInput struct {
	changesetInput
	nodeInput
	expectedHash
	Fields *changeset.Fields `json:"fields"`
}

type proposeMoveInput struct {
	changesetInput
	nodeInput
	expectedHash
	Path string `json:"path" jsonschema:"the new file"`
}

type proposeRelationsInput struct {
	changesetInput
	nodeInput
	expectedHash
	Add     []changeset.Relation `json:"add,omitempty"`
	Remove  []changeset.Relation `json:"remove,omitempty"`
	Confirm []changeset.Confirm  `json:"confirm,omitempty" jsonschema:"relation targets to re-confirm: the node's relations to each get a review stamp of the target as it is, so they are no longer suspect"`
}

type proposeDeleteInput struct {
	changesetInput
	nodeInput
	expectedHash
}

// typeSchemas are the schemas of the changeset document types that tool inputs carry: kept by
// hand, since the changeset package knows nothing of tools.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	nodeID := &jsonschema.Schema{Type: "string", Description: "the exact node ID, for example arch.store or go:example.com/m/pkg.Func"}
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	strings := &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	closed := func(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	}
	relation := closed(map[string]*jsonschema.Schema{"relation": str("a relation of [relations].allowed"), "target_id": nodeID}, "relation", "target_id")
	confirm := closed(map[string]*jsonschema.Schema{"target_id": nodeID,
		"content_hash": str("the target's content_hash as docforge_get_node returned it when you read it; omit to bind the current one")}, "target_id")
	fields := closed(map[string]*jsonschema.Schema{"kind": str("kind"), "family": str("family"), "title": str("title"), "status": str("status"),
		"authority": str("authority"), "tags": strings, "body": str("the Markdown body"),
		"relations": {Type: "object", AdditionalProperties: strings}})
	fields.Description = "node fields: kind, family, title, status, authority, tags, body (an update sets only those given; \"\" removes one); a create may add relations {relation: [target IDs]}"
	list := func(item *jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", Items: item}
	}
	operation := closed(map[string]*jsonschema.Schema{
		"op":                    {Type: "string", Enum: []any{"create", "update", "move", "relationship_update", "delete"}},
		"node_id":               nodeID,
		"expected_content_hash": str("the node's content_hash as docforge_get_node returned it; omit to bind the current one"),
		"path":                  str("create: the .md file or .toml record file; move: the new file"),
		"fields":                fields, "add": list(relation), "remove": list(relation),
		"confirm": {Type: "array", Items: confirm, Description: "relation targets to re-confirm: the node's relations to each get a review stamp of the target as it is, so they are no longer suspect"},
	}, "op", "node_id")
	operation.Description = "one operation: op (create, update, move, relationship_update, delete), node_id, and what the op takes: path, fields, add, remove, confirm, expected_content_hash"
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[changeset.Operation](): operation,
		reflect.TypeFor[changeset.Fields]():    fields,
		reflect.TypeFor[changeset.Relation]():  relation,
		reflect.TypeFor[changeset.Confirm]():   confirm,
	}
}

// writer returns the bound writer, or proposal_access_disabled.
func (c *call) writer() (string, error) {
	if c.b.ProposalWriter == "" || c.b.CapabilityMode == protocol.ModeRead {
		return "", problem.Errorf(problem.ProposalAccessDisabled, "this server was started without --proposal-writer, so it cannot change changesets; docforge_validate_changeset, docforge_get_changeset_diff and docforge_preview_changeset still work")
	}
	return c.b.ProposalWriter, nil
}

func (c *call) desk() (*changeset.Desk, error) {
	d, err := changeset.NewDesk(c.d, c.b.Policy())
	if err == nil {
		d.UseCache(&c.svc.sources)
	}
	return d, err
}

// minimumReceipt is the smallest exact success receipt of a mutation; preflight checks that
// it fits before anything is written.
type minimumReceipt struct {
	ReceiptVersion    int    `json:"receipt_version"`
	Compact           bool   `json:"compact"`
	MutationCommitted bool   `json:"mutation_committed"`
	ChangesetID       string `json:"changeset_id"`
	Hash              string `json:"changeset_hash"`
	Status            string `json:"status"`
	Operation         string `json:"operation"`
}

// compactReceipt is the version-1 receipt a mutation returns when its full result is too large.
type compactReceipt struct {
	minimumReceipt
	OperationCount int  `json:"operation_count"`
	Valid          bool `json:"valid"`
	Errors         int  `json:"errors"`
	Stale          int  `json:"stale"`
	Conflicts      int  `json:"conflicts"`
	ReceiptSeq     int  `json:"receipt_seq"`
}

// preflight refuses a mutation whose minimum receipt could not fit the response limit.
func (c *call) preflight(tool string) error {
	probe := minimumReceipt{ReceiptVersion: 1, Compact: true, MutationCommitted: true, ChangesetID: strings.Repeat("x", 64),
		Hash: "sha256:" + strings.Repeat("0", 64), Status: changeset.Abandoned, Operation: tool}
	saved := c.env.Result
	c.env.Result = probe
	size := len(protocol.Marshal(c.env))
	c.env.Result = saved
	if size > c.d.Limits.MaxResponseChars {
		pe := problem.Errorf(problem.ResultTooLarge, "max_response_chars (%d) cannot hold even the %d-character receipt of %s; nothing was changed", c.d.Limits.MaxResponseChars, size, tool)
		c.stageName, c.committed = "preflight", new(bool)
		return pe
	}
	return nil
}

// mutationResult is the full result of a committed mutation.
type mutationResult struct {
	Operation         string               `json:"operation"`
	MutationCommitted bool                 `json:"mutation_committed"`
	ChangesetID       string               `json:"changeset_id"`
	Hash              string               `json:"changeset_hash"`
	Status            string               `json:"status"`
	Changeset         *changeset.Changeset `json:"changeset"`
	Receipt           changeset.Receipt    `json:"receipt"`
	Report            *changeset.Report    `json:"report,omitempty"`
}

// committed builds a mutation's full result and registers its compact and minimum receipts,
// so that the response fitting never turns a committed mutation into a failure.
func (c *call) committedResult(tool string, res *changeset.Result) any {
	rec := res.Record
	last := rec.Receipts[len(rec.Receipts)-1]
	minimum := minimumReceipt{ReceiptVersion: 1, Compact: true, MutationCommitted: true, ChangesetID: rec.Changeset.ID, Hash: rec.Hash, Status: rec.Status, Operation: tool}
	compact := compactReceipt{minimumReceipt: minimum, OperationCount: len(rec.Changeset.Operations), ReceiptSeq: last.Seq}
	if r := res.Report; r != nil {
		compact.Valid, compact.Errors, compact.Stale, compact.Conflicts = r.Valid, r.Errors, len(r.Stale), len(r.Conflicts)
	}
	c.fallbacks = []any{compact, minimum}
	return &mutationResult{Operation: tool, MutationCommitted: true, ChangesetID: rec.Changeset.ID, Hash: rec.Hash, Status: rec.Status,
		Changeset: rec.Changeset, Receipt: last, Report: res.Report}
}

func (c *call) mutate(tool string, fn func(d *changeset.Desk, writer string) (*changeset.Result, error)) (any, error) {
	writer, err := c.writer()
	if err != nil {
		return nil, err
	}
	if err := c.preflight(tool); err != nil {
		return nil, err
	}
	d, err := c.desk()
	if err != nil {
		return nil, err
	}
	res, err := fn(d, writer)
	if err != nil {
		return nil, err
	}
	return c.committedResult(tool, res), nil
}

func runCreateChangeset(c *call, a draftInput) (any, error) {
	req := changeset.Request{ID: a.ChangesetID, Title: a.Title, Description: a.Description, Operations: a.Operations}
	return c.mutate("docforge_create_changeset", func(d *changeset.Desk, w string) (*changeset.Result, error) { return d.Create(c.ctx, w, req) })
}

func runRegister(c *call, a registerInput) (any, error) {
	req := changeset.Request{ID: a.ChangesetID, Title: a.Title, Description: a.Description, Operations: a.Operations}
	return c.mutate("docforge_register_changes", func(d *changeset.Desk, w string) (*changeset.Result, error) { return d.Register(c.ctx, w, req) })
}

// runPropose queues one operation (its tool's input made it) into a changeset.
func runPropose(c *call, changesetID string, op changeset.Operation) (any, error) {
	if op.Op == changeset.OpRelationshipUpdate && len(op.Add)+len(op.Remove)+len(op.Confirm) == 0 {
		return nil, problem.Errorf(problem.InvalidArgument, "the relationship list is empty: give add, remove or confirm")
	}
	return c.mutate(proposeTool(op.Op), func(d *changeset.Desk, w string) (*changeset.Result, error) {
		return d.Propose(c.ctx, w, changesetID, op)
	})
}

// proposeTool is the name of the tool that queues op: docforge_propose_node_OP, but
// docforge_propose_relationship_update for relations.
func proposeTool(op string) string {
	if op == changeset.OpRelationshipUpdate {
		return "docforge_propose_relationship_update"
	}
	return "docforge_propose_node_" + op
}

func runRebase(c *call, a changesetInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return c.mutate("docforge_rebase_changeset", func(d *changeset.Desk, w string) (*changeset.Result, error) { return d.Rebase(c.ctx, w, a.ChangesetID) })
}

func runAbandon(c *call, a abandonInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	return c.mutate("docforge_abandon_changeset", func(d *changeset.Desk, w string) (*changeset.Result, error) {
		return d.Abandon(c.ctx, w, a.ChangesetID, a.Reason)
	})
}

// changesetEntry is one changeset in a list.
type changesetEntry struct {
	ID             string `json:"changeset_id"`
	Title          string `json:"title"`
	Writer         string `json:"writer"`
	Status         string `json:"status"`
	Hash           string `json:"changeset_hash"`
	OperationCount int    `json:"operation_count"`
	Chars          int    `json:"chars"`
	UpdatedAt      string `json:"updated_at"`
}

func runListChangesets(c *call, a listChangesetsInput) (any, error) {
	want := map[string][]string{"": {changeset.Draft, changeset.Ready}, "open": {changeset.Draft, changeset.Ready, changeset.Stale},
		"all": {changeset.Draft, changeset.Ready, changeset.Stale, changeset.Applied, changeset.Abandoned}}
	statuses, ok := want[a.Status]
	if !ok {
		statuses = []string{a.Status}
		if !slices.Contains(want["all"], a.Status) {
			return nil, problem.Errorf(problem.InvalidArgument, "status %q is not one of draft, ready, stale, applied, abandoned, open, all", a.Status)
		}
	}
	d, err := c.desk()
	if err != nil {
		return nil, err
	}
	recs, bad, err := d.ListCurrent(c.ctx)
	if err != nil {
		return nil, err
	}
	var stream []json.RawMessage
	var ids []string
	for _, r := range recs {
		if !slices.Contains(statuses, r.Status) {
			continue
		}
		last := r.Receipts[len(r.Receipts)-1]
		e := changesetEntry{ID: r.Changeset.ID, Title: r.Changeset.Title, Writer: r.Changeset.Writer, Status: r.Status, Hash: r.Hash,
			OperationCount: len(r.Changeset.Operations), Chars: r.Chars, UpdatedAt: last.At}
		b, _ := json.Marshal(e)
		stream, ids = append(stream, b), append(ids, e.ID)
	}
	unreadable := []string{}
	for _, e := range bad {
		unreadable = append(unreadable, e.Error())
	}
	frame := map[string]any{"statuses": statuses, "changesets": []json.RawMessage{}, "unreadable": unreadable, "pagination": Pagination{}}
	c.boundLists(frame, "unreadable")
	return c.page("docforge_list_changesets", a.pageArgs, a.Status, hashJSON("changesets", ids), stream, ids, frame, "changesets")
}

// listSummary stands in a page frame for a list too long to repeat on every page: what
// identifies it (count, characters, hash) and where it is read whole.
type listSummary struct {
	Count int    `json:"count"`
	Chars int    `json:"chars"`
	Hash  string `json:"hash"`
	Where string `json:"where"`
}

// frameListShare is the part of max_response_chars one list of a page frame may take: a frame
// is on every page, and a few lists at this share still leave most of a page to its entries.
const frameListShare = 10

// boundLists replaces each of frame's lists at keys whose JSON is over a tenth of one response
// with a summary under key_summary, so that a changeset of any size pages within the limit.
func (c *call) boundLists(frame map[string]any, keys ...string) {
	where := map[string]string{
		"touches": "the node_id of each operation, in the operations pages",
		"paths":   "the files the operations write: each operation's path, in docforge_get_changeset's operations pages",
	}
	for _, k := range keys {
		b := protocol.Marshal(frame[k])
		if c.local || len(b) <= c.d.Limits.MaxResponseChars/frameListShare {
			continue
		}
		var items []json.RawMessage
		json.Unmarshal(b, &items)
		w, ok := where[k]
		if !ok {
			w = "whole in the CLI's answer (docforge changeset show or validate ID)"
		}
		sum := sha256.Sum256(b)
		delete(frame, k)
		frame[k+"_summary"] = listSummary{Count: len(items), Chars: len(b), Hash: "sha256:" + hex.EncodeToString(sum[:]), Where: w}
	}
}

// page cuts one page of stream into frame[key], bound by a cursor to the request and the
// collection.
func (c *call) page(tool string, pa pageArgs, params any, collection string, stream []json.RawMessage, ids []string, frame map[string]any, key string) (any, error) {
	want := c.cursorOf(tool, 0, pa.Limit, params, collection)
	pos, err := resumeAt(pa.Cursor, want)
	if err != nil {
		return nil, err
	}
	pos = min(pos, len(stream))
	p := pack(stream, ids, pos, c.pageLimit(pa.Limit), c.pageBudget(frame), omittedForSize)
	frame[key] = p.entries
	if p.entries == nil {
		frame[key] = []json.RawMessage{} // an empty page is [], never null
	}
	if len(p.omissions) > 0 {
		frame["summaries"] = p.omissions
	}
	frame["pagination"] = pagination(want, p, len(stream), pos)
	return frame, nil
}

// loadChangeset loads the changeset a tool's input names.
func (c *call) loadChangeset(a changesetInput) (*changeset.Desk, *changeset.Record, error) {
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	d, err := c.desk()
	if err != nil {
		return nil, nil, err
	}
	rec, err := d.Store.Load(a.ChangesetID)
	return d, rec, err
}

func runGetChangeset(c *call, a changesetPageInput) (any, error) {
	_, rec, err := c.loadChangeset(a.changesetInput)
	if err != nil {
		return nil, err
	}
	stream, ids := operationStream(rec.Changeset)
	cs := rec.Changeset
	frame := map[string]any{"changeset_id": cs.ID, "title": cs.Title, "description": cs.Description, "writer": cs.Writer, "project_id": cs.ProjectID,
		"changeset_hash": rec.Hash, "status": rec.Status, "chars": rec.Chars, "operation_count": len(cs.Operations), "touches": cs.Touches(),
		"receipts": rec.Receipts, "operations": []json.RawMessage{}, "pagination": Pagination{}}
	c.boundLists(frame, "touches", "receipts")
	return c.page("docforge_get_changeset", a.pageArgs, cs.ID, rec.Hash, stream, ids, frame, "operations")
}

func operationStream(cs *changeset.Changeset) ([]json.RawMessage, []string) {
	var stream []json.RawMessage
	var ids []string
	for _, op := range cs.Operations {
		b, _ := changeset.Canonical(op)
		stream, ids = append(stream, b), append(ids, op.NodeID)
	}
	return stream, ids
}

func runValidateChangeset(c *call, a changesetPageInput) (any, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	d, err := c.desk()
	if err != nil {
		return nil, err
	}
	rec, checked, src, err := d.Validate(c.ctx, a.ChangesetID)
	if err != nil {
		return nil, err
	}
	rep := checked.Report
	var stream []json.RawMessage
	var ids []string
	for _, p := range rep.Problems {
		b, _ := json.Marshal(p)
		stream, ids = append(stream, b), append(ids, p.NodeID)
	}
	frame := map[string]any{"changeset_id": rep.ChangesetID, "changeset_hash": rec.Hash, "status": rep.Status, "valid": rep.Valid,
		"errors": rep.Errors, "warnings": rep.Warnings, "stale": rep.Stale, "conflicts": rep.Conflicts, "base_errors": rep.BaseErrors,
		"paths": rep.Paths, "problems": []json.RawMessage{}, "pagination": Pagination{}}
	c.boundLists(frame, "stale", "conflicts", "paths")
	return c.page("docforge_validate_changeset", a.pageArgs, rec.Changeset.ID, hashJSON("validation", []string{rec.Hash, src.Identity()}), stream, ids, frame, "problems")
}

// diffPayload is what chunked diff pages reconstruct.
type diffPayload struct {
	Operations []changeset.Operation `json:"operations"`
	Changes    []changeset.Change    `json:"changes"`
}

func runChangesetDiff(c *call, a changesetPageInput) (any, error) {
	d, rec, err := c.loadChangeset(a.changesetInput)
	if err != nil {
		return nil, err
	}
	src, err := d.Sources(c.ctx)
	if err != nil {
		return nil, err
	}
	collection := hashJSON("diff", []string{rec.Hash, src.Identity()})
	// The stream is every operation, then every change; each page holds a run of it.
	diff := c.svc.diffs.get(collection, func() *diffEntry {
		changes := src.Changes(src.Check(rec.Changeset, nil, false))
		e := &diffEntry{key: collection, changes: changes}
		e.ops, _ = operationStream(rec.Changeset)
		e.stream = slices.Clone(e.ops)
		for _, ch := range changes {
			b, _ := changeset.Canonical(ch)
			e.stream = append(e.stream, b)
		}
		return e
	})
	ops, changes, stream := diff.ops, diff.changes, diff.stream
	frame := map[string]any{"changeset_id": rec.Changeset.ID, "changeset_hash": rec.Hash, "status": rec.Status, "format": "pages",
		"operation_count": len(ops), "change_count": len(changes), "operations": []json.RawMessage{}, "changes": []json.RawMessage{}, "pagination": Pagination{}}
	budget := c.pageBudget(frame)
	chunked := strings.HasSuffix(decodeOp(a.Cursor), "#chunk")
	for _, e := range stream {
		if len(e)+1 > budget {
			chunked = true
		}
	}
	if chunked {
		payload, err := changeset.Canonical(diffPayload{Operations: rec.Changeset.Operations, Changes: changes})
		if err != nil {
			return nil, err
		}
		return c.chunkPage(a.pageArgs, rec, collection, payload)
	}
	want := c.cursorOf("docforge_get_changeset_diff", 0, a.Limit, rec.Changeset.ID, collection)
	pos, err := resumeAt(a.Cursor, want)
	if err != nil {
		return nil, err
	}
	pos = min(pos, len(stream))
	p := pack(stream, nil, pos, c.pageLimit(a.Limit), budget, omittedForSize)
	var pageOps, pageChanges []json.RawMessage
	for i, e := range p.entries {
		if pos+i < len(ops) {
			pageOps = append(pageOps, e)
		} else {
			pageChanges = append(pageChanges, e)
		}
	}
	frame["operations"], frame["changes"] = nonNilRaw(pageOps), nonNilRaw(pageChanges)
	frame["pagination"] = pagination(want, p, len(stream), pos)
	return frame, nil
}

// diffCache keeps the last few changeset diffs by their collection hash (the changeset's exact
// hash and the sources' identity): a diff of thousands of operations is checked once, not once
// for each page a client reads of it.
type diffCache struct {
	mu      sync.Mutex
	entries []*diffEntry // the most recent last
}

type diffEntry struct {
	key         string
	ops, stream []json.RawMessage
	changes     []changeset.Change
}

// diffCacheSize is how many diffs the cache keeps: a few clients paging at once.
const diffCacheSize = 4

// get returns the diff of key, made by build when it is not kept.
func (dc *diffCache) get(key string, build func() *diffEntry) *diffEntry {
	dc.mu.Lock()
	for i, e := range dc.entries {
		if e.key == key {
			dc.entries = append(append(dc.entries[:i:i], dc.entries[i+1:]...), e)
			dc.mu.Unlock()
			return e
		}
	}
	dc.mu.Unlock()
	e := build()
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if len(dc.entries) == diffCacheSize {
		dc.entries = dc.entries[1:]
	}
	dc.entries = append(dc.entries, e)
	return e
}

func nonNilRaw(s []json.RawMessage) []json.RawMessage {
	if s == nil {
		return []json.RawMessage{}
	}
	return s
}

// decodeOp returns the operation a cursor was issued for, or "" for none or a bad cursor
// (which the resume then reports).
func decodeOp(raw string) string {
	if raw == "" {
		return ""
	}
	cur, err := decodeCursor(raw)
	if err != nil {
		return ""
	}
	return cur.Operation
}

// chunkPage returns one canonical_json_chunk page of payload. The payload is ASCII, so a cut
// anywhere is safe, and its hash lets the client check the reassembly.
func (c *call) chunkPage(pa pageArgs, rec *changeset.Record, collection string, payload []byte) (any, error) {
	want := c.cursorOf("docforge_get_changeset_diff#chunk", 0, pa.Limit, rec.Changeset.ID, collection)
	index0, err := resumeAt(pa.Cursor, want)
	if err != nil {
		return nil, err
	}
	frame := map[string]any{"changeset_id": rec.Changeset.ID, "changeset_hash": rec.Hash, "status": rec.Status, "format": "canonical_json_chunk",
		"payload_hash": changeset.HashBytes(payload), "total_chars": len(payload), "chunk_index": 0, "chunk_count": 0, "chunk": "",
		"pagination": Pagination{NextCursor: strings.Repeat("x", 600)}}
	// JSON-escaping the chunk's quotes and backslashes can double it; size for the worst case.
	size := max(c.pageBudget(frame)/2, 1)
	count := (len(payload) + size - 1) / size
	if index0 >= count && count > 0 {
		return nil, problem.Errorf(problem.InvalidCursor, "chunk %d is past the last (%d)", index0, count-1)
	}
	start := index0 * size
	end := min(start+size, len(payload))
	frame["chunk_index"], frame["chunk_count"], frame["chunk"] = index0, count, string(payload[start:end])
	pg := Pagination{Returned: 1, Total: count, Position: index0, HasMore: index0+1 < count}
	if pg.HasMore {
		want.Position = index0 + 1
		pg.NextCursor = want.encode()
	}
	frame["pagination"] = pg
	return frame, nil
}

func runPreview(c *call, a previewInput) (any, error) {
	if a.ChangesetID == "" || a.ViewID == "" {
		return nil, problem.Errorf(problem.InvalidArgument, "changeset_id and view_id are required")
	}
	if err := c.preflight("docforge_preview_changeset"); err != nil {
		return nil, err
	}
	out, err := PreviewChangeset(c.ctx, c.d, c.b.Policy(), &c.svc.sources, a.ChangesetID, a.ViewID)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PreviewResult says where a preview was written.
type PreviewResult struct {
	ChangesetID string `json:"changeset_id"`
	Hash        string `json:"changeset_hash"`
	ViewID      string `json:"view_id"`
	Renderer    string `json:"renderer"`
	Path        string `json:"path"` // project-relative
	Bytes       int64  `json:"bytes"`
	SHA256      string `json:"sha256"`
	Nodes       int    `json:"nodes"`
}

// PreviewChangeset renders view with changeset id applied into preview_root/ID/VIEW.html,
// atomically; it writes nothing else.
// cache may be nil.
func PreviewChangeset(ctx context.Context, d *project.Descriptor, policy string, cache *changeset.Cache, id, view string) (*PreviewResult, error) {
	v, err := render.ViewByID(d, view)
	if err != nil {
		return nil, err
	}
	desk, err := changeset.NewDesk(d, policy)
	if err != nil {
		return nil, err
	}
	desk.UseCache(cache)
	rec, err := desk.Store.Load(id)
	if err != nil {
		return nil, err
	}
	src, err := desk.Sources(ctx)
	if err != nil {
		return nil, err
	}
	checked := src.Check(rec.Changeset, nil, false)
	if n := len(checked.Projection.Problems); n > 0 {
		pe := problem.Errorf(problem.ChangesetInvalid, "%d operations cannot be carried out on the current sources, so there is nothing to preview", n)
		pe.Problems = checked.Projection.Problems
		return nil, pe
	}
	g, err := render.LoadWith(ctx, d, policy, checked.Projection.Overlay)
	if err != nil {
		if problem.CodeOf(err) == problem.ProjectInvalid {
			pe := problem.Errorf(problem.ChangesetInvalid, "with changeset %s the project does not validate, so it cannot be rendered; see docforge_validate_changeset", id)
			var inner *problem.Error
			if errors.As(err, &inner) {
				pe.Problems = inner.Problems
			}
			return nil, pe
		}
		return nil, err
	}
	root := filepath.Join(d.Root, filepath.FromSlash(d.Proposals.PreviewRoot))
	dir := filepath.Join(root, id)
	out := filepath.Join(dir, view+".html")
	if err := changeset.Confined(d.Root, root, out, d.Proposals.PreviewRoot); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	if err := changeset.Confined(d.Root, root, out, d.Proposals.PreviewRoot); err != nil {
		return nil, err // a symlink raced in while the folders were made
	}
	page, err := render.WritePage(out, d, g, v)
	if err != nil {
		return nil, fmt.Errorf("preview %s: %w", id, err)
	}
	rel, _ := filepath.Rel(d.Root, out)
	return &PreviewResult{ChangesetID: id, Hash: rec.Hash, ViewID: view, Renderer: render.HTML.ID(), Path: filepath.ToSlash(rel), Bytes: page.Bytes, SHA256: page.SHA256, Nodes: page.Nodes}, nil
}
