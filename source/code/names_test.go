package code_test

import (
	"slices"
	"testing"

	"github.com/docforge/docforge/source/code"
)

// Where a declaration lives decides what a document's name of it most likely means.
func TestStandingOf(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want int
	}{
		{"ts:packages/core/src/types.ts/Request", code.StandingPrimary},
		{"go:example.com/mod/store.Open", code.StandingPrimary},
		{"py:src/pkg/latest.py/Client", code.StandingPrimary},
		{"ts:examples/repl/client.ts/connect", code.StandingPeripheral},
		{"ts:packages/client/test/client/auth.test.ts/helper", code.StandingPeripheral},
		{"ts:packages/client/src/middleware.examples.ts/withLogging", code.StandingPeripheral},
		{"py:tests/test_client.py/test_send", code.StandingPeripheral},
		{"py:src/conftest.py/client", code.StandingPeripheral},
		{"go:example.com/mod/internal/testdata/x.F", code.StandingPeripheral},
		{"ts:packages/core/src/types/spec.types.2025-11-25.ts/Request", code.StandingSecondary},
		{"ts:packages/core/src/wire/rev2026-07-28/schemas.ts/ResultSchema", code.StandingSecondary},
		{"ts:packages/server-legacy/src/auth/errors.ts/OAuthError", code.StandingSecondary},
		{"py:src/deprecated_api.py/call", code.StandingSecondary},
		// A tests folder outranks a legacy one: the declaration serves tests.
		{"ts:packages/server-legacy/test/auth.test.ts/x", code.StandingPeripheral},
		// Not dates, not words: a version number, a word inside a word.
		{"ts:packages/v20251125/a.ts/x", code.StandingPrimary},
		{"py:src/legacyless.py/x", code.StandingPrimary},
		{"ts:examplesite/a.ts/x", code.StandingPrimary},
	} {
		if got := code.StandingOf(tc.id); got != tc.want {
			t.Errorf("StandingOf(%s) = %d, want %d", tc.id, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ids, want []string
		standing  int
	}{
		{[]string{"ts:a/test/x.ts/F", "ts:a/src/x.ts/F"}, []string{"ts:a/src/x.ts/F"}, code.StandingPrimary},
		{[]string{"ts:a/src/x.ts/F", "ts:b/src/x.ts/F"}, []string{"ts:a/src/x.ts/F", "ts:b/src/x.ts/F"}, code.StandingPrimary},
		{[]string{"ts:examples/a.ts/F", "ts:examples/b.ts/F"}, []string{"ts:examples/a.ts/F", "ts:examples/b.ts/F"}, code.StandingPeripheral},
		{[]string{"ts:a/src/x.ts/F", "ts:a/test/x.ts/F", "ts:b/src/x.ts/F"}, []string{"ts:a/src/x.ts/F", "ts:b/src/x.ts/F"}, code.StandingPrimary},
		{[]string{"ts:examples/a.ts/F", "ts:old-legacy/b.ts/F"}, []string{"ts:old-legacy/b.ts/F"}, code.StandingSecondary},
	} {
		got, standing := code.Meant(tc.ids)
		if !slices.Equal(got, tc.want) || standing != tc.standing {
			t.Errorf("Meant(%v) = %v %d, want %v %d", tc.ids, got, standing, tc.want, tc.standing)
		}
	}
}
