package graph

import "unicode/utf8"

// The hashes here are of JSON encodings, and so must stay byte for byte what encoding/json
// writes. These encoders write the few fixed shapes hashed and stored per node without
// json.Marshal's reflection and allocations, which were 1.27 s of a 100k-node cold build's
// CPU against 0.21 s after (docs/benchmarks.md). TestJSONEncodingIsEncodingJSONs holds the
// two together.

// jsonSafe marks the ASCII bytes encoding/json copies as they are in a string, escaping HTML.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const lowerHex = "0123456789abcdef"

// AppendJSONString appends s as json.Marshal encodes a string.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[b>>4], lowerHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendJSONStrings appends ss as json.Marshal encodes a []string, nil as [].
func AppendJSONStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

// jsonObject appends an object's members in order, as json.Marshal writes a struct's fields.
type jsonObject struct {
	b     []byte
	first bool
}

func newJSONObject(dst []byte) jsonObject { return jsonObject{append(dst, '{'), true} }

func (o *jsonObject) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = append(append(append(o.b, '"'), k...), '"', ':')
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = AppendJSONString(o.b, v)
}

// list appends a []string member: nil as null, as json.Marshal writes it, unless nilAsEmpty.
func (o *jsonObject) list(k string, v []string, nilAsEmpty bool) {
	o.key(k)
	if v == nil && !nilAsEmpty {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = AppendJSONStrings(o.b, v)
}

func (o *jsonObject) end() []byte { return append(o.b, '}') }
