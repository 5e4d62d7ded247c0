package source

import "testing"

// Git's rules: names at any depth, anchored paths, folders only, ** across folders,
// negation, the last match deciding, each file's patterns relative to its folder.
func TestGitignoreRules(t *testing.T) {
	root := parseGitignore(".", []byte("# build outputs\n/build\n*.log\n!keep.log\ngen/\ndocs/**/*.tmp\n\\#literal\n"))
	sub := parseGitignore("web", []byte("out\n/local.js\n!*.log\n"))
	ir := (*ignoreRules)(nil).with(root).with(sub)
	for _, c := range []struct {
		rel  string
		dir  bool
		want bool
	}{
		{"build", true, true},
		{"src/build", true, false}, // anchored to the root
		{"a/b/x.log", false, true},
		{"a/keep.log", false, false}, // included again
		{"gen", true, true},
		{"src/gen", true, true},
		{"src/gen", false, false}, // a file named gen: the pattern is for folders
		{"docs/a/b/c.tmp", false, true},
		{"docs/c.tmp", false, true},
		{"#literal", false, true},
		{"web/out", false, true},
		{"web/x/out", true, true},
		{"out", false, false}, // web's patterns hold below web only
		{"web/local.js", false, true},
		{"web/x/local.js", false, false},
		{"web/debug.log", false, false}, // web's !*.log comes last
		{"src/main.go", false, false},
	} {
		if got := ir.ignored(c.rel, c.dir); got != c.want {
			t.Errorf("ignored(%q, dir %v) = %v, want %v", c.rel, c.dir, got, c.want)
		}
	}
	if (*ignoreRules)(nil).ignored("x", false) {
		t.Error("no rules ignore something")
	}
}
