package golang

import "github.com/docforge/docforge/base/graph"

// Kinds, family and language of code nodes.
const (
	Family   = "code"
	Language = "go"

	KindPackage = "package"
	KindFile    = "file"
	KindType    = "type"
	KindFunc    = "func"
	KindMethod  = "method"
	KindVar     = "var"   // a package-level variable; each name of a spec is one node
	KindConst   = "const" // a package-level constant
)

// Relations the adapter emits. A project with code roots must allow all of them.
const (
	RelContains = "contains" // package contains file
	RelDefines  = "defines"  // file defines type, func, method
	RelImports  = "imports"  // file imports package
	RelCalls    = "calls"    // func or method calls func or method
	RelTestedBy = "tested_by"
	// RelDependsOn relates a declaration to the package-level names it uses without calling
	// them. It is optional: a project that does not allow depends_on simply has no such edges.
	RelDependsOn = "depends_on"
)

// Relations returns the relations the adapter emits, sorted.
func Relations() []string {
	return []string{RelCalls, RelContains, RelDefines, RelImports, RelTestedBy}
}

// Capabilities of code nodes.
const (
	CapExported     = "exported"
	CapUnexported   = "unexported"
	CapTest         = "test"          // a TestXxx function
	CapBuildIgnored = "build_ignored" // a file the build constraints exclude
	CapParseError   = "parse_error"   // a file that does not parse
)

// Facts is what one Go file contributes, computed from its bytes alone.
type Facts struct {
	Package string   `json:"package"` // the package clause; empty when the file does not parse
	Ignored bool     `json:"ignored,omitempty"`
	Doc     string   `json:"doc,omitempty"` // the package doc comment in this file
	Imports []Import `json:"imports,omitempty"`
	Decls   []Decl   `json:"decls,omitempty"`
	// Error is the first syntax error, if the file does not parse.
	Error *SyntaxError `json:"error,omitempty"`
}

// Import is one import spec.
type Import struct {
	Path string `json:"path"`
	Name string `json:"name,omitempty"` // explicit name, "_" or "."; empty for the default
	Line int    `json:"line"`
}

// Decl is one top-level declaration that becomes a node.
type Decl struct {
	Kind string `json:"kind"` // KindType, KindFunc, KindMethod, KindVar or KindConst
	Name string `json:"name"`
	Recv string `json:"recv,omitempty"` // receiver base type name, for methods
	Line int    `json:"line"`
	// End is the declaration's last line, so that evidence can quote its source.
	End int    `json:"end"`
	Doc string `json:"doc,omitempty"`
	// Signature and Implementation digest the declaration's tokens: a function's signature
	// and body, or a type's, variable's or constant's whole spec (and no implementation).
	Signature      string `json:"signature,omitempty"`
	Implementation string `json:"implementation,omitempty"`
	// Calls are the syntactic call candidates of a function body, deduplicated and sorted.
	Calls []Callee `json:"calls,omitempty"`
	// Terms are the distinct search terms of its source (base/lexicon), in order of first
	// appearance: what a text search of the code finds in it.
	Terms string `json:"terms,omitempty"`
	// Refs are the package-level names it uses without calling them (references).
	Refs  []Callee `json:"refs,omitempty"`
	Logic *Logic   `json:"logic,omitempty"`
}

// Callee names a called function or method. Pkg is an import path, or empty for the file's
// own package; Recv is set for a method called through the enclosing method's receiver.
type Callee struct {
	Pkg  string `json:"pkg,omitempty"`
	Recv string `json:"recv,omitempty"`
	Name string `json:"name"`
}

// SyntaxError locates the first parse error of a file.
type SyntaxError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Logic, Step and LogicEdge are the graph's types; the adapter produces them.
type (
	Logic     = graph.Logic
	Step      = graph.Step
	LogicEdge = graph.LogicEdge
)

// Kinds are the node kinds the Go adapter makes, in the code family.
func Kinds() []string {
	return []string{KindPackage, KindFile, KindType, KindFunc, KindMethod, KindVar, KindConst}
}
