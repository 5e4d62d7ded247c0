package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
)

// SetDigest is an order-independent digest of a set of hashes: the sum of the items' SHA-256
// values modulo 2^256, plus a count. Adding and removing items is O(1), so an incremental
// publication can update the node and edge set hashes from its delta alone and still arrive at
// exactly the value a cold build computes. The zero value is the empty set.
//
// Sums of hashes are not collision-resistant against an adversary choosing many items; the
// digest identifies states of one project for equality checks and receipts, not for security.
type SetDigest struct {
	sum   [32]byte
	count int64
}

// Add includes an item hash ("sha256:<hex>") in the set.
func (d *SetDigest) Add(itemHash string) { d.AddHash(DigestItem(itemHash)) }

// Include adds every item of o to d, so that parts of a set can be digested in parallel.
func (d *SetDigest) Include(o SetDigest) {
	d.AddHash(o.sum)
	d.count += o.count - 1
}

// AddHash includes an item by its SHA-256, which the caller computed from bytes it already
// holds (Add hashes the string it is given).
func (d *SetDigest) AddHash(v [32]byte) {
	var carry uint64
	for i := 3; i >= 0; i-- {
		a := binary.BigEndian.Uint64(d.sum[i*8:])
		b := binary.BigEndian.Uint64(v[i*8:])
		var s uint64
		s, carry = bits.Add64(a, b, carry)
		binary.BigEndian.PutUint64(d.sum[i*8:], s)
	}
	d.count++
}

// Remove takes an item hash out of the set. Removing an item that was never added leaves a
// digest no real set has, which the equivalence tests would catch.
func (d *SetDigest) Remove(itemHash string) { d.RemoveHash(DigestItem(itemHash)) }

// RemoveHash takes out an item included by AddHash.
func (d *SetDigest) RemoveHash(v [32]byte) {
	var borrow uint64
	for i := 3; i >= 0; i-- {
		a := binary.BigEndian.Uint64(d.sum[i*8:])
		b := binary.BigEndian.Uint64(v[i*8:])
		var s uint64
		s, borrow = bits.Sub64(a, b, borrow)
		binary.BigEndian.PutUint64(d.sum[i*8:], s)
	}
	d.count--
}

// Count is the number of items in the set.
func (d *SetDigest) Count() int64 { return d.count }

// DigestItem is what Add includes in a set for an item hash, for AddHash where the hashing is
// done apart from the adding (on another goroutine). It hashes the item string once more, so
// that any string (not only well-formed hashes) maps to a uniform 256-bit value.
func DigestItem(itemHash string) [32]byte { return sha256.Sum256([]byte(itemHash)) }

// Sum returns the digest as "sha256:<hex>", binding the count.
func (d *SetDigest) Sum() string {
	h := sha256.New()
	h.Write([]byte("docforge.set.v1\x00"))
	h.Write(d.sum[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(d.count))
	h.Write(n[:])
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MarshalText stores the accumulator so a later incremental build can resume it.
func (d SetDigest) MarshalText() ([]byte, error) {
	return []byte(fmt.Sprintf("%d:%s", d.count, hex.EncodeToString(d.sum[:]))), nil
}

// UnmarshalText restores an accumulator written by MarshalText.
func (d *SetDigest) UnmarshalText(b []byte) error {
	count, sum, ok := strings.Cut(string(b), ":")
	if !ok {
		return fmt.Errorf("set digest %q: missing ':'", b)
	}
	var n int64
	if _, err := fmt.Sscanf(count, "%d", &n); err != nil {
		return fmt.Errorf("set digest count %q: %w", count, err)
	}
	raw, err := hex.DecodeString(sum)
	if err != nil || len(raw) != 32 {
		return fmt.Errorf("set digest sum %q: not 32 hex bytes", sum)
	}
	d.count = n
	copy(d.sum[:], raw)
	return nil
}

// DomainHash is "sha256:" and the hex SHA-256 of a domain name, a NUL byte and v's JSON: the
// one way DocForge hashes a structured value (receipts, cursors, capsules), so values of
// different kinds never share a hash. v must be JSON-encodable; every caller passes plain
// structs, slices and strings.
func DomainHash(domain string, v any) string {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("graph: hash %T: %v", v, err))
	}
	sum := sha256.Sum256(append([]byte(domain+"\x00"), body...))
	return "sha256:" + hex.EncodeToString(sum[:])
}
