package project

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docforge/docforge/base/safefile"
)

// MkDocsNames are the names MkDocs reads its configuration from, at the project root.
func MkDocsNames() []string { return []string{"mkdocs.yml", "mkdocs.yaml"} }

// maxMkDocsBytes bounds the configuration read: a real one is a few kilobytes.
const maxMkDocsBytes = 1 << 20

// MkDocs is what an MkDocs configuration says about the pages of its site.
type MkDocs struct {
	// File is the configuration's name at the project root; Hash its content's.
	File, Hash string
	// DocsDir is the folder of the pages, project-relative (docs_dir, default docs).
	DocsDir string
	// DirectoryURLs is use_directory_urls (default true): a page a/b.md is served at a/b/,
	// so a link written as a URL in it is relative to a/b/.
	DirectoryURLs bool
	// Titles are the nav's titles by the project-relative path of the page they name.
	Titles map[string]string
	// Pages are the pages and folders the nav names, project-relative, in nav order.
	Pages []string
}

// ReadMkDocs reads the MkDocs configuration at root (mkdocs.yml, else mkdocs.yaml): nil when
// there is none, or it is no regular file, or is too large, or is no YAML mapping; the site
// then has no nav titles and links resolve with directory URLs, MkDocs' default.
func ReadMkDocs(root string) *MkDocs {
	for _, name := range MkDocsNames() {
		// Never through a link out of the root, nor from a FIFO put there to block the load.
		data, err := safefile.ReadRegular(filepath.Join(root, name), maxMkDocsBytes)
		if err != nil {
			continue
		}
		return parseMkDocs(name, data)
	}
	return nil
}

func parseMkDocs(name string, data []byte) *MkDocs {
	// Only a few keys are read: MkDocs configurations carry Python tags (!!python/name:)
	// that a plain decoder rejects in other keys, so the document is read as nodes.
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	sum := sha256.Sum256(data)
	site := &MkDocs{File: name, Hash: "sha256:" + hex.EncodeToString(sum[:]), DocsDir: "docs", DirectoryURLs: true, Titles: map[string]string{}}
	var nav *yaml.Node
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		v := top.Content[i+1]
		switch top.Content[i].Value {
		case "docs_dir":
			if d := path.Clean(strings.TrimSpace(v.Value)); d != "" && d != "." && !strings.HasPrefix(d, "..") && !path.IsAbs(d) {
				site.DocsDir = d
			}
		case "use_directory_urls":
			site.DirectoryURLs = strings.TrimSpace(strings.ToLower(v.Value)) != "false"
		case "nav":
			nav = v
		}
	}
	site.walkNav(nav, "")
	return site
}

// walkNav records the pages a nav names, with the title each entry gives ("Title: page.md");
// a bare entry ("page.md") has none.
func (s *MkDocs) walkNav(n *yaml.Node, title string) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		v := strings.TrimSpace(n.Value)
		if v == "" || strings.Contains(v, "://") || strings.HasPrefix(v, "/") {
			return
		}
		p := path.Join(s.DocsDir, strings.TrimSuffix(v, "/"))
		if strings.HasPrefix(p, "../") || p == ".." {
			return
		}
		s.Pages = append(s.Pages, p)
		if _, seen := s.Titles[p]; title != "" && !seen {
			s.Titles[p] = title
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			s.walkNav(c, "")
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			s.walkNav(n.Content[i+1], strings.TrimSpace(n.Content[i].Value))
		}
	}
}
