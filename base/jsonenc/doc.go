// Package jsonenc writes JSON byte for byte as encoding/json marshals the same values, for the
// few fixed shapes DocForge hashes and stores per node and per diff item: strings, lists of
// strings, and objects of those and integers, written in member order without reflection.
// Hashes over these encodings must never change, so the package's tests hold every byte of its
// output to json.Marshal's.
package jsonenc
