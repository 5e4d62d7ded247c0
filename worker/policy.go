package worker

import (
	"maps"
	"path/filepath"
	"slices"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/golang"
	"github.com/docforge/docforge/worker/protocol"
	"github.com/docforge/docforge/worker/taskcontext"
)

// ContractVersion is the version of the tool contract this server implements.
const ContractVersion = 1

// EffectivePolicy is the version-1 process policy: what the binding asked for.
type EffectivePolicy struct {
	SchemaVersion  int      `json:"schema_version"`
	CapabilityMode string   `json:"capability_mode"`
	NoAST          bool     `json:"no_ast"`
	Adapter        string   `json:"adapter"`
	AdapterPolicy  string   `json:"adapter_policy"`
	ASTAnalysis    bool     `json:"ast_analysis"`
	LogicIndexing  bool     `json:"logic_indexing"`
	AdapterUpgrade bool     `json:"adapter_evolution"`
	Excluded       []string `json:"excluded_operations"`
	Diagnostics    bool     `json:"diagnostics"`
}

// Capabilities is what the process actually registered and bound.
type Capabilities struct {
	Tools                []string `json:"tools"`
	ProposalWriter       string   `json:"proposal_writer,omitempty"`
	ProposalAccess       bool     `json:"proposal_access"`
	CanonicalApplier     string   `json:"canonical_applier,omitempty"`
	CanonicalApplication bool     `json:"canonical_application"`
}

// PolicyOf derives the effective policy of a binding. The no-AST policy only ever narrows:
// it turns off AST analysis, Logic indexing and adapter evolution and lists them as excluded.
func PolicyOf(b protocol.Binding) EffectivePolicy {
	p := EffectivePolicy{
		SchemaVersion: 1, CapabilityMode: b.CapabilityMode, NoAST: b.NoAST, Adapter: publication.AdapterName + "@" + publication.AdapterVersion,
		AdapterPolicy: b.Policy(), ASTAnalysis: !b.NoAST, LogicIndexing: !b.NoAST, AdapterUpgrade: !b.NoAST, Diagnostics: b.Diagnostics,
		Excluded: []string{"arbitrary_filesystem_access", "cross_project_retrieval", "git_mutation", "network_binding", "shell_execution"},
	}
	if b.NoAST {
		p.Excluded = append(p.Excluded, "adapter_ast_upgrade", "function_logic_extraction")
	}
	// Canonical files are written only by exact-hash application, so both are excluded
	// exactly when the application tool is not registered.
	if !protocol.ApplicationEnabled(b) {
		p.Excluded = append(p.Excluded, "canonical_application", "canonical_write")
	}
	slices.Sort(p.Excluded)
	return p
}

// CapabilitiesOf states the registered surface and the proposal and application access the
// binding has.
func CapabilitiesOf(b protocol.Binding) Capabilities { return capabilities(b, ToolsFor(b)) }

// capabilities is CapabilitiesOf with the binding's tools given.
func capabilities(b protocol.Binding, tools []ToolSpec) Capabilities {
	c := Capabilities{ProposalWriter: b.ProposalWriter, CanonicalApplier: b.CanonicalApplier,
		ProposalAccess: b.ProposalWriter != "" && b.CapabilityMode != protocol.ModeRead, CanonicalApplication: protocol.ApplicationEnabled(b)}
	for _, t := range tools {
		c.Tools = append(c.Tools, t.Name)
	}
	return c
}

func runBootstrap(c *call, _ noInput) (any, error) {
	info := c.snap.Info()
	first := "docforge_search"
	full := map[string]any{
		"binding":          c.b,
		"index_path":       filepath.ToSlash(publication.PathsFor(c.d, c.b.Policy()).Index),
		"index":            info,
		"effective_policy": PolicyOf(c.b),
		"capabilities":     capabilities(c.b, forBinding(c.svc.toolOrder, c.b)),
		"session_contract": map[string]any{
			"version":         ContractVersion,
			"first_operation": first,
			"workflow": []string{
				"docforge_search or docforge_filter_nodes to find nodes",
				"docforge_get_node for one node; docforge_backlinks and docforge_dependencies for its relations",
				"docforge_get_task_context with the task's kind and description before starting a piece of work: evidence, provenance and gaps within a token budget",
				"docforge_impact before a change, to see what it may affect",
				"docforge_validate_project after sources change",
			},
			"limits": c.d.Limits,
		},
	}
	// A long project root is written several times over (the envelope, the binding, the
	// paths): where the answer does not fit the smallest max_response_chars, the index's
	// hashes (docforge_project_info has them) and the workflow's prose go first, and the
	// binding, paths, policy, capabilities and contract stay whole.
	compact := maps.Clone(full)
	compact["index"] = map[string]any{"generation": info.Generation, "omitted": "the index's identity and hashes: see docforge_project_info"}
	compact["session_contract"] = map[string]any{"version": ContractVersion, "first_operation": first,
		"workflow_omitted": "see docforge_get_contract", "limits": c.d.Limits}
	c.fallbacks = append(c.fallbacks, compact)
	return full, nil
}

func runContract(c *call, _ noInput) (any, error) {
	type toolInfo struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		ReadOnly    bool           `json:"read_only"`
		InputSchema map[string]any `json:"input_schema,omitempty"`
	}
	var tools, named []toolInfo
	bound := forBinding(c.svc.toolOrder, c.b)
	for _, t := range bound {
		tools = append(tools, toolInfo{t.Name, t.Description, t.ReadOnly, t.InputSchema})
		named = append(named, toolInfo{Name: t.Name, ReadOnly: t.ReadOnly})
	}
	codes := map[string]problem.Info{}
	var codeNames []string
	for _, e := range problem.Catalogue() {
		codes[string(e.Code)] = e.Info
		codeNames = append(codeNames, string(e.Code))
	}
	policy, caps := PolicyOf(c.b), capabilities(c.b, bound)
	contract := func(tools, codes, categories any, omitted []string) map[string]any {
		m := map[string]any{
			"contract_version":    ContractVersion,
			"effective_policy":    policy,
			"adapter_policy":      map[string]any{"policy": c.b.Policy(), "ast": !c.b.NoAST, "logic": !c.b.NoAST},
			"capabilities":        caps,
			"tools":               tools,
			"error_codes":         codes,
			"relation_categories": categories,
			"task_context": map[string]any{
				"kinds": taskcontext.Kinds(), "plan_version": taskcontext.PlanVersion, "alias_map_version": graph.AliasMapVersion,
				"capsule_version": taskcontext.CapsuleVersion, "estimator": taskcontext.Estimator, "default_budget": taskcontext.DefaultBudget,
				"ceilings": map[string]int{"evidence_items": taskcontext.MaxEvidence, "candidate_edges": taskcontext.MaxExaminedEdges,
					"task_chars": taskcontext.MaxTaskChars, "budget": taskcontext.MaxBudget},
				"available": c.svc.provider == nil,
			},
			"logic_available": c.b.Policy() == golang.PolicyAST,
			"limits":          c.d.Limits,
		}
		if omitted != nil {
			// What a smaller response leaves out is in the MCP tools/list answer (schemas and
			// descriptions) and in a larger one (the error codes' meanings).
			m["omitted"] = omitted
		}
		return m
	}
	// Under a small max_response_chars the contract answers in a compact form rather than
	// not at all: first without the tools' schemas and descriptions, then with the error codes
	// by name and the tools only as capabilities lists them, then without either.
	categories := graph.CategoryMap()
	c.fallbacks = []any{
		contract(named, codes, categories, []string{"tools.description", "tools.input_schema"}),
		contract(nil, codeNames, categories, []string{"tools", "error_codes.meaning", "error_codes.remediation"}),
		contract(nil, nil, nil, []string{"tools", "error_codes", "relation_categories"}),
	}
	return contract(tools, codes, categories, nil), nil
}
