package changeset

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
)

// Projection is a changeset projected onto the sources: the proposed bytes of every file it
// touches and what went wrong on the way.
type Projection struct {
	Overlay *source.Overlay
	// Problems are operations that cannot be carried out (unknown node, bad path, ...).
	Problems []problem.Problem
	// Stale lists operations whose expected content hash is no longer the node's.
	Stale []StaleNode
	// Paths are the files the changeset writes or removes, sorted.
	Paths []string

	files    map[string]*string // working set: path -> proposed text; nil: removed
	where    map[string]string  // node ID -> path, as the operations leave it
	created  map[string]bool    // nodes the changeset creates
	fragment map[string]*graph.Fragment
}

// StaleNode is an operation written against content that has since changed.
type StaleNode struct {
	OperationIndex int    `json:"operation_index"`
	NodeID         string `json:"node_id"`
	Expected       string `json:"expected_content_hash"`
	Current        string `json:"current_content_hash,omitempty"` // "" when the node is gone
}

// Project applies cs's operations, in order, to an in-memory copy of the touched files. With
// capture, an existing-node operation without expected_content_hash gets the node's current
// hash (cs is modified); without it, a missing hash is a problem.
func (s *Sources) Project(cs *Changeset, capture bool) *Projection {
	p := &Projection{files: map[string]*string{}, where: map[string]string{}, created: map[string]bool{}}
	for i := range cs.Operations {
		op := &cs.Operations[i]
		if err := s.apply(p, i, op, capture); err != nil {
			pr := problemOf(err)
			pr.Message = fmt.Sprintf("operations[%d] %s %s: %s", i, op.Op, op.NodeID, pr.Message)
			pr.NodeID = op.NodeID
			p.Problems = append(p.Problems, pr)
		}
	}
	p.Overlay = &source.Overlay{Files: map[string][]byte{}, Removed: map[string]bool{}}
	for _, rel := range sortedKeys(p.files) {
		p.Paths = append(p.Paths, rel)
		if t := p.files[rel]; t != nil {
			p.Overlay.Files[rel] = []byte(*t)
		} else if _, existed := s.frags[rel]; existed {
			p.Overlay.Removed[rel] = true
		}
	}
	return p
}

func problemOf(err error) problem.Problem {
	if pe, ok := err.(*problem.Error); ok {
		return pe.Problem
	}
	return problem.New(problem.Internal, problem.Location{}, "%v", err)
}

func opError(c problem.Code, format string, args ...any) error {
	return problem.Errorf(c, format, args...)
}

// text returns the working text of a file: proposed, or read from disk.
func (s *Sources) text(p *Projection, rel string) (string, bool, error) {
	if t, ok := p.files[rel]; ok {
		if t == nil {
			return "", false, nil
		}
		return *t, true, nil
	}
	return s.readFile(rel)
}

// locate returns the path a node is in, as the operations so far leave it.
func (s *Sources) locate(p *Projection, id string) (string, bool) {
	if rel, ok := p.where[id]; ok {
		return rel, rel != ""
	}
	at, ok := s.nodes[id]
	return at.path, ok
}

func (s *Sources) apply(p *Projection, i int, op *Operation, capture bool) error {
	if op.NodeID == "" {
		return opError(problem.InvalidArgument, "node_id is required")
	}
	if graph.IsCode(op.NodeID) {
		return opError(problem.InvalidArgument, "%s is a code node: it is derived from Go code and changes only with the code", op.NodeID)
	}
	if err := checkFields(op.Fields); err != nil {
		return err
	}
	if op.Op == OpCreate {
		return s.create(p, op)
	}
	if !slices.Contains([]string{OpUpdate, OpMove, OpRelationshipUpdate, OpDelete}, op.Op) {
		return opError(problem.InvalidArgument, "unknown op %q; use create, update, move, relationship_update or delete", op.Op)
	}
	rel, ok := s.locate(p, op.NodeID)
	if !ok {
		return opError(problem.NodeNotFound, "no node %q exists (at this point of the changeset)", op.NodeID)
	}
	if _, base := s.nodes[op.NodeID]; base && !p.created[op.NodeID] {
		current := s.nodes[op.NodeID].node.ContentHash
		switch {
		case op.ExpectedContentHash == "" && capture:
			op.ExpectedContentHash = current
		case op.ExpectedContentHash == "":
			return opError(problem.InvalidArgument, "expected_content_hash is required (the node's content_hash from docforge_get_node)")
		case op.ExpectedContentHash != current:
			p.Stale = append(p.Stale, StaleNode{OperationIndex: i, NodeID: op.NodeID, Expected: op.ExpectedContentHash, Current: current})
		}
	}
	if _, known := s.frags[rel]; !known && !p.created[op.NodeID] && p.files[rel] == nil {
		return opError(problem.NodeNotFound, "node %q has no source file", op.NodeID)
	}
	switch op.Op {
	case OpUpdate:
		return s.update(p, rel, op)
	case OpMove:
		return s.move(p, rel, op)
	case OpRelationshipUpdate:
		return s.relationships(p, i, rel, op, capture)
	default:
		return s.remove(p, rel, op)
	}
}

func (p *Projection) put(rel, text string) { p.files[rel] = &text }

func (s *Sources) create(p *Projection, op *Operation) error {
	if _, exists := s.locate(p, op.NodeID); exists {
		return opError(problem.DuplicateID, "node %q already exists", op.NodeID)
	}
	if !source.ValidDocID(op.NodeID) {
		return opError(problem.InvalidID, "node ID %q is not valid: use lowercase letters, digits and . _ - /", op.NodeID)
	}
	if op.Fields == nil {
		return opError(problem.InvalidArgument, "fields are required: at least kind and family")
	}
	if op.Path == "" {
		return opError(problem.InvalidArgument, "path is required: the .md file to create or the .toml record file to add to")
	}
	if _, err := s.contentPath(op.Path); err != nil {
		return err
	}
	text, exists, err := s.text(p, op.Path)
	if err != nil {
		return err
	}
	f := op.Fields
	switch path.Ext(op.Path) {
	case ".md":
		if exists {
			return opError(problem.InvalidArgument, "%s already exists; a Markdown file holds one node", op.Path)
		}
		lines := append([]string{"+++"}, fieldLines(op.NodeID, f, false)...)
		lines = append(lines, relationLines("relations", f.Relations)...)
		lines = append(lines, "+++")
		body := ""
		if f.Body != nil {
			body = *f.Body
		}
		p.put(op.Path, strings.Join(lines, "\n")+"\n"+body)
	default:
		block := append([]string{"[[node]]"}, fieldLines(op.NodeID, f, true)...)
		block = append(block, relationLines("node.relations", f.Relations)...)
		p.put(op.Path, appendBlock(text, exists, block))
	}
	p.where[op.NodeID], p.created[op.NodeID] = op.Path, true
	return nil
}

// appendBlock adds a record block to a record file's text.
func appendBlock(text string, exists bool, block []string) string {
	if !exists || strings.TrimSpace(text) == "" {
		return strings.Join(block, "\n") + "\n"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + "\n" + strings.Join(block, "\n") + "\n"
}

// fieldLines encodes a new node's fields in the order the loader documents them.
func fieldLines(id string, f *Fields, record bool) []string {
	lines := []string{"id = " + tomlString(id)}
	for _, kv := range []struct {
		key string
		v   *string
	}{{"kind", f.Kind}, {"family", f.Family}, {"title", f.Title}, {"status", f.Status}, {"authority", f.Authority}} {
		if kv.v != nil && *kv.v != "" {
			lines = append(lines, kv.key+" = "+tomlString(*kv.v))
		}
	}
	if f.Tags != nil && len(*f.Tags) > 0 {
		lines = append(lines, "tags = "+tomlArray(*f.Tags))
	}
	if record && f.Body != nil && *f.Body != "" {
		lines = append(lines, "body = "+tomlText(*f.Body))
	}
	return lines
}

func relationLines(table string, rels map[string][]string) []string {
	var lines []string
	for _, r := range sortedKeys(rels) {
		if len(rels[r]) > 0 {
			lines = append(lines, r+" = "+tomlArray(rels[r]))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return append([]string{"[" + table + "]"}, lines...)
}

// mdFile is a Markdown node file split into its front matter lines and body bytes.
type mdFile struct {
	head []string // the opening fence, the front matter lines, the closing fence
	tail bool     // a newline follows the closing fence
	body string
}

// noTOMLFrontMatter refuses to edit a Markdown file whose front matter is not TOML: proposals
// edit TOML front matter line by line, and rewriting YAML would lose its comments and layout.
func noTOMLFrontMatter(rel, text string) error {
	if first, _, _ := strings.Cut(text, "\n"); strings.TrimRight(first, " \t\r") == "---" {
		return opError(problem.OperationNotPermitted, "%s has YAML front matter, which proposals cannot edit yet; edit the file by hand, or convert its front matter to TOML (+++)", rel)
	}
	return opError(problem.MalformedFrontMatter, "%s has no +++ front matter to edit", rel)
}

func splitMD(text string) (mdFile, bool) {
	lines := strings.Split(text, "\n")
	if strings.TrimRight(lines[0], " \t\r") != "+++" {
		return mdFile{}, false
	}
	for k := 1; k < len(lines); k++ {
		if strings.TrimRight(lines[k], " \t\r") == "+++" {
			m := mdFile{head: lines[:k+1], tail: k+1 < len(lines)}
			m.body = strings.Join(lines[k+1:], "\n")
			return m, true
		}
	}
	return mdFile{}, false
}

func (m mdFile) join() string {
	s := strings.Join(m.head, "\n")
	if m.tail || m.body != "" {
		s += "\n" + m.body
	}
	return s
}

// frontMatter returns the front matter lines (without fences).
func (m mdFile) frontMatter() []string { return m.head[1 : len(m.head)-1] }

func (m *mdFile) setFrontMatter(fm []string) {
	head := append([]string{m.head[0]}, fm...)
	m.head = append(head, m.head[len(m.head)-1])
}

// recordBlock finds the [[node]] table with id in a record file's lines: the header line and
// the end of its content (trailing blank lines included, a following comment not).
func recordBlock(lines []string, id string) (start, end int, ok bool) {
	items := scanItems(lines, 0, len(lines))
	for i, it := range items {
		if !it.array || it.header != "node" {
			continue
		}
		next := len(lines)
		for _, later := range items[i+1:] {
			if later.array {
				next = later.start
				break
			}
		}
		for _, e := range items[i+1:] {
			if e.start >= next || e.header != "" {
				break
			}
			if e.key == "id" && decodeEntry(lines, e) == id {
				end = lastContent(lines, it.start+1, next)
				for end < next && strings.TrimSpace(lines[end]) == "" {
					end++
				}
				return it.start, end, true
			}
		}
	}
	return 0, 0, false
}

// editNode applies a field and relation edit to node id in file rel.
func (s *Sources) editNode(p *Projection, rel, id string, e nodeEdit, body *string) error {
	text, ok, err := s.text(p, rel)
	if err != nil {
		return err
	}
	if !ok {
		return opError(problem.NodeNotFound, "%s no longer exists", rel)
	}
	if path.Ext(rel) == ".md" {
		m, ok := splitMD(text)
		if !ok {
			return noTOMLFrontMatter(rel, text)
		}
		fm := m.frontMatter()
		m.setFrontMatter(editRegion(fm, 0, len(fm), "relations", e))
		if body != nil {
			m.body, m.tail = *body, true
		}
		p.put(rel, m.join())
		return nil
	}
	lines := strings.Split(text, "\n")
	start, end, ok := recordBlock(lines, id)
	if !ok {
		return opError(problem.NodeNotFound, "no [[node]] with id %q in %s", id, rel)
	}
	if body != nil {
		v := tomlText(*body)
		if *body == "" {
			e.set["body"] = nil
		} else {
			e.set["body"] = &v
		}
		e.order = append(e.order, "body")
	}
	block := editRegion(lines[start:end], 1, end-start, "node.relations", e)
	out := slices.Concat(lines[:start], block, lines[end:])
	p.put(rel, strings.Join(out, "\n"))
	return nil
}

func (s *Sources) update(p *Projection, rel string, op *Operation) error {
	f := op.Fields
	if f == nil {
		return opError(problem.InvalidArgument, "fields are required: the fields to set")
	}
	if f.Relations != nil {
		return opError(problem.InvalidArgument, "an update does not change relations; use a relationship_update operation")
	}
	e := nodeEdit{set: map[string]*string{}}
	for _, kv := range []struct {
		key string
		v   *string
	}{{"kind", f.Kind}, {"family", f.Family}, {"title", f.Title}, {"status", f.Status}, {"authority", f.Authority}} {
		if kv.v == nil {
			continue
		}
		e.order = append(e.order, kv.key)
		if *kv.v != "" {
			v := tomlString(*kv.v)
			e.set[kv.key] = &v
		} else {
			e.set[kv.key] = nil
		}
	}
	if f.Tags != nil {
		e.order = append(e.order, "tags")
		if len(*f.Tags) > 0 {
			v := tomlArray(*f.Tags)
			e.set["tags"] = &v
		} else {
			e.set["tags"] = nil
		}
	}
	if len(e.order) == 0 && f.Body == nil {
		return opError(problem.InvalidArgument, "fields sets nothing: give at least one of kind, family, title, status, authority, tags, body")
	}
	return s.editNode(p, rel, op.NodeID, e, f.Body)
}

// declared reads the relations a node declares in its file (not those its body derives).
func (s *Sources) declared(p *Projection, rel, id string) (map[string][]string, error) {
	text, _, err := s.text(p, rel)
	if err != nil {
		return nil, err
	}
	var doc string
	if path.Ext(rel) == ".md" {
		m, ok := splitMD(text)
		if !ok {
			return nil, noTOMLFrontMatter(rel, text)
		}
		doc = strings.Join(m.frontMatter(), "\n")
		var fm struct {
			Relations map[string][]string `toml:"relations"`
		}
		if _, err := toml.Decode(doc, &fm); err != nil {
			return nil, opError(problem.MalformedFrontMatter, "%s: %v", rel, err)
		}
		return fm.Relations, nil
	}
	lines := strings.Split(text, "\n")
	start, end, ok := recordBlock(lines, id)
	if !ok {
		return nil, opError(problem.NodeNotFound, "no [[node]] with id %q in %s", id, rel)
	}
	var rf struct {
		Node []struct {
			Relations map[string][]string `toml:"relations"`
		} `toml:"node"`
	}
	if _, err := toml.Decode(strings.Join(lines[start:end], "\n"), &rf); err != nil || len(rf.Node) != 1 {
		return nil, opError(problem.MalformedTOML, "%s: the [[node]] table of %q does not decode", rel, id)
	}
	return rf.Node[0].Relations, nil
}

func (s *Sources) relationships(p *Projection, i int, rel string, op *Operation, capture bool) error {
	if len(op.Add)+len(op.Remove)+len(op.Confirm) == 0 {
		return opError(problem.InvalidArgument, "the relationship list is empty: give add, remove or confirm")
	}
	if op.Fields != nil || op.Path != "" {
		return opError(problem.InvalidArgument, "a relationship_update takes only add, remove and confirm; it never rewrites content")
	}
	if len(op.Add)+len(op.Remove) > 0 {
		if err := s.editRelations(p, rel, op); err != nil {
			return err
		}
	}
	return s.restamp(p, i, rel, op, capture)
}

// editRelations carries out a relationship update's additions and removals.
func (s *Sources) editRelations(p *Projection, rel string, op *Operation) error {
	current, err := s.declared(p, rel, op.NodeID)
	if err != nil {
		return err
	}
	changed := map[string][]string{}
	list := func(r string) []string {
		if l, ok := changed[r]; ok {
			return l
		}
		return slices.Clone(current[r])
	}
	for _, rm := range op.Remove {
		l := list(rm.Relation)
		i := slices.Index(l, rm.Target)
		if i < 0 {
			msg := "%s does not declare %s %q"
			if rm.Relation == "relates_to" {
				msg += "; a relates_to that comes from a [[link]] in the body goes away only with an update of the body"
			}
			return opError(problem.InvalidArgument, msg, op.NodeID, rm.Relation, rm.Target)
		}
		changed[rm.Relation] = slices.Delete(l, i, i+1)
	}
	for _, add := range op.Add {
		if add.Relation == "" || add.Target == "" {
			return opError(problem.InvalidArgument, "every relation needs relation and target_id")
		}
		if !s.d.HasRelation(add.Relation) {
			return opError(problem.UndeclaredRelation, "relation %q is not in [relations].allowed (allowed: %s)", add.Relation, strings.Join(s.d.Relations.Allowed, ", "))
		}
		l := list(add.Relation)
		if slices.Contains(l, add.Target) {
			return opError(problem.InvalidArgument, "%s already declares %s %q", op.NodeID, add.Relation, add.Target)
		}
		changed[add.Relation] = append(l, add.Target)
	}
	return s.editNode(p, rel, op.NodeID, nodeEdit{set: map[string]*string{}, relations: changed}, nil)
}

// restamp writes the stamps a relationship update leaves: each confirmed target stamped as
// it is in the base, and the stamps of targets the node no longer relates to dropped.
func (s *Sources) restamp(p *Projection, i int, rel string, op *Operation, capture bool) error {
	text, ok, err := s.text(p, rel)
	if err != nil {
		return err
	}
	if !ok {
		return opError(problem.NodeNotFound, "%s no longer exists", rel)
	}
	node, targets := s.projected(p, rel, text, op.NodeID)
	if node == nil {
		return opError(problem.NodeNotFound, "node %q does not parse in %s", op.NodeID, rel)
	}
	stamps := map[string]graph.Stamp{}
	for _, st := range node.Stamps {
		if slices.Contains(targets, st.Target) {
			stamps[st.Target] = st
		}
	}
	for _, cf := range op.Confirm {
		if !slices.Contains(targets, cf.Target) {
			return opError(problem.InvalidArgument, "%s has no relation to %q to confirm; add the relation first (add), or check the target ID", op.NodeID, cf.Target)
		}
		if _, touched := p.where[cf.Target]; touched {
			return opError(problem.InvalidArgument, "%s is changed by this changeset, so there is nothing settled to confirm yet; confirm it in a later changeset once this one is applied", cf.Target)
		}
		at, exists := s.nodes[cf.Target]
		if !exists {
			return opError(problem.DanglingTarget, "%s does not exist, so its relation cannot be confirmed; fix or remove the relation", cf.Target)
		}
		current := at.node.ContentHash
		switch {
		case cf.ContentHash == "" && capture:
			op.Confirm[slices.IndexFunc(op.Confirm, func(c Confirm) bool { return c.Target == cf.Target })].ContentHash = current
		case cf.ContentHash == "":
			return opError(problem.InvalidArgument, "confirm %s needs content_hash (the target's content_hash from docforge_get_node)", cf.Target)
		case cf.ContentHash != current:
			p.Stale = append(p.Stale, StaleNode{OperationIndex: i, NodeID: cf.Target, Expected: cf.ContentHash, Current: current})
		}
		stamps[cf.Target] = graph.StampOf(at.node)
	}
	if len(stamps) == len(node.Stamps) && len(op.Confirm) == 0 {
		return nil // nothing confirmed and nothing dropped: the file keeps its bytes
	}
	list := make([]graph.Stamp, 0, len(stamps))
	for _, t := range sortedKeys(stamps) {
		list = append(list, stamps[t])
	}
	after, err := setStamps(rel, text, op.NodeID, list)
	if err != nil {
		return err
	}
	if err := s.checkStampEdit(rel, text, after, nil, map[string][]graph.Stamp{op.NodeID: list}); err != nil {
		return err
	}
	p.put(rel, after)
	return nil
}

// projected parses the working text of rel and returns node id as the changeset leaves it,
// with the targets of its relations, declared and made by links, among every file as the
// changeset leaves them.
func (s *Sources) projected(p *Projection, rel, text, id string) (*graph.Node, []string) {
	over := map[string]*graph.Fragment{}
	for path, t := range p.files {
		if t == nil {
			over[path] = nil
		} else if format, ok := source.ContentFormat(s.d, path); ok {
			over[path] = source.Parse(s.d, path, format, []byte(*t))
		}
	}
	format, _ := source.ContentFormat(s.d, rel)
	f := source.Parse(s.d, rel, format, []byte(text))
	over[rel] = f
	var node *graph.Node
	for i := range f.Nodes {
		if f.Nodes[i].ID == id {
			node = &f.Nodes[i]
		}
	}
	var targets []string
	for _, e := range s.checker(over).Edges() {
		if e.Source == id && !slices.Contains(targets, e.Target) {
			targets = append(targets, e.Target)
		}
	}
	return node, targets
}

func (s *Sources) move(p *Projection, rel string, op *Operation) error {
	if op.Path == "" || op.Path == rel {
		return opError(problem.InvalidArgument, "path is required: the node's new file (now %s)", rel)
	}
	if op.Fields != nil {
		return opError(problem.InvalidArgument, "a move changes only the file; use an update for fields")
	}
	if _, err := s.contentPath(op.Path); err != nil {
		return err
	}
	if path.Ext(op.Path) != path.Ext(rel) {
		return opError(problem.InvalidArgument, "a %s node moves to another %s file", path.Ext(rel), path.Ext(rel))
	}
	target, exists, err := s.text(p, op.Path)
	if err != nil {
		return err
	}
	text, _, err := s.text(p, rel)
	if err != nil {
		return err
	}
	if path.Ext(rel) == ".md" {
		if exists {
			return opError(problem.InvalidArgument, "%s already exists", op.Path)
		}
		p.put(op.Path, text)
		p.files[rel] = nil
	} else {
		block, err := s.cut(p, rel, op.NodeID)
		if err != nil {
			return err
		}
		p.put(op.Path, appendBlock(target, exists, block))
	}
	p.where[op.NodeID] = op.Path
	return nil
}

func (s *Sources) remove(p *Projection, rel string, op *Operation) error {
	if op.Fields != nil || op.Path != "" || len(op.Add)+len(op.Remove) > 0 {
		return opError(problem.InvalidArgument, "a delete takes only node_id and expected_content_hash")
	}
	if path.Ext(rel) == ".md" {
		p.files[rel] = nil
	} else if _, err := s.cut(p, rel, op.NodeID); err != nil {
		return err
	}
	p.where[op.NodeID] = ""
	return nil
}

// cut removes a record block from its file and returns it; a file left without records (only
// comments and blank lines) is removed.
func (s *Sources) cut(p *Projection, rel, id string) ([]string, error) {
	text, _, err := s.text(p, rel)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(text, "\n")
	start, end, ok := recordBlock(lines, id)
	if !ok {
		return nil, opError(problem.NodeNotFound, "no [[node]] with id %q in %s", id, rel)
	}
	block := slices.Clone(lines[start:lastContent(lines, start, end)])
	rest := slices.Concat(lines[:start], lines[end:])
	if slices.ContainsFunc(scanItems(rest, 0, len(rest)), func(it item) bool { return it.array }) {
		p.put(rel, strings.Join(rest, "\n"))
	} else {
		p.files[rel] = nil
	}
	return block, nil
}
