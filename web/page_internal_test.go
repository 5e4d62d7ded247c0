package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// Without a built bundle the page says how to build it; with one it serves each file with its
// type.
func TestServePage(t *testing.T) {
	built := fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}, "boot.js": {Data: []byte("boot()")}, "app.js": {Data: []byte("main()")}, "app.css": {Data: []byte("body{}")}}
	for _, tc := range []struct {
		name   string
		page   fstest.MapFS
		path   string
		status int
		want   string
	}{
		{"not built", fstest.MapFS{".gitkeep": {}}, "/", http.StatusServiceUnavailable, "make ui"},
		{"index", built, "/", http.StatusOK, "text/html"},
		{"script", built, "/app.js", http.StatusOK, "text/javascript"},
		{"style", built, "/app.css", http.StatusOK, "text/css"},
		{"not a page file", built, "/other.js", http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &Viewer{page: tc.page}
			w := httptest.NewRecorder()
			v.servePage(w, httptest.NewRequest("GET", tc.path, nil))
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("Content-Type") + w.Body.String(); !strings.Contains(got, tc.want) {
				t.Errorf("answer %q does not contain %q", got, tc.want)
			}
		})
	}
	if PageBuilt(fstest.MapFS{"index.html": {}, "boot.js": {}, "app.js": {}}) {
		t.Error("a page without its stylesheet counts as built")
	}
}

// The committed bundle is embedded: a docforge built with plain 'go build' or 'go install'
// serves the whole page, not the "not built" notice.
func TestEmbeddedPageIsBuilt(t *testing.T) {
	if !PageBuilt(Page()) {
		t.Fatal("web/ui/dist lacks a built page: run 'make ui' and commit web/ui/dist")
	}
}
