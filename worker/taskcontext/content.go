package taskcontext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/golang"
)

// Provenance codes of evidence content.
const (
	FactSourceTruncated = "source_truncated"
	FactSourceChanged   = "source_changed"
)

// selector fills the stream within the budget: whole items (metadata and content), chosen
// leads first while wholeShare percent of the room lasts, in rank order; then ranked pointers
// (omissions) to the rest while any room lasts. The declarations of the first quotedFiles
// files carry source lines, best-ranked first, while the source share lasts.
type selector struct {
	ctx   context.Context
	snap  *index.Snapshot
	col   *collection
	terms map[string]bool
	files map[string]sourceFile

	avail, used           int
	sourceBudget, srcUsed int
	selected, pointers    int
	stream                []json.RawMessage
	ids                   []string
	// quoted are the files whose declarations may carry source: the first quotedFiles files
	// in rank order. The rest get signatures and doc comments, so that more files have content.
	quoted map[string]bool
	// pageRoom is what one entry may take of a page (0: no page bound): an item whose quoted
	// source would not fit is quoted shorter (srcCap), so that it comes on a page of its own
	// rather than as an omission.
	pageRoom, srcCap int
}

// wholeShare is the percentage of the room whole items may take; ranked pointers to more
// evidence fill the rest, so that a budget buys breadth as well as depth.
const wholeShare = 55

// quotedFiles is how many of the first files in rank order may have source quoted.
const quotedFiles = 3

// sourceFile is a file read for quoting: its lines, or ok false when it is not the file the
// generation was built from.
type sourceFile struct {
	lines [][]byte
	ok    bool
}

func (s *selector) run() error {
	// Whole items are chosen leads first: the best item of each file in rank order, then each
	// file's second, and so on, while the whole share lasts; an agent reads the first files,
	// and content for more of them is worth more than a second declaration of one.
	items := s.col.items
	nth := make([]int, len(items))
	perFile := map[string]int{}
	s.quoted = map[string]bool{}
	for i, f := range items {
		nth[i] = perFile[f.rec.SourcePath]
		perFile[f.rec.SourcePath]++
		if len(s.quoted) < quotedFiles {
			s.quoted[f.rec.SourcePath] = true
		}
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return nth[a] - nth[b] })
	whole := map[int]json.RawMessage{}
	ids := map[int]string{}
	used := 0
	for _, i := range order {
		it, err := s.item(items[i])
		if err != nil {
			return err
		}
		entry := encode(it)
		for try := 0; s.pageRoom > 0 && len(entry)+1 > s.pageRoom && len(it.Source) > 0 && try < 8; try++ {
			s.srcCap = max(1, len(it.Source)*2/3)
			if it, err = s.item(items[i]); err != nil {
				return err
			}
			entry = encode(it)
		}
		s.srcCap = 0
		if used+len(entry)+1 > s.avail*wholeShare/100 {
			break
		}
		whole[i], ids[i] = entry, it.NodeID
		used += len(entry) + 1
		s.srcUsed += len(it.Source)
	}
	// The stream: the whole items in rank order, then ranked pointers to the rest.
	for i := range items {
		if entry, ok := whole[i]; ok {
			s.add(entry, ids[i], true)
		}
	}
	for i, f := range items {
		if _, ok := whole[i]; ok {
			continue
		}
		h := &f.rec
		p := Omitted{Type: "omission", NodeID: h.ID, SourcePath: h.SourcePath, Line: h.Line, Role: role(f), Score: f.score, Reason: "token_limit"}
		if h.Family != golang.Family {
			p.Title = h.Title
		}
		entry := encode(p)
		if s.used+len(entry)+1 > s.avail {
			return nil
		}
		s.add(entry, p.NodeID, false)
	}
	return nil
}

func (s *selector) add(entry json.RawMessage, id string, full bool) {
	s.stream, s.ids = append(s.stream, entry), append(s.ids, id)
	s.used += len(entry) + 1
	if full {
		s.selected++
	} else {
		s.pointers++
	}
}

func role(f *found) string {
	if f.focus >= 0 {
		return "focus"
	}
	return "related"
}

// item builds the whole evidence item of f: metadata, path, reasons, provenance and content.
func (s *selector) item(f *found) (*Item, error) {
	h := &f.rec
	it := &Item{Type: "evidence", NodeID: h.ID, Title: h.Title, Kind: h.Kind, Family: h.Family, Status: h.Status, Authority: h.Authority,
		SourcePath: h.SourcePath, Anchor: h.Anchor, Line: h.Line, EndLine: h.EndLine, ContentHash: h.ContentHash,
		Role: role(f), Score: f.score, Step: f.step, Depth: f.depth, Path: f.path, Reasons: f.reasons, ReasonsMore: f.more, Commits: commitRefs(f.commits)}
	if it.Role == "focus" {
		it.Path = []PathHop{} // a focus node is where paths start
	}
	if it.Reasons == nil {
		it.Reasons = []Reason{}
	}
	if it.Anchor == fmt.Sprintf("L%d", it.Line) {
		it.Anchor = "" // a code anchor repeats the line
	}
	var extra []Fact
	if h.Family == golang.Family {
		if err := s.code(it, f, h, &extra); err != nil {
			return nil, err
		}
	} else if err := s.document(it, f, h); err != nil {
		return nil, err
	}
	it.Provenance = append(provenance(f, it), extra...)
	it.Tokens = estimate(it)
	return it, nil
}

// code fills a declaration's content: its doc comment, its signature, and its source lines
// while the source share lasts.
func (s *selector) code(it *Item, f *found, h *index.Hydrated, facts *[]Fact) error {
	body, err := s.body(f.ref, codeDocExcerpt)
	if err != nil {
		return err
	}
	it.Excerpt, it.BodyChars = body.Excerpt, body.BodyChars
	if h.EndLine == 0 || h.Line == 0 {
		return nil // a package or a file: its doc comment is its content
	}
	src, err := s.file(h.SourcePath)
	if err != nil {
		return err
	}
	if !src.ok || h.EndLine > len(src.lines) {
		*facts = append(*facts, Fact{FactSourceChanged, "the file changed since this generation; source not quoted"})
		return nil
	}
	decl := src.lines[h.Line-1 : h.EndLine]
	it.Signature = signature(decl)
	if s.srcUsed >= s.sourceBudget || h.Kind == golang.KindPackage || s.quoted != nil && !s.quoted[h.SourcePath] {
		return nil
	}
	n := min(len(decl), maxSourceLines)
	room := s.sourceBudget - s.srcUsed
	if s.srcCap > 0 {
		room = min(room, s.srcCap)
	}
	text := bytes.Join(decl[:n], []byte("\n"))
	for len(text) > room && n > 1 {
		n = max(1, n*2/3)
		text = bytes.Join(decl[:n], []byte("\n"))
	}
	if !utf8.Valid(text) {
		return nil
	}
	it.Source, it.SourceEnd = string(text), h.Line+n-1
	it.Signature = "" // the source's first lines are the signature
	if n < len(decl) {
		*facts = append(*facts, Fact{FactSourceTruncated, fmt.Sprintf("lines %d-%d of %d-%d", h.Line, it.SourceEnd, h.Line, h.EndLine)})
	}
	return nil
}

// document fills a document's content: the section that holds the most task terms (the first
// section when none does), cut to docExcerpt characters.
func (s *selector) document(it *Item, f *found, h *index.Hydrated) error {
	body, err := s.body(f.ref, 1<<20)
	if err != nil {
		return err
	}
	it.BodyChars = body.BodyChars
	text, anchor := bestSection(body.Excerpt, s.terms)
	it.Excerpt, it.Section = cut(text, docExcerpt), anchor
	return nil
}

func (s *selector) body(ref index.NodeRef, chars int) (index.Hydrated, error) {
	out, err := s.snap.Hydrate(s.ctx, []index.NodeRef{ref}, func(int) int { return chars })
	if err != nil {
		return index.Hydrated{}, err
	}
	return out[0], nil
}

func (s *selector) file(rel string) (sourceFile, error) {
	if f, ok := s.files[rel]; ok {
		return f, nil
	}
	data, ok, err := s.snap.SourceFile(s.ctx, rel)
	if err != nil {
		return sourceFile{}, err
	}
	f := sourceFile{ok: ok}
	if ok {
		f.lines = bytes.Split(data, []byte("\n"))
	}
	s.files[rel] = f
	return f, nil
}

// signature is a declaration's head: its lines up to the one that opens its body (or its
// first line), at most three, without the opening brace's tail.
func signature(decl [][]byte) string {
	var out []string
	for i, l := range decl {
		line := strings.TrimSpace(string(l))
		if i == 3 {
			break
		}
		if j := strings.LastIndex(line, "{"); j >= 0 && (strings.HasSuffix(line, "{") || strings.HasSuffix(line, "}")) {
			out = append(out, strings.TrimSpace(line[:j]))
			break
		}
		out = append(out, line)
		if !strings.HasSuffix(line, ",") && !strings.HasSuffix(line, "(") {
			break
		}
	}
	return cut(strings.Join(out, " "), 240)
}

// bestSection splits a Markdown body at its headings and returns the section holding the
// most distinct task terms (ties: the earlier), with its heading anchor.
func bestSection(body string, terms map[string]bool) (string, string) {
	type section struct {
		text, anchor string
	}
	var secs []section
	start, anchor := 0, ""
	inFence := false
	lines := strings.SplitAfter(body, "\n")
	off := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(t, "#") && off > start {
			secs = append(secs, section{body[start:off], anchor})
			start, anchor = off, source.Slug(strings.TrimLeft(t, "# "))
		} else if !inFence && strings.HasPrefix(t, "#") {
			anchor = source.Slug(strings.TrimLeft(t, "# "))
		}
		off += len(l)
	}
	secs = append(secs, section{body[start:], anchor})
	best, bestHits := 0, 0
	for i, sec := range secs {
		hits := 0
		seen := map[string]bool{}
		lexicon.Terms(sec.text, func(w string) {
			if terms[w] && !seen[w] {
				seen[w] = true
				hits++
			}
		})
		if hits > bestHits {
			best, bestHits = i, hits
		}
	}
	return strings.TrimSpace(secs[best].text), secs[best].anchor
}

// termSet is the set of a task's lexical terms, whatever its focus: they choose a document's
// best section.
func termSet(task string) map[string]bool {
	out := map[string]bool{}
	for _, t := range terms(task) {
		out[t] = true
	}
	return out
}

// cut shortens s to at most n characters, on a rune boundary, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
