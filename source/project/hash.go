package project

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func isUTF8(b []byte) bool { return utf8.Valid(b) }
