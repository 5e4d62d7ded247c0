package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// Template is the fixed built-in browser the viewer serves.
const Template = "graph-browser@18"

// bundle is the page the Makefile builds with esbuild from web/ui (npm packages pinned by its
// package-lock.json). The built bundle is committed so that 'go install' gives the whole
// viewer; 'make ui-check' keeps it equal to a fresh build of the sources.
//
//go:embed all:ui/dist
var bundle embed.FS

// pageFiles are the files a built page has; index.html is served for "/".
var pageFiles = []string{"index.html", "boot.js", "app.js", "app.css"}

// Page returns the embedded page's files.
func Page() fs.FS {
	sub, err := fs.Sub(bundle, "ui/dist")
	if err != nil {
		panic(err) // the directive above guarantees the directory
	}
	return sub
}

// PageBuilt reports whether page holds every file of a built page.
func PageBuilt(page fs.FS) bool {
	for _, name := range pageFiles {
		if st, err := fs.Stat(page, name); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// servePage answers the page's own files, and nothing else: no listing, no other path.
func (v *Viewer) servePage(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	known := false
	for _, f := range pageFiles {
		known = known || f == name
	}
	if !known {
		refuse(w, http.StatusNotFound, "no such page file")
		return
	}
	if !PageBuilt(v.page) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("The graph browser page was not built into this docforge binary. Run 'make ui' (it bundles web/ui with esbuild), rebuild docforge and visualize again.\n"))
		return
	}
	data, err := fs.ReadFile(v.page, name)
	if err != nil {
		refuse(w, http.StatusInternalServerError, "page file unreadable")
		return
	}
	types := map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	w.Header().Set("Content-Type", types[path.Ext(name)])
	w.Write(data)
}
