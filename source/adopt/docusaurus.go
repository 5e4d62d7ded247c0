package adopt

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// docusaurusConfigs are the names Docusaurus loads its configuration from.
var docusaurusConfigs = []string{"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs", "docusaurus.config.cjs"}

// findDocusaurus finds the site at root, in website/, or in another folder just below root.
func findDocusaurus(root string) (dir string, config []byte, ok bool) {
	dirs := []string{".", "website"}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !skipDirs[e.Name()] && e.Name() != "website" {
				dirs = append(dirs, e.Name())
			}
		}
	}
	for _, d := range dirs {
		for _, name := range docusaurusConfigs {
			if data, err := os.ReadFile(filepath.Join(root, d, name)); err == nil {
				return d, data, true
			}
		}
	}
	return "", nil, false
}

// The configuration is a program; these read the literal options of its docs plugins
// (@docusaurus/plugin-content-docs, and the classic preset's docs), which is how sites
// write them. An option computed by code is not seen, and its default is assumed.
var (
	routeBasePathOption = regexp.MustCompile(`routeBasePath\s*:\s*['"]([^'"]*)['"]`)
	pathOption          = regexp.MustCompile(`\bpath\s*:\s*['"]([^'"]+)['"]`)
)

// docusaurusRoutes reads the docs plugins of the site at dir (project-relative) from its
// configuration: each plugin's path (the nearest path option before its routeBasePath,
// default docs) under the URL path it serves (routeBasePath, default docs), for the folders
// that exist: "/graphql" -> "site/docs-graphql".
func docusaurusRoutes(root, dir string, config []byte) map[string]string {
	routes := map[string]string{}
	text := string(config)
	add := func(folder, route string) {
		rel := path.Join(dir, folder)
		if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil || !st.IsDir() {
			return
		}
		key := "/" + strings.Trim(route, "/")
		if _, taken := routes[key]; !taken {
			routes[key] = rel
		}
	}
	for _, m := range routeBasePathOption.FindAllStringSubmatchIndex(text, -1) {
		folder := "docs"
		// The plugin's own path comes before its routeBasePath in the same options object;
		// a versions table's paths come after it.
		before := text[max(0, m[0]-600):m[0]]
		if open := strings.LastIndex(before, "{"); open >= 0 {
			if ps := pathOption.FindAllStringSubmatch(before[open:], -1); len(ps) > 0 {
				folder = ps[len(ps)-1][1]
			}
		}
		add(folder, text[m[2]:m[3]])
	}
	if len(routes) == 0 {
		add("docs", "docs") // the classic preset's defaults
	}
	return routes
}

// docusaurusExclude are the folders of the site at dir that are no current docs: other
// versions' copies, their sidebars, translations, the React pages and static files.
func docusaurusExclude(dir string) []string {
	var out []string
	for _, g := range []string{"*versioned_docs/**", "*versioned_sidebars/**", "i18n/**", "src/**", "static/**", "build/**", ".docusaurus/**"} {
		out = append(out, path.Join(dir, g))
	}
	return out
}
