package adopt

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// mkdocsSite is what an MkDocs configuration says about the tree: where the pages are
// (docs_dir, default docs), and the pages its nav names that the tree does not hold, which
// the site's build generates (an API reference from docstrings, a changelog copied in).
type mkdocsSite struct {
	DocsDir   string
	Generated []string // project-relative
}

// readMkDocs reads mkdocs.yml (or .yaml) at root. An unreadable or malformed file is no
// site: the survey then falls back to its usual candidates.
func readMkDocs(root string) (mkdocsSite, bool) {
	var data []byte
	var err error
	for _, name := range []string{"mkdocs.yml", "mkdocs.yaml"} {
		if data, err = os.ReadFile(filepath.Join(root, name)); err == nil {
			break
		}
	}
	if err != nil {
		return mkdocsSite{}, false
	}
	// Only the two keys are read: MkDocs configurations carry Python tags (!!python/name:)
	// that a plain decoder rejects in other keys, so the document is read as nodes.
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return mkdocsSite{}, false
	}
	site := mkdocsSite{DocsDir: "docs"}
	var nav *yaml.Node
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch top.Content[i].Value {
		case "docs_dir":
			if v := path.Clean(strings.TrimSpace(top.Content[i+1].Value)); v != "" && v != "." && !strings.HasPrefix(v, "..") && !path.IsAbs(v) {
				site.DocsDir = v
			}
		case "nav":
			nav = top.Content[i+1]
		}
	}
	for _, page := range navPages(nav) {
		p := path.Join(site.DocsDir, strings.TrimSuffix(page, "/"))
		if strings.HasPrefix(p, "../") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil && !slices.Contains(site.Generated, p) {
			site.Generated = append(site.Generated, p)
		}
	}
	return site, true
}

// navPages are the pages and folders a nav names, in order: every scalar leaf that is no
// external URL.
func navPages(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		if v := strings.TrimSpace(n.Value); v != "" && !strings.Contains(v, "://") && !strings.HasPrefix(v, "/") {
			out = append(out, v)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			out = append(out, navPages(c)...)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 { // the values; the keys are titles
			out = append(out, navPages(n.Content[i])...)
		}
	}
	return out
}
