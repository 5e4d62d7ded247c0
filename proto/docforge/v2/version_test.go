package docforgev2

import (
	"strings"
	"testing"
)

func TestCheckVersion(t *testing.T) {
	if err := CheckVersion(ProtocolVersion); err != nil {
		t.Fatal(err)
	}
	err := CheckVersion(1)
	if err == nil || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("v1 peer: %v, want an error naming both versions", err)
	}
}
