package graph

// AliasMapVersion is the version of the relation alias map below.
const AliasMapVersion = 1

// Relation categories of the version-1 alias map, and the category of every other relation.
const (
	Structure      = "structure"
	Implementation = "implementation"
	Dependency     = "dependency"
	Execution      = "execution"
	Data           = "data"
	Evidence       = "evidence"
	Context        = "context"
	Unclassified   = "unclassified"
)

// Categories are the classified categories, in the contract's order.
func Categories() []string {
	return []string{Structure, Implementation, Dependency, Execution, Data, Evidence, Context}
}

// Aliases returns the exact version-1 alias map: category to relation names.
func Aliases() map[string][]string {
	return map[string][]string{
		Structure:      {"contains", "defined_in", "defines", "owns"},
		Implementation: {"implemented_by", "implements", "inherits", "inherits_from"},
		Dependency:     {"depends_on", "imports"},
		Execution:      {"activates", "calls", "dispatches_to", "launches"},
		Data:           {"reads", "writes"},
		Evidence:       {"documents", "governs", "proves", "tested_by", "verifies"},
		Context:        {"relates_to"},
	}
}

// CategoryMap returns relation name to category for every aliased relation.
func CategoryMap() map[string]string {
	m := map[string]string{}
	for cat, rels := range Aliases() {
		for _, r := range rels {
			m[r] = cat
		}
	}
	return m
}

// Category returns a relation's version-1 category, or Unclassified. It compares exact names
// only: "depends-on" or "DependsOn" are unclassified.
func Category(relation string) string {
	if c, ok := CategoryMap()[relation]; ok {
		return c
	}
	return Unclassified
}
