package normalize

import (
	"testing"
	"time"
)

func TestNormalizeUnknownCode(t *testing.T) {
	e := Normalize(Scan{Carrier: "acme", Code: "ZZ", At: time.Unix(0, 0)})
	if e.State != "exception" || e.Raw != "ZZ" {
		t.Fatalf("got %+v", e)
	}
}
