package protocol

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/source/project"
)

// Capability modes (the effective process policy).
const (
	ModeRead        = "read"
	ModeProposal    = "proposal"
	ModeApplication = "application"
	ModeOperator    = "operator"
)

// Binding is what one MCP process is bound to, fixed at its start.
type Binding struct {
	ProjectRoot      string `json:"project_root"`
	ProposalWriter   string `json:"proposal_writer,omitempty"`
	CanonicalApplier string `json:"canonical_applier,omitempty"`
	CapabilityMode   string `json:"capability_mode"`
	NoAST            bool   `json:"no_ast"`
	Diagnostics      bool   `json:"diagnostics"`
	// Local marks a caller on this machine that prints to a terminal or a file (the CLI), not
	// an MCP session: max_response_chars, the MCP output limit, does not cut its answers.
	Local bool `json:"local,omitempty"`
}

// Policy is the binding's adapter policy.
func (b Binding) Policy() string {
	if b.NoAST {
		return golang.PolicyNoAST
	}
	return golang.PolicyAST
}

// SameWorker reports whether two bindings are served by one worker: the same project under
// the same adapter policy, the two things that decide what the index holds.
func (b Binding) SameWorker(o Binding) bool {
	return b.ProjectRoot == o.ProjectRoot && b.NoAST == o.NoAST
}

// Validate checks the binding once, at start: an absolute project root holding a valid
// descriptor, writer and applier IDs the descriptor declares, and a capability mode that can
// be honoured. It returns the loaded descriptor. A root with no descriptor at all is a
// descriptor_not_found error, checked last, so that the binding is otherwise complete: a
// bridge can still list its tools and say, on each call, that the project needs
// 'docforge init'.
func (b *Binding) Validate() (*project.Descriptor, error) {
	bad := func(format string, args ...any) error {
		return problem.Errorf(problem.InvalidBinding, format, args...)
	}
	if b.ProjectRoot == "" {
		return nil, bad("--project-root is required: the absolute path of the project directory")
	}
	if !filepath.IsAbs(b.ProjectRoot) {
		return nil, bad("--project-root %q is not absolute; pass the full path", b.ProjectRoot)
	}
	b.ProjectRoot = filepath.Clean(b.ProjectRoot)
	if st, err := os.Stat(b.ProjectRoot); err != nil || !st.IsDir() {
		return nil, bad("--project-root %s is not a directory", b.ProjectRoot)
	}
	switch b.CapabilityMode {
	case "":
		// The factory defaults: a bound canonical applier makes the application-enabled
		// factory, anything else the ordinary project factory.
		b.CapabilityMode = ModeProposal
		if b.CanonicalApplier != "" {
			b.CapabilityMode = ModeApplication
		}
	case ModeRead, ModeProposal, ModeOperator:
	case ModeApplication:
		if b.CanonicalApplier == "" {
			return nil, bad("--capability-mode application needs --canonical-applier: application fails closed without an applier")
		}
	default:
		return nil, bad("--capability-mode %q is not one of read, proposal, application, operator", b.CapabilityMode)
	}
	d, probs, err := project.Load(b.ProjectRoot)
	if problem.CodeOf(err) == problem.DescriptorNotFound {
		return nil, problem.Errorf(problem.DescriptorNotFound, "%s has no %s: it is not a DocForge project yet", b.ProjectRoot, project.FileName)
	}
	if err != nil {
		return nil, bad("--project-root %s: %v", b.ProjectRoot, err)
	}
	if d == nil {
		msg := "has problems"
		if len(probs) > 0 {
			p := probs[0]
			msg = fmt.Sprintf("%s:%d:%d: %s (%d problems; run 'docforge validate')", p.Location.Path, p.Location.Line, p.Location.Column, p.Message, len(probs))
		}
		return nil, bad("%s %s", filepath.Join(b.ProjectRoot, project.FileName), msg)
	}
	// The resolved root names the project: a path through a symlink is the same project,
	// served by the same worker, not a second publisher of it.
	b.ProjectRoot = d.Root
	if b.ProposalWriter != "" && !slices.ContainsFunc(d.Proposals.Writers, func(w project.Writer) bool { return w.ID == b.ProposalWriter }) {
		return nil, bad("--proposal-writer %q is not declared in [[proposals.writers]] of %s", b.ProposalWriter, project.FileName)
	}
	if b.CanonicalApplier != "" && !slices.ContainsFunc(d.Proposals.Appliers, func(a project.Applier) bool { return a.ID == b.CanonicalApplier }) {
		return nil, bad("--canonical-applier %q is not declared in [[proposals.appliers]] of %s", b.CanonicalApplier, project.FileName)
	}
	return d, nil
}
