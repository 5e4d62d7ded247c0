package adopt

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/docforge/docforge/source/project"
)

// mkdocsSite is what an MkDocs configuration says about the tree: where the pages are
// (docs_dir, default docs), and the pages its nav names that the tree does not hold, which
// the site's build generates (an API reference from docstrings, a changelog copied in).
type mkdocsSite struct {
	DocsDir   string
	Generated []string // project-relative
}

// readMkDocs reads mkdocs.yml (or .yaml) at root (project.ReadMkDocs). An unreadable or
// malformed file is no site: the survey then falls back to its usual candidates.
func readMkDocs(root string) (mkdocsSite, bool) {
	cfg := project.ReadMkDocs(root)
	if cfg == nil {
		return mkdocsSite{}, false
	}
	site := mkdocsSite{DocsDir: cfg.DocsDir}
	for _, p := range cfg.Pages {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil && !slices.Contains(site.Generated, p) {
			site.Generated = append(site.Generated, p)
		}
	}
	return site, true
}
