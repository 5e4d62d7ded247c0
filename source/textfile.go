package source

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/lexicon"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/project"
)

// Text files under code roots: what no language adapter reads is still findable. A text
// file is one node, its distinct terms searchable and its lines quotable as evidence.
const (
	// MaxTextFileBytes bounds a text file that becomes a node; a longer one is skipped (a
	// fixture, a data dump, generated output).
	MaxTextFileBytes = 256 << 10
	// maxTextTerms bounds the distinct terms kept of one text file.
	maxTextTerms = 2000
	// binarySniff is how much of a file is looked at for a NUL byte.
	binarySniff = 8000
)

// IsText reports whether data is a text file DocForge indexes: within the size bound, with no
// NUL byte in its first bytes, and valid UTF-8.
func IsText(data []byte) bool {
	return len(data) <= MaxTextFileBytes && bytes.IndexByte(data[:min(len(data), binarySniff)], 0) < 0 && utf8.Valid(data)
}

// textFragment is the fragment of a text file: one file node, or nothing for a binary or
// oversized file. A guide's links and backticked names become its optional links, when
// links reach code.
func textFragment(d *project.Descriptor, rel string, data []byte) *graph.Fragment {
	frag := &graph.Fragment{Path: rel}
	if !IsText(data) {
		return frag
	}
	id := graph.TextPrefix + rel
	frag.Nodes = []graph.Node{textNode(id, rel, TextLanguage(rel), data)}
	if IsGuide(rel) && d.Sources.Links.CodeOn() {
		scan := scanBody(string(data), 1, true)
		// A guide writes paths from the repository's top, whatever folder it is in.
		for _, p := range scan.paths {
			p.dest = "/" + p.dest
			scan.links = append(scan.links, p)
		}
		frag.Links = append(nodeLinks(d, rel, id, scan.links, nil), mentionLinks(rel, id, scan.mentions)...)
		for i := range frag.Links {
			frag.Links[i].Optional = true
		}
	}
	return frag
}

// IsGuide reports whether the text file at rel is a guide written for agents and
// contributors: AGENTS.md, CLAUDE.md, GEMINI.md, CONTRIBUTING.md, the Markdown under
// .github (copilot-instructions.md among it), Cursor's rules. Such a file relates to the code
// it names, as a document does.
func IsGuide(rel string) bool {
	base := path.Base(rel)
	switch strings.ToUpper(base) {
	case "AGENTS.MD", "CLAUDE.MD", "GEMINI.MD", "CONTRIBUTING.MD", ".CURSORRULES":
		return true
	}
	dirs := "/" + path.Dir(rel) + "/"
	md := strings.EqualFold(path.Ext(base), ".md")
	return strings.Contains(dirs, "/.github/") && md || strings.Contains(dirs, "/.cursor/rules/")
}

// scriptTextFragment is a Python, TypeScript or JavaScript file under the no-AST policy: its
// file node, text searchable, and no declaration (no parser runs).
func scriptTextFragment(f File, data []byte) *graph.Fragment {
	var prefix, lang string
	switch f.Format {
	case TSFile:
		prefix, lang = graph.TypeScriptPrefix, "typescript"
	case JSFile:
		prefix, lang = graph.JavaScriptPrefix, "javascript"
	case LangFile:
		l := langOf(f.Path)
		prefix, lang = l.Prefix, l.Name
	}
	frag := &graph.Fragment{Path: f.Path}
	if utf8.Valid(data) {
		frag.Nodes = []graph.Node{textNode(prefix+f.Path, f.Path, lang, data)}
	}
	return frag
}

func textNode(id, rel, lang string, data []byte) graph.Node {
	lines := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	n := graph.Node{Record: graph.Record{
		ID: id, Kind: code.KindFile, Family: code.Family, Title: path.Base(rel), Language: lang,
		SourcePath: rel, Anchor: "L1",
	}, Line: 1, EndLine: max(lines, 1)}
	n.CodeTerms = lexicon.LineSpanTerms(data, [][2]int{{1, n.EndLine}}, maxTextTerms)[0]
	d := graph.NewDigester("docforge.text.content")
	d.Write(data)
	n.ContentHash = graph.CodeContentHash(&n, "", d.Sum())
	return n
}

// TextLanguage names the language of a text file by its name: yaml, json, shell, ...;
// "text" when the name says nothing.
func TextLanguage(rel string) string {
	base := path.Base(rel)
	switch {
	case base == "Makefile" || base == "GNUmakefile" || base == "makefile":
		return "make"
	case base == "Dockerfile" || base == "Containerfile" || strings.HasPrefix(base, "Dockerfile."):
		return "dockerfile"
	}
	if lang, ok := textLanguageByExt[strings.ToLower(path.Ext(base))]; ok {
		return lang
	}
	return "text"
}

// textLanguageByExt names a text file's language by its extension (lowercase). Read only.
var textLanguageByExt = map[string]string{
	".yaml": "yaml", ".yml": "yaml",
	".json": "json", ".jsonc": "json", ".json5": "json",
	".toml": "toml",
	".sh":   "shell", ".bash": "shell", ".zsh": "shell",
	".proto": "protobuf",
	".sql":   "sql",
	".txtar": "txtar",
	".md":    "markdown", ".markdown": "markdown",
	".html": "html", ".htm": "html",
	".css": "css", ".scss": "css",
	".mk": "make",
	".rs": "rust",
	".c":  "c", ".h": "c",
	".java": "java",
	".rb":   "ruby",
	".cfg":  "ini", ".ini": "ini", ".conf": "ini",
	".txt": "text", ".rst": "text",
}

// langOf is the table-driven language of a LangFile.
func langOf(rel string) *lang.Language { return lang.ByExtension(rel) }
