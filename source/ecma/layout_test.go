package ecma

import (
	"encoding/json"
	"slices"
	"testing"
)

// tsconfig.json is JSON with comments and trailing commas; its paths map an alias to the
// project's folders, relative to baseUrl, for the files under the folder it is in.
func TestTSConfigPaths(t *testing.T) {
	files := map[string]string{
		"app/tsconfig.json": `{
  // Aliases of the app.
  "compilerOptions": {
    "baseUrl": "./src", /* relative to this folder */
    "paths": {
      "@lib/*": ["lib/*", "vendor-lib/*",],
      "config": ["settings/index.ts"],
      "*": ["./*", "./node_modules/*"],
    },
  },
}`,
	}
	files["pkgs/core/package.json"] = `{"name": "@w/core"}`
	scripts := []string{"app/src/lib/store.ts", "app/src/settings/index.ts", "app/src/main.ts", "other/main.ts", "pkgs/core/src/index.ts"}
	l := NewLayout([]string{"app/tsconfig.json", "pkgs/core/package.json"}, scripts, func(rel string) []byte { return []byte(files[rel]) })
	for _, c := range []struct {
		rel, spec string
		want      []string
	}{
		{"app/src/main.ts", "@lib/store", []string{"app/src/lib/store.ts"}},
		{"app/src/main.ts", "config", []string{"app/src/settings/index.ts"}},
		{"other/main.ts", "@lib/store", nil}, // outside the tsconfig's folder
		{"app/src/main.ts", "react", nil},
		// "*" maps every bare name; with nothing there, a workspace package still resolves.
		{"app/src/main.ts", "@w/core", []string{"pkgs/core/src/index.ts"}},
	} {
		if got := l.Module(c.rel, c.spec); !slices.Equal(got, c.want) {
			t.Errorf("Module(%s, %s) = %v, want %v", c.rel, c.spec, got, c.want)
		}
	}
	var v any
	if err := json.Unmarshal(plainJSON([]byte(`{"a": "x // not a comment, ]", /* c */ "b": [1, 2,],}`)), &v); err != nil {
		t.Errorf("plainJSON: %v", err)
	}
}
