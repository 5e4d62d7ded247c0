package render

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/base/safefile"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

// Receipt is the publication receipt of one rendered view: what was written, from what, by
// which renderer. It carries a hash of itself, so a corrupt receipt is detected, never trusted.
type Receipt struct {
	SchemaVersion  int    `json:"receipt_schema_version"`
	ProjectID      string `json:"project_id"`
	View           string `json:"view_id"`
	Output         string `json:"output"`
	OutputSHA256   string `json:"output_sha256"`
	OutputSize     int64  `json:"output_size"`
	OutputMtimeNs  int64  `json:"output_mtime_ns"`
	OutputDevice   uint64 `json:"output_device"`
	OutputInode    uint64 `json:"output_inode"`
	Nodes          int    `json:"nodes"`
	SourceIdentity string `json:"source_identity"`
	SourceHash     string `json:"source_hash"`
	DescriptorHash string `json:"descriptor_hash"`
	Renderer       string `json:"renderer"`
	ReceiptHash    string `json:"receipt_hash"`
}

const receiptSchemaVersion = 1

// maxReceiptBytes bounds what status reads: a receipt is a few hundred bytes.
const maxReceiptBytes = 64 << 10

func receiptPath(d *project.Descriptor, view string) string {
	return d.StatePath("render", view+".json")
}

func (r *Receipt) hash() string {
	c := *r
	c.ReceiptHash = ""
	return graph.DomainHash("docforge.render.receipt.v1", c)
}

// readReceipt reads and verifies a view's receipt.
func readReceipt(d *project.Descriptor, view string) (*Receipt, error) {
	f, err := os.Open(receiptPath(d, view))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReceiptBytes+1))
	if err != nil {
		return nil, err
	}
	var r Receipt
	if len(b) > maxReceiptBytes || json.Unmarshal(b, &r) != nil || r.SchemaVersion != receiptSchemaVersion || r.ReceiptHash != r.hash() || r.View != view {
		return nil, errCorrupt
	}
	return &r, nil
}

var errCorrupt = errors.New("the receipt is corrupt, oversized or of another version")

// Published is the outcome of rendering one view.
type Published struct {
	View   string `json:"view_id"`
	Output string `json:"output"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"output_sha256"`
	Nodes  int    `json:"nodes"`
	// Shortcodes counts the Hugo shortcodes the page left out, by name.
	Shortcodes map[string]int `json:"shortcodes_removed,omitempty"`
}

// PublishOptions tune Publish; Fault interrupts it at a named step (tests).
type PublishOptions struct {
	Options
	Fault func(step string) error
}

// Publish renders the given views (every declared view when none are given) from the
// current sources and writes each page atomically at its declared output, then its receipt.
// A failure leaves every page and receipt either as it was or wholly new.
func Publish(ctx context.Context, d *project.Descriptor, policy string, views []string, opts PublishOptions) ([]Published, error) {
	if len(views) == 0 {
		for _, v := range d.Views {
			views = append(views, v.ID)
		}
	}
	if len(views) == 0 {
		return nil, problem.Errorf(problem.InvalidArgument, "%s declares no [[views]]; add one to render ('docforge help format', Views)", project.FileName)
	}
	for _, id := range views {
		if _, err := ViewByID(d, id); err != nil {
			return nil, err
		}
	}
	g, err := Load(ctx, d, policy)
	if err != nil {
		return nil, err
	}
	var out []Published
	for _, id := range views {
		v, _ := ViewByID(d, id)
		abs, err := outputPath(d, v.Output, true)
		if err != nil {
			return out, err
		}
		fault := func() error {
			if opts.Fault != nil {
				return opts.Fault("rename-output")
			}
			return nil
		}
		var report Report
		pageOpts := opts.Options
		pageOpts.Report = &report
		page, err := writePage(abs, d, g, v, pageOpts, fault)
		if err != nil {
			return out, err
		}
		rec := &Receipt{SchemaVersion: receiptSchemaVersion, ProjectID: d.Project.ID, View: id, Output: v.Output,
			OutputSHA256: page.SHA256, Nodes: page.Nodes,
			SourceIdentity: g.SourceIdentity, SourceHash: g.SourceHash, DescriptorHash: d.Hash, Renderer: HTML.ID()}
		st, err := statOutput(abs)
		if err != nil {
			return out, fmt.Errorf("render %s: %w", id, err)
		}
		rec.OutputSize, rec.OutputMtimeNs, rec.OutputDevice, rec.OutputInode = st.size, st.mtime, st.dev, st.ino
		rec.ReceiptHash = rec.hash()
		if err := os.MkdirAll(filepath.Dir(receiptPath(d, id)), 0o755); err != nil {
			return out, fmt.Errorf("render %s: %w", id, err)
		}
		b, _ := json.MarshalIndent(rec, "", "  ")
		if err := safefile.WriteFile(receiptPath(d, id), append(b, '\n'), 0o644); err != nil {
			return out, fmt.Errorf("render %s receipt: %w", id, err)
		}
		out = append(out, Published{View: id, Output: v.Output, Bytes: int(page.Bytes), SHA256: rec.OutputSHA256, Nodes: rec.Nodes, Shortcodes: report.Shortcodes})
	}
	return out, nil
}

// Page is what writing one page produced.
type Page struct {
	Bytes  int64
	SHA256 string
	Nodes  int // nodes the view selected
}

// WritePage renders view v of g into the file abs, streamed and atomic. The caller has
// confined abs; a preview writes its page this way, outside the declared outputs and
// without a receipt.
func WritePage(abs string, d *project.Descriptor, g *Graph, v project.View) (Page, error) {
	return writePage(abs, d, g, v, Options{}, nil)
}

func writePage(abs string, d *project.Descriptor, g *Graph, v project.View, opts Options, beforeRename func() error) (Page, error) {
	h := sha256.New()
	var size int64
	err := safefile.WriteStream(abs, 0o644, func(w io.Writer) error {
		cw := &counter{w: io.MultiWriter(w, h)}
		err := HTML.RenderTo(cw, d, g, v.ID, opts)
		size = cw.n
		return err
	}, beforeRename)
	if err != nil {
		return Page{}, fmt.Errorf("render %s: %w", v.ID, err)
	}
	return Page{Bytes: size, SHA256: "sha256:" + hex.EncodeToString(h.Sum(nil)), Nodes: countSelected(v, g)}, nil
}

// counter counts what passes through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func countSelected(v project.View, g *Graph) int {
	n := 0
	for _, node := range g.Nodes {
		if Selects(v, node) {
			n++
		}
	}
	return n
}

// outputPath resolves a view's output below the project root, refusing any escape through a
// symlink (path_escape) and anything at the path that is not a regular file. With create,
// missing parent directories are made, inside the root only.
func outputPath(d *project.Descriptor, rel string, create bool) (string, error) {
	abs := filepath.Join(d.Root, filepath.FromSlash(rel))
	escape := func(what string) error {
		return problem.Errorf(problem.PathEscape, "view output %s: %s; outputs must stay inside the project root %s", rel, what, d.Root)
	}
	// The deepest existing ancestor, resolved, must be inside the root before anything is
	// created below it.
	dir := filepath.Dir(abs)
	existing := dir
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil || !project.Within(d.Root, real) {
		return "", escape("its directory resolves outside the project")
	}
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("view output %s: %w", rel, err)
		}
		if real, err := filepath.EvalSymlinks(dir); err != nil || !project.Within(d.Root, real) {
			return "", escape("its directory resolves outside the project")
		}
	}
	if st, err := os.Lstat(abs); err == nil && !st.Mode().IsRegular() {
		if st.Mode()&os.ModeSymlink != 0 {
			return "", escape("it is a symlink")
		}
		return "", problem.Errorf(problem.InvalidArgument, "view output %s exists and is not a regular file; remove it", rel)
	}
	return abs, nil
}

type outputStat struct {
	size, mtime int64
	dev, ino    uint64
}

func statOutput(abs string) (outputStat, error) {
	st, err := os.Lstat(abs)
	if err != nil {
		return outputStat{}, err
	}
	s := outputStat{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(sys.Dev), uint64(sys.Ino)
	}
	return s, nil
}

// Render states of a view.
const (
	Current    = "current"    // the output is exactly what the receipt describes, rendered from the current sources
	Stale      = "stale"      // proven different: sources, descriptor, renderer or output changed
	Unverified = "unverified" // no usable receipt: nothing can be proven
	Missing    = "missing"    // the output file does not exist
)

// ViewStatus is the render state of one view.
type ViewStatus struct {
	View    string   `json:"view_id"`
	Output  string   `json:"output"`
	State   string   `json:"state"`
	Reasons []string `json:"reasons,omitempty"`
	Receipt *Receipt `json:"receipt,omitempty"`
	Deep    *Deep    `json:"deep,omitempty"`
}

// Deep is the outcome of the full-render oracle.
type Deep struct {
	Identical    bool   `json:"identical"`
	FreshSHA256  string `json:"fresh_sha256"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
}

// StatusRequest selects what Status checks.
type StatusRequest struct {
	ViewID string // one view; empty: every declared view
	Deep   bool   // re-render in memory and compare bytes
	// SourceIdentity is the sources' current cheap identity when the caller has proof of it
	// (a worker whose watch saw no change since the index was proven current); empty makes
	// Status take it with a stat walk.
	SourceIdentity string
}

// StatusReport is the state of the requested views and the source identity they were
// compared with.
type StatusReport struct {
	Views          []ViewStatus
	SourceIdentity string
}

// Status reports each view's state. The cheap check reads the receipts, stats the outputs and
// compares the sources' stat identity; it parses nothing, builds no HTML, hashes no output
// and writes nothing. Deep re-renders in memory and compares the bytes with the output; it
// too writes nothing.
func Status(ctx context.Context, d *project.Descriptor, policy string, req StatusRequest) (*StatusReport, error) {
	views := d.Views
	if req.ViewID != "" {
		v, err := ViewByID(d, req.ViewID)
		if err != nil {
			return nil, err
		}
		views = []project.View{v}
	}
	rep := &StatusReport{SourceIdentity: req.SourceIdentity}
	if rep.SourceIdentity == "" {
		inv, err := source.Scan(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("render status: %w", err)
		}
		rep.SourceIdentity = inv.Identity()
	}
	var g *Graph
	if req.Deep && len(views) > 0 {
		var err error
		if g, err = Load(ctx, d, policy); err != nil {
			return nil, err
		}
	}
	for _, v := range views {
		s := cheapStatus(d, v, rep.SourceIdentity)
		if req.Deep {
			s.deep(d, g, v)
		}
		rep.Views = append(rep.Views, s)
	}
	return rep, nil
}

func cheapStatus(d *project.Descriptor, v project.View, identity string) ViewStatus {
	s := ViewStatus{View: v.ID, Output: v.Output}
	abs, err := outputPath(d, v.Output, false)
	if err != nil {
		s.State, s.Reasons = Unverified, []string{err.Error()}
		return s
	}
	st, err := statOutput(abs)
	if err != nil {
		s.State, s.Reasons = Missing, []string{"the output file does not exist; run 'docforge render'"}
		return s
	}
	rec, err := readReceipt(d, v.ID)
	if err != nil {
		s.State = Unverified
		if errors.Is(err, os.ErrNotExist) {
			s.Reasons = []string{"no publication receipt: the output was not written by 'docforge render' here"}
		} else {
			s.Reasons = []string{err.Error()}
		}
		return s
	}
	s.Receipt = rec
	if rec.Output != v.Output {
		s.Reasons = append(s.Reasons, "the view's output path changed")
	}
	if rec.OutputSize != st.size || rec.OutputMtimeNs != st.mtime || rec.OutputDevice != st.dev || rec.OutputInode != st.ino {
		s.Reasons = append(s.Reasons, "the output file changed since it was rendered")
	}
	if rec.SourceIdentity != identity {
		s.Reasons = append(s.Reasons, "sources changed since the view was rendered")
	}
	if rec.DescriptorHash != d.Hash {
		s.Reasons = append(s.Reasons, project.FileName+" changed since the view was rendered")
	}
	if rec.Renderer != HTML.ID() {
		s.Reasons = append(s.Reasons, "rendered by "+rec.Renderer+", not the current "+HTML.ID())
	}
	s.State = Current
	if len(s.Reasons) > 0 {
		s.State = Stale
	}
	return s
}

// deep re-renders v in memory and compares it byte for byte with the output file, streaming
// both: the fresh page is never held whole.
func (s *ViewStatus) deep(d *project.Descriptor, g *Graph, v project.View) {
	fresh := sha256.New()
	var cmp *comparer
	if s.State != Missing {
		if abs, err := outputPath(d, v.Output, false); err == nil {
			if f, err := os.Open(abs); err == nil {
				defer f.Close()
				cmp = &comparer{r: bufio.NewReaderSize(f, 64<<10), h: sha256.New(), equal: true}
			}
		}
	}
	var w io.Writer = fresh
	if cmp != nil {
		w = io.MultiWriter(fresh, cmp)
	}
	if err := HTML.RenderTo(w, d, g, v.ID, Options{}); err != nil {
		s.State, s.Reasons = Unverified, append(s.Reasons, "deep: "+err.Error())
		return
	}
	s.Deep = &Deep{FreshSHA256: "sha256:" + hex.EncodeToString(fresh.Sum(nil))}
	if cmp == nil {
		return
	}
	identical, err := cmp.finish()
	if err != nil {
		s.State, s.Reasons = Unverified, append(s.Reasons, "deep: "+err.Error())
		return
	}
	s.Deep.OutputSHA256 = "sha256:" + hex.EncodeToString(cmp.h.Sum(nil))
	s.Deep.Identical = identical
	if identical {
		s.State, s.Reasons = Current, nil
	} else {
		s.State = Stale
		s.Reasons = append(s.Reasons, "deep: the output differs from a fresh render of the current sources")
	}
}

// comparer checks a stream against a file's bytes as it goes, hashing the file's bytes too.
type comparer struct {
	r     *bufio.Reader
	h     hash.Hash
	equal bool
	buf   []byte
	err   error
}

func (c *comparer) Write(p []byte) (int, error) {
	if c.err != nil {
		return len(p), nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	n, err := io.ReadFull(c.r, b)
	c.h.Write(b[:n])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		c.err = err
	}
	if n < len(p) || !bytes.Equal(b, p) {
		c.equal = false
	}
	return len(p), nil
}

// finish reads the rest of the file (longer than the fresh page means different).
func (c *comparer) finish() (bool, error) {
	if c.err != nil {
		return false, c.err
	}
	rest, err := io.Copy(c.h, c.r)
	if err != nil {
		return false, err
	}
	return c.equal && rest == 0, nil
}
