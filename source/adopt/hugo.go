package adopt

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// hugoConfig is what a Hugo site's configuration says about where its pages live: the
// contentDir, each language's contentDir, and module mounts whose target is content.
type hugoConfig struct {
	ContentDir string                 `toml:"contentDir" yaml:"contentDir"`
	Languages  map[string]hugoLangDir `toml:"languages" yaml:"languages"`
	Module     struct {
		Mounts []struct {
			Source string `toml:"source" yaml:"source"`
			Target string `toml:"target" yaml:"target"`
		} `toml:"mounts" yaml:"mounts"`
	} `toml:"module" yaml:"module"`
}

type hugoLangDir struct {
	ContentDir string `toml:"contentDir" yaml:"contentDir"`
}

// hugoConfigFiles are the site configuration files Hugo reads, in its order of preference.
var hugoConfigFiles = []string{"hugo.toml", "hugo.yaml", "hugo.yml", "config.toml", "config.yaml", "config.yml",
	"config/_default/hugo.toml", "config/_default/config.toml", "config/_default/hugo.yaml", "config/_default/config.yaml"}

// hugoContentDirs returns the project-relative folders a Hugo site takes pages from: every
// configured content folder inside the site, or content when none is configured. A file
// that cannot be read or parsed counts as none: Hugo's default is the best guess left.
func hugoContentDirs(root string) []string {
	var dirs []string
	add := func(dir string) {
		dir = path.Clean(filepath.ToSlash(dir))
		if dir != "." && !strings.HasPrefix(dir, "../") && dir != ".." && !path.IsAbs(dir) && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, name := range hugoConfigFiles {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue
		}
		var c hugoConfig
		if strings.HasSuffix(name, ".toml") {
			err = toml.Unmarshal(data, &c)
		} else {
			err = yaml.Unmarshal(data, &c)
		}
		if err != nil {
			continue
		}
		if c.ContentDir != "" {
			add(c.ContentDir)
		}
		for _, lang := range slices.Sorted(maps.Keys(c.Languages)) {
			if d := c.Languages[lang].ContentDir; d != "" {
				add(d)
			}
		}
		for _, m := range c.Module.Mounts {
			if m.Target == "content" || strings.HasPrefix(m.Target, "content/") {
				add(m.Source)
			}
		}
		break // Hugo reads the first configuration file it finds
	}
	if len(dirs) == 0 {
		dirs = []string{"content"}
	}
	return dirs
}
