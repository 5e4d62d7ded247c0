// Package problem is DocForge's single catalogue of stable error codes and the Problem value
// that carries one of them to a person or an agent.
//
// Every user-facing failure, from a typo in front matter to a stale pagination cursor, is a
// Code defined in codes.go with a one-line summary and a remediation. The README lists the same
// codes; a test keeps the two in step. This package performs no I/O.
package problem
