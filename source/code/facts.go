package code

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/source/golang"
)

// Node kinds. A file is a module in all three languages; its node holds the module's doc.
const (
	Family = "code"

	KindFile      = "file"
	KindClass     = "class"
	KindInterface = "interface"
	KindType      = "type" // a type alias or an enum
	KindFunc      = "func"
	KindMethod    = "method"
	KindVar       = "var"
	KindConst     = "const"
	// The kinds the table-driven languages add (Rust, Java, ...).
	KindModule      = "module"
	KindStruct      = "struct"
	KindEnum        = "enum"
	KindRecord      = "record"
	KindField       = "field"
	KindConstructor = "constructor"
	KindMacro       = "macro"
	KindMessage     = "message" // a Protocol Buffers message
	KindService     = "service" // an RPC service
	KindRPC         = "rpc"     // one of its methods
)

// QualOf is the qualified name of name declared in parent ("" at the top).
func QualOf(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// Relations the adapters emit, as the Go adapter's.
const (
	RelDefines   = "defines"
	RelImports   = "imports"
	RelCalls     = "calls"
	RelTestedBy  = "tested_by"
	RelDependsOn = "depends_on"
)

// Capabilities of code nodes.
const (
	CapExported   = "exported"
	CapUnexported = "unexported"
	CapTest       = "test"
	CapParseError = "parse_error"
	// CapAmbiguousCalls marks a declaration some of whose calls name a member of a value
	// whose type the adapter cannot tell: they are left out, never guessed.
	CapAmbiguousCalls = "ambiguous_calls"
)

// Facts is what one file contributes, computed from its bytes alone.
type Facts struct {
	Doc string // the module docstring, or a file's leading doc comment
	// Package is the package or namespace the file declares (Java's package), when it does.
	Package string
	Imports []Import
	Decls   []Decl
	Error   *SyntaxError // the first syntax error, when the file does not parse cleanly
}

// Import is one name an import (or a re-export) binds.
type Import struct {
	// Module is the module as written: "mcp.server", ".x", "..", "./a.js", "@scope/pkg".
	Module string
	// Local is the name bound in the file ("" for an import for its side effects, or a
	// re-export under the imported name); Name is the name imported: "" for the module itself,
	// "*" for all of its names, "default" for an ECMAScript default export.
	Local, Name string
	Line        int
	// Export says the file exports the name again: `export {a} from`, `export * from`, or an
	// import in a Python package's __init__.py.
	Export bool
	// Implicit says the language binds the name without an import statement (a Java type of
	// the file's own package): a binding, but no imports relation.
	Implicit bool
}

// Decl is one declaration that becomes a node.
type Decl struct {
	Kind string
	Name string
	// Parent is the enclosing class's (or a test block's enclosing block's) qualified name.
	Parent string
	Line   int
	End    int
	Doc    string
	// Title is the declaration's first line as a reader knows it: "def run(self) -> None",
	// "class Server(Base)", "function f(a: number): string".
	Title string
	// Signature and Implementation digest the declaration's header and body text.
	Signature, Implementation string
	// Calls are the dotted names the body calls, as written, each once, sorted. A name
	// through a local variable of a known class is written through the class: x = Foo();
	// x.run() is "Foo.run". "self" and "this" stand for the enclosing class.
	Calls []string
	// Uses are the names it refers to without calling them (base classes, annotations),
	// each once, sorted.
	Uses []string
	// Ambiguous counts member calls on values of unknown type.
	Ambiguous int
	Terms     string
	Test      bool
	Exported  bool
	Logic     *graph.Logic
}

// Visible is s with every character a reader cannot see for what it is written as an escape
// (\u202E): control and format characters (bidi overrides, zero-width joiners), line and
// paragraph separators, spaces other than U+0020, and the Hangul fillers that languages
// accept in identifiers. A declaration's name from a quoted or computed key, or such an
// identifier, would otherwise forge a line of output or give two node IDs that read alike.
func Visible(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unseen) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte reads as U+FFFD, which it becomes
		switch {
		case !unseen(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, "\\U%08X", r)
		default:
			fmt.Fprintf(&b, "\\u%04X", r)
		}
	}
	return b.String()
}

func unseen(r rune) bool {
	return lexicon.Unseen(r) || unicode.Is(unicode.Zs, r) && r != ' '
}

// Qual is the declaration's qualified name in its file.
func (d *Decl) Qual() string {
	if d.Parent == "" {
		return d.Name
	}
	return d.Parent + "." + d.Name
}

// SyntaxError locates the first error in a file's syntax tree.
type SyntaxError struct {
	Line, Column int
	Message      string
}

// maxDeclTerms bounds the distinct search terms kept of one declaration's source.
const maxDeclTerms = 400

// Finish completes facts an extractor gathered from src: each declaration's search terms,
// from its lines, and the file's first syntax error (line 0: none).
func (f *Facts) Finish(src []byte, errLine, errColumn int, errMessage string) {
	spans := make([][2]int, len(f.Decls))
	for i, d := range f.Decls {
		spans[i] = [2]int{d.Line, d.End}
	}
	for i, t := range lexicon.LineSpanTerms(src, spans, maxDeclTerms) {
		f.Decls[i].Terms = t
	}
	for i := range f.Decls {
		d := &f.Decls[i]
		d.Name, d.Parent, d.Title = Visible(d.Name), Visible(d.Parent), Visible(d.Title)
	}
	if errLine > 0 {
		f.Error = &SyntaxError{Line: errLine, Column: errColumn, Message: errMessage}
	}
}

// maxTitle bounds a declaration's title, in runes.
const maxTitle = 200

// Title is a declaration's header on one line: whitespace collapsed, no space inside
// parentheses, the trailing marks given removed in order (":" of a Python def, "=>" and "="
// of an arrow function's declarator), at most maxTitle runes.
func Title(header string, trailing ...string) string {
	t := strings.Join(strings.Fields(header), " ")
	t = strings.ReplaceAll(strings.ReplaceAll(t, "( ", "("), " )", ")")
	for _, s := range trailing {
		t = strings.TrimSpace(strings.TrimSuffix(t, s))
	}
	if r := []rune(t); len(r) > maxTitle {
		t = string(r[:maxTitle]) + "…"
	}
	return t
}

// Digest digests a span of source with its whitespace collapsed: a re-indented declaration
// keeps its digests, and so its review stamps.
func Digest(domain, text string) string {
	d := graph.NewDigester(domain)
	d.WriteString(strings.Join(strings.Fields(text), " "))
	return d.Sum()
}

// LogicListing renders the Logic of every declaration that has one, in order, each under its
// qualified name: what the adapters' golden Logic tests compare.
func (f *Facts) LogicListing() string {
	var b strings.Builder
	for _, d := range f.Decls {
		if d.Logic != nil {
			fmt.Fprintf(&b, "== %s\n%s", d.Qual(), golang.FormatLogic(d.Logic))
		}
	}
	return b.String()
}

// TestName makes an identifier of a test block's title: "handles a bad cursor" is
// handles_a_bad_cursor, Rack::Lint is Rack_Lint; "test" when the title has no letter.
func TestName(title string) string {
	var b strings.Builder
	under := false
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
		} else {
			under = true
		}
		if b.Len() > 80 {
			break
		}
	}
	if b.Len() == 0 {
		return "test"
	}
	return b.String()
}
