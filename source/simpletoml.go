package source

import (
	"strings"
	"unicode/utf8"

	"github.com/docforge/docforge/base/tomlpos"
)

// decodeSimpleFrontMatter decodes TOML front matter, whose first line is file line firstLine,
// into f, and returns the positions tomlpos.Scan would find, when it is of the plain form nearly
// every file has: the known string and list fields, then [relations] and [stamps] tables,
// each value a string or a one-line array of strings without escapes. It returns false,
// having changed nothing, for anything else, which the TOML decoder then reads (and reports
// on). BurntSushi's decoder, with its reflection, was the largest part of parsing a document
// (2.7 s of CPU in a 100k-node cold build; docs/benchmarks.md), and front matter is that
// small a language; so was scanning it again for positions. TestSimpleFrontMatterDecodesAsTOML
// holds the two together.
func decodeSimpleFrontMatter(text string, firstLine int, f *nodeFields) (*tomlpos.Index, bool) {
	var out nodeFields
	pos := tomlpos.New()
	table := "" // "", "relations" or "stamps"
	seen := map[string]bool{}
	for lineNo := firstLine; len(text) > 0; lineNo++ {
		line, rest, found := strings.Cut(text, "\n")
		text = rest
		if found {
			line = strings.TrimSuffix(line, "\r") // a CRLF line ending; a lone CR is refused
		}
		s := skipSpace(line)
		if s == "" || s[0] == '#' {
			if !plainText(s) {
				return nil, false
			}
			continue
		}
		at := func(rest string) tomlpos.Pos {
			return tomlpos.Pos{Line: lineNo, Column: utf8.RuneCountInString(line[:len(line)-len(rest)]) + 1}
		}
		if s[0] == '[' {
			name, after, ok := bareKey(skipSpace(s[1:]))
			after = skipSpace(after)
			if !ok || !strings.HasPrefix(after, "]") || !lineEnd(after[1:]) || (name != "relations" && name != "stamps") || seen[name] {
				return nil, false
			}
			seen[name] = true
			table = name
			pos.SetKey(name, at(s))
			if table == "relations" {
				out.Relations = map[string][]string{}
			} else {
				out.Stamps = map[string]string{}
			}
			continue
		}
		key, after, ok := bareKey(s)
		after = skipSpace(after)
		if !ok || !strings.HasPrefix(after, "=") {
			return nil, false
		}
		value := skipSpace(after[1:])
		path := key
		if table != "" {
			path = table + "." + key
		}
		// A key path never legitimately equals a table's name (a top-level key named like a
		// table is declined below anyway), so one set serves both.
		if seen[path] {
			return nil, false
		}
		seen[path] = true
		pos.SetKey(path, at(s))
		var str string
		var list []string
		isList := strings.HasPrefix(value, "[")
		if isList {
			list, value, ok = stringArray(value, func(rest string) { pos.AddValue(path, at(rest)) })
		} else {
			pos.AddValue(path, at(value))
			str, value, ok = simpleString(value)
		}
		if !ok || !lineEnd(value) {
			return nil, false
		}
		switch {
		case table == "relations" && isList:
			out.Relations[strings.Clone(key)] = list
		case table == "stamps" && !isList:
			out.Stamps[strings.Clone(key)] = str
		case table != "":
			return nil, false // a type the field does not take: the decoder says so
		case isList:
			switch key {
			case "tags":
				out.Tags = list
			case "capabilities":
				out.Capabilities = list
			default:
				return nil, false
			}
		default:
			p := stringField(&out, key)
			if p == nil {
				return nil, false
			}
			*p = str
		}
	}
	*f = out
	return pos, true
}

// stringField returns the string field of f that the top-level key sets, or nil.
func stringField(f *nodeFields, key string) *string {
	switch key {
	case "id":
		return &f.ID
	case "kind":
		return &f.Kind
	case "family":
		return &f.Family
	case "title":
		return &f.Title
	case "status":
		return &f.Status
	case "authority":
		return &f.Authority
	case "language":
		return &f.Language
	}
	return nil
}

func skipSpace(s string) string { return strings.TrimLeft(s, " \t") }

// lineEnd reports whether s is what may follow a value or header: spaces, then perhaps a
// comment.
func lineEnd(s string) bool {
	s = skipSpace(s)
	return s == "" || (s[0] == '#' && plainText(s))
}

// plainText reports whether s is valid UTF-8 without control characters other than tab, as
// TOML wants strings and comments.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// bareKey splits a bare key (letters, digits, _ and -) off the start of s.
func bareKey(s string) (key, rest string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			break
		}
		i++
	}
	return s[:i], s[i:], i > 0
}

// simpleString splits a basic string without escapes, or a literal string, off the start of s.
func simpleString(s string) (str, rest string, ok bool) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return "", s, false
	}
	q := s[0]
	end := strings.IndexByte(s[1:], q)
	if end < 0 {
		return "", s, false
	}
	str = s[1 : 1+end]
	if strings.HasPrefix(s[1:], string([]byte{q, q})) || (q == '"' && strings.IndexByte(str, '\\') >= 0) || !plainText(str) {
		return "", s, false // a multi-line string, an escape, or a character TOML refuses
	}
	// A copy, as the decoder makes: relation targets and IDs outlive the file in the cross-file
	// checks, and a slice of the front matter kept all of every file's front matter alive
	// (32 MB of a 100k-node build's heap).
	return strings.Clone(str), s[2+end:], true
}

// stringArray splits a one-line array of simple strings off the start of s (which begins
// with '['), calling at with what is left at each string. An empty array is an empty,
// non-nil list, as the decoder makes it.
func stringArray(s string, at func(rest string)) (list []string, rest string, ok bool) {
	s = skipSpace(s[1:])
	list = []string{}
	for {
		if strings.HasPrefix(s, "]") {
			return list, s[1:], true
		}
		var str string
		at(s)
		if str, s, ok = simpleString(s); !ok {
			return nil, s, false
		}
		list = append(list, str)
		s = skipSpace(s)
		switch {
		case strings.HasPrefix(s, ","):
			s = skipSpace(s[1:])
		case strings.HasPrefix(s, "]"):
		default:
			return nil, s, false
		}
	}
}
