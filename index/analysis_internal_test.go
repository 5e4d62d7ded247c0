package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/docforge/docforge/base/lexicon"
)

// What base/lexicon makes of a node's text is part of the index format: a search over deltas
// analyzes base rows again and keeps the base's rank for a row that comes out otherwise, and
// a merge writes rows analyzed again. So a change to the analysis must change SchemaVersion,
// which rebuilds older indexes; this test pins the analysis of a sample to the version.
func TestAnalysisIsPinnedToTheSchemaVersion(t *testing.T) {
	text := analyzeSearch(lexicon.NewAnalyzer(), "go:example.com/net/http.MaxBytesReader", "func",
		"MaxBytesReader limits the size of request bodies", []string{"http", "io-limits"},
		"Running tests: the storage_engine stores pages; logging loggers logged 10:30 on 2024-01-02. "+
			"HTTPServer, parseURL, OAuthClientProvider, naïve café déjà vu, don't stop.",
		"func maxbytesreader w responsewriter r io readcloser n int64")
	sum := sha256.Sum256(fmt.Appendf(nil, "%q", []string{text.id, text.name, text.title, text.tags, text.body, text.code}))
	const schema, pinned = 13, "5494a0e7564dc458d1cee65babdcf7826e083548f7706162ae38d433302da959"
	if got := hex.EncodeToString(sum[:]); SchemaVersion != schema || got != pinned {
		t.Errorf("schema version %d, analysis %s; pinned: version %d, analysis %s. If base/lexicon changed what it makes of text, raise SchemaVersion and pin both here", SchemaVersion, got, schema, pinned)
	}
}
