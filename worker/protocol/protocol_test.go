package protocol

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docforge/docforge/base/problem"
)

const descriptor = `schema_version = 1
[project]
id = "p"
name = "P"
[sources]
content_roots = ["docs"]
[relations]
allowed = ["relates_to"]
[families.docs]
kinds = ["page"]
[proposals]
[[proposals.writers]]
id = "agent"
operations = ["create", "update"]
[[proposals.appliers]]
id = "maintainer"
`

// A binding is validated once, at start: every refusal is invalid_binding and says which
// flag, but a root with no descriptor, which is descriptor_not_found with the binding
// otherwise complete; the factory default mode follows the applier gate.
func TestBindingValidate(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "docforge.toml"), []byte(descriptor), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		b        Binding
		mode     string // the mode after validation; "" for a refusal
		mentions string
	}{
		{"default", Binding{ProjectRoot: root}, ModeProposal, ""},
		{"applier makes application", Binding{ProjectRoot: root, CanonicalApplier: "maintainer"}, ModeApplication, ""},
		{"read", Binding{ProjectRoot: root, CapabilityMode: ModeRead}, ModeRead, ""},
		{"no root", Binding{}, "", "--project-root is required"},
		{"relative root", Binding{ProjectRoot: "docs"}, "", "not absolute"},
		{"unknown writer", Binding{ProjectRoot: root, ProposalWriter: "nobody"}, "", "--proposal-writer"},
		{"unknown applier", Binding{ProjectRoot: root, CanonicalApplier: "nobody"}, "", "--canonical-applier"},
		{"application without applier", Binding{ProjectRoot: root, CapabilityMode: ModeApplication}, "", "needs --canonical-applier"},
		{"unknown mode", Binding{ProjectRoot: root, CapabilityMode: "root"}, "", "--capability-mode"},
	} {
		b := tc.b
		_, err := b.Validate()
		switch {
		case tc.mode != "" && (err != nil || b.CapabilityMode != tc.mode):
			t.Errorf("%s: %v, mode %q", tc.name, err, b.CapabilityMode)
		case tc.mode == "" && (problem.CodeOf(err) != problem.InvalidBinding || !strings.Contains(err.Error(), tc.mentions)):
			t.Errorf("%s: %v, want invalid_binding naming %s", tc.name, err, tc.mentions)
		}
	}
	b := Binding{ProjectRoot: t.TempDir(), CanonicalApplier: "maintainer"}
	if _, err := b.Validate(); problem.CodeOf(err) != problem.DescriptorNotFound || !strings.Contains(err.Error(), "docforge.toml") || b.CapabilityMode != ModeApplication {
		t.Errorf("not a project: %v, mode %q; want descriptor_not_found and the mode set", err, b.CapabilityMode)
	}
}

// The embedded catalogue parses, names each tool once, and gates by group.
func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range Catalog() {
		if seen[tool.Name] || tool.InputSchema["type"] != "object" || tool.Group == "" {
			t.Errorf("catalogue entry %s: duplicate %v, schema %v, group %q", tool.Name, seen[tool.Name], tool.InputSchema["type"], tool.Group)
		}
		seen[tool.Name] = true
	}
	read := len(ToolsFor(Binding{CapabilityMode: ModeRead}))
	proposal := len(ToolsFor(Binding{CapabilityMode: ModeProposal}))
	application := len(ToolsFor(Binding{CapabilityMode: ModeApplication, CanonicalApplier: "a"}))
	if !(0 < read && read < proposal && proposal+1 == application && application == len(Catalog())) {
		t.Errorf("gating: read %d, proposal %d, application %d of %d", read, proposal, application, len(Catalog()))
	}
}

// An error result before any worker ran is a whole envelope with the code's remediation, and
// a ToolError for the caller.
func TestErrorResult(t *testing.T) {
	out, err := ErrorResult(Binding{ProjectRoot: "/p"}, problem.WorkerUnavailable, "no answer")
	var te *ToolError
	if !errors.As(err, &te) || te.Code != problem.WorkerUnavailable {
		t.Fatalf("error %v", err)
	}
	var env Envelope
	if err := json.Unmarshal(out, &env); err != nil || env.ContentNotice != ContentNotice || env.Project.Root != "/p" ||
		env.Error == nil || env.Error.Remediation == "" || env.Staleness != "unknown" {
		t.Errorf("envelope %s: %v", out, err)
	}
}
