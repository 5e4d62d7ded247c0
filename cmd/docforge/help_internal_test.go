package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every command teaches: the top-level help lists it, and its --help prints to stdout a usage
// line, its flags and an example, exiting 0.
func TestEveryCommandTeaches(t *testing.T) {
	for name, cmd := range commands() {
		if !strings.Contains(usage, "\n  "+name+" ") && !strings.Contains(usage, "\n  "+name+"\n") {
			t.Errorf("the top-level help does not list %s", name)
		}
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{name, "--help"}, &out, &errOut)
		help := out.String()
		if code != exitOK || errOut.Len() != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, errOut.String())
		}
		for _, want := range []string{"Usage: docforge " + name + " [flags] " + cmd.args, "\nExample:\n  docforge " + name, "\nFlags:\n", "-project-root"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q:\n%s", name, want, help)
			}
		}
	}
}
