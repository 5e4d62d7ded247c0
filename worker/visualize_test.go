package worker_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index"
	"github.com/docforge/docforge/index/publication"
	"github.com/docforge/docforge/source/adopt"
	"github.com/docforge/docforge/source/project"
	"github.com/docforge/docforge/web"
	"github.com/docforge/docforge/worker"
	"github.com/docforge/docforge/worker/protocol"
)

// longLived is a service like the worker process's: it watches sources and may host viewers.
func longLived(t *testing.T) *worker.Service {
	t.Helper()
	impl, err := index.CurrentImplementation()
	if err != nil {
		t.Fatal(err)
	}
	svc := worker.NewService(impl, true)
	t.Cleanup(func() { svc.Close() })
	return svc
}

func needPage(t *testing.T) {
	t.Helper()
	if !web.PageBuilt(web.Page()) {
		t.Fatal("the graph browser page is not built into this test binary: run 'make ui' (make test does)")
	}
}

func visualize(t *testing.T, svc *worker.Service, b protocol.Binding, args string) (map[string]any, problem.Code) {
	t.Helper()
	res, code, _ := callTool[map[string]any](t, svc, b, "docforge_visualize", []byte(args))
	return res, code
}

// Bad arguments are refused before any viewer starts, each with its code.
func TestVisualizeArguments(t *testing.T) {
	needPage(t)
	root := worker.CopyExample(t, nil)
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	svc := longLived(t)
	for _, tc := range []struct {
		name, args string
		want       problem.Code
	}{
		{"node and query", `{"node_id":"arch.store","query":"store"}`, problem.InvalidArgument},
		{"unknown view", `{"node_id":"arch.store","view":"table"}`, problem.InvalidArgument},
		{"flow without a focus", `{"view":"flow"}`, problem.InvalidArgument},
		{"query too long", `{"query":"` + strings.Repeat("a", 201) + `"}`, problem.InvalidArgument},
		{"unknown field", `{"port":8080}`, problem.InvalidArgument},
		{"unknown node", `{"node_id":"arch.nothing"}`, problem.NodeNotFound},
		{"logic of a document", `{"node_id":"arch.store","view":"logic"}`, problem.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, code := visualize(t, svc, b, tc.args); code != tc.want {
				t.Errorf("code %q, want %q", code, tc.want)
			}
		})
	}
	if st, ok := svc.Viewer(b); ok {
		t.Errorf("a refused request started a viewer: %+v", st)
	}
	// A one-shot process would take the viewer with it when it exits.
	if _, code := visualize(t, newService(t), b, `{}`); code != problem.ViewerUnavailable {
		t.Errorf("one-shot service: %q, want viewer_unavailable", code)
	}
}

// browserScript is the browser test script and the Chromium it drives, failing the test with
// what to install when either is missing.
func browserScript(t *testing.T) (script, chromium string) {
	t.Helper()
	needPage(t)
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	fixture.NeedFile(t, chromium, "Chromium ("+chromium+")", "install Debian's chromium (apt-get install chromium; 'make test' does) or set CHROMIUM")
	fixture.NeedFile(t, filepath.Join("..", "web", "ui", "node_modules", "playwright-core"), "the npm package playwright-core", "run 'make ui', which installs it with npm ci ('make test' does)")
	fixture.NeedCommand(t, "node", "nodejs")
	script, _ = filepath.Abs(filepath.Join("..", "web", "ui", "test", "browser.mjs"))
	return script, chromium
}

// The page in a real browser: Debian's Chromium driven by playwright-core opens the URL
// docforge_visualize returned and works through every view (web/ui/test/browser.mjs says
// what it asserts). Screenshots go to the test's artifact directory (go test -artifacts).
func TestBrowser(t *testing.T) {
	script, chromium := browserScript(t)
	// arch.api confirmed arch.store as it never was: its relations to it are suspect.
	root := worker.CopyExample(t, func(root string) {
		stampFrontMatter(t, filepath.Join(root, "docs", "architecture", "api.md"), `"arch.store" = "sha256:`+strings.Repeat("0", 64)+`"`)
	})
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	svc := longLived(t)
	res, code := visualize(t, svc, b, `{"node_id":"arch.store"}`)
	if code != "" {
		t.Fatalf("visualize: %s", code)
	}
	out := t.ArtifactDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, "check", res["url"].(string), out, "go:example.com/courier/store.Log.State", "arch.api>arch.store")
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser check failed: %v\n%s", err, got)
	}
	t.Logf("browser: %s", got)
	for _, shot := range []string{"nodes-1280x800.png", "flow-1280x800.png", "web-1280x800.png", "logic-1280x800.png", "nodes-1920x1080.png"} {
		if st, err := os.Stat(filepath.Join(out, shot)); err != nil || st.Size() < 10000 {
			t.Errorf("screenshot %s: %v", shot, err)
		}
	}
	// The browser's requests were activity: the viewer is still the current one.
	if st, ok := svc.Viewer(b); !ok || st.SnapshotState != publication.Current || time.Since(st.LastActivity) > time.Minute {
		t.Errorf("viewer after the browser session: %+v %v", st, ok)
	}
}

// overviewRepository is the real repository the overview test adopts: github-mcp-server, a
// Go module the module proxy serves, so that 'go mod download' fetches it wherever the tests
// may reach the package registries.
const overviewRepository = "github.com/github/github-mcp-server@v0.33.0"

// The first screen of a viewer opened on no node draws the project's shape: on a real
// repository adopted as 'docforge init' adopts it, Chromium finds the clusters drawn on
// screen, opens one and explores a node of it.
func TestBrowserOverview(t *testing.T) {
	script, chromium := browserScript(t)
	out, err := exec.Command("go", "mod", "download", "-json", overviewRepository).Output()
	var mod struct{ Dir, Error string }
	if err != nil || json.Unmarshal(out, &mod) != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s (the module proxy must be reachable, as for the project's own modules): %v %s %s", overviewRepository, err, out, mod.Error)
	}
	root := t.TempDir()
	fixture.Copy(t, mod.Dir, root, nil)
	s, err := adopt.Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, project.FileName), []byte(s.Descriptor("gms", "github-mcp-server")), 0o644); err != nil {
		t.Fatal(err)
	}
	b := protocol.Binding{ProjectRoot: root, CapabilityMode: protocol.ModeRead}
	svc := longLived(t)
	res, code := visualize(t, svc, b, `{}`)
	if code != "" {
		t.Fatalf("visualize: %s", code)
	}
	shots := t.ArtifactDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, "overview", res["url"].(string), shots, "20")
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("browser overview failed: %v\n%s", err, got)
	}
	t.Logf("browser: %s", got)
	if st, err := os.Stat(filepath.Join(shots, "overview-1280x800.png")); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot: %v", err)
	}
}

// stampFrontMatter appends a [stamps] table with one stamp line to a Markdown node's TOML
// front matter, as a person would write it.
func stampFrontMatter(t *testing.T, path, line string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	end := strings.Index(text[3:], "\n+++\n") + 3
	if end < 3 {
		t.Fatalf("%s has no TOML front matter", path)
	}
	text = text[:end] + "\n[stamps]\n" + line + text[end:]
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
