package deploy

import (
	"bytes"
	"embed"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"
)

//go:embed systemd/docforge-manager.service systemd/docforge-manager.socket launchd/dev.docforge.manager.plist
var units embed.FS

// File is one service definition to install.
type File struct {
	Path    string // absolute
	Content []byte
}

// Plan is what installing the manager service means on one system.
type Plan struct {
	Files  []File
	Enable string // the command that enables it, for the user to run
}

// Params fill the templates.
type Params struct {
	Executable string // absolute path of docforge
	Log        string // launchd's stdout/stderr file
}

// For returns the plan for goos ("linux": systemd user units; "darwin": a launchd agent),
// with files under home.
func For(goos, home string, p Params) (Plan, error) {
	if !filepath.IsAbs(p.Executable) {
		return Plan{}, fmt.Errorf("install: the executable path %q is not absolute", p.Executable)
	}
	// Neither format is escaped by the templates: refuse what would need it rather than
	// write a unit that runs something else.
	if strings.ContainsAny(p.Executable+p.Log, " \t\n\"'&<>%\\$;") {
		return Plan{}, fmt.Errorf("install: the path %q holds a character a unit file would need escaped; install docforge under a plain path", p.Executable)
	}
	switch goos {
	case "linux":
		dir := filepath.Join(home, ".config", "systemd", "user")
		var plan Plan
		for _, name := range []string{"docforge-manager.service", "docforge-manager.socket"} {
			b, err := render("systemd/"+name, p)
			if err != nil {
				return Plan{}, err
			}
			plan.Files = append(plan.Files, File{Path: filepath.Join(dir, name), Content: b})
		}
		plan.Enable = "systemctl --user daemon-reload && systemctl --user enable --now docforge-manager.socket"
		return plan, nil
	case "darwin":
		if p.Log == "" {
			p.Log = filepath.Join(home, "Library", "Logs", "docforge-manager.log")
		}
		b, err := render("launchd/dev.docforge.manager.plist", p)
		if err != nil {
			return Plan{}, err
		}
		path := filepath.Join(home, "Library", "LaunchAgents", "dev.docforge.manager.plist")
		return Plan{Files: []File{{Path: path, Content: b}}, Enable: "launchctl bootstrap gui/$(id -u) " + path}, nil
	}
	return Plan{}, fmt.Errorf("install: no service definition for %s; run 'docforge manager run' under your own supervisor", goos)
}

func render(name string, p Params) ([]byte, error) {
	src, err := units.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("install: %w", err)
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("install: template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("install: template %s: %w", name, err)
	}
	return b.Bytes(), nil
}
