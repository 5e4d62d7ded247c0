package jsonenc

import (
	"strconv"
	"unicode/utf8"
)

// jsonSafe marks the ASCII bytes encoding/json copies as they are in a string, escaping HTML.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const lowerHex = "0123456789abcdef"

// String appends s as json.Marshal encodes a string.
func String(dst []byte, s string) []byte {
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

// Strings appends ss as json.Marshal encodes a []string, but nil as [].
func Strings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, s)
	}
	return append(dst, ']')
}

// Object writes an object's members in order, as json.Marshal writes a struct's fields.
type Object struct {
	b     []byte
	first bool
}

// NewObject starts an object after dst.
func NewObject(dst []byte) Object { return Object{append(dst, '{'), true} }

func (o *Object) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = append(append(append(o.b, '"'), k...), '"', ':')
}

// Str writes a string member.
func (o *Object) Str(k, v string) {
	o.key(k)
	o.b = String(o.b, v)
}

// Int writes an integer member.
func (o *Object) Int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

// List writes a []string member: nil as null, as json.Marshal writes it, unless nilAsEmpty.
func (o *Object) List(k string, v []string, nilAsEmpty bool) {
	o.key(k)
	if v == nil && !nilAsEmpty {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = Strings(o.b, v)
}

// Value writes a member whose value f appends (a nested object, an array of other shapes).
func (o *Object) Value(k string, f func(dst []byte) []byte) {
	o.key(k)
	o.b = f(o.b)
}

// End closes the object and returns the whole encoding.
func (o *Object) End() []byte { return append(o.b, '}') }
