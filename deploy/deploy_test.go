package deploy

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

func TestPlans(t *testing.T) {
	cases := []struct {
		goos, exe string
		files     []string
		enable    string
		err       string
	}{
		{"linux", "/opt/df/docforge", []string{"/home/u/.config/systemd/user/docforge-manager.service", "/home/u/.config/systemd/user/docforge-manager.socket"}, "systemctl --user", ""},
		{"darwin", "/opt/df/docforge", []string{"/home/u/Library/LaunchAgents/dev.docforge.manager.plist"}, "launchctl bootstrap", ""},
		{"windows", "/opt/df/docforge", nil, "", "no service definition for windows"},
		{"linux", "docforge", nil, "", "not absolute"},
		{"linux", "/opt/my tools/docforge", nil, "", "escaped"},
		{"darwin", "/opt/a&b/docforge", nil, "", "escaped"},
	}
	for _, c := range cases {
		plan, err := For(c.goos, "/home/u", Params{Executable: c.exe})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: %v, want %q", c.goos, c.exe, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.goos, err)
		}
		if len(plan.Files) != len(c.files) || !strings.HasPrefix(plan.Enable, c.enable) {
			t.Fatalf("%s: %+v", c.goos, plan)
		}
		for i, f := range plan.Files {
			if f.Path != c.files[i] || !bytes.Contains(f.Content, []byte(c.exe)) && !strings.HasSuffix(f.Path, ".socket") || bytes.Contains(f.Content, []byte("{{")) {
				t.Errorf("%s file %d: %s\n%s", c.goos, i, f.Path, f.Content)
			}
			if strings.HasSuffix(f.Path, ".plist") {
				dec := xml.NewDecoder(bytes.NewReader(f.Content))
				dec.Strict = true
				for {
					if _, err := dec.Token(); err == io.EOF {
						break
					} else if err != nil {
						t.Errorf("plist is not well-formed XML: %v", err)
						break
					}
				}
			}
		}
	}
}
