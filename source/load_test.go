package source_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/docforge/docforge/base/graph"
	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/source"
	"github.com/docforge/docforge/source/project"
)

const testDescriptor = `schema_version = 1
[project]
id = "t"
[sources]
content_roots = ["docs"]
exclude = ["docs/skip/**"]
[relations]
allowed = ["depends_on", "relates_to", "tested_by"]
[families.arch]
kinds = ["component"]
[families.req]
kinds = ["requirement"]
`

// writeProject creates a project with the test descriptor and the given docs/ files.
func writeProject(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(testDescriptor), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	for name, content := range files {
		p := filepath.Join(root, "docs", name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func validate(t testing.TB, root string) []problem.Problem {
	t.Helper()
	d, probs, err := project.Load(root)
	if err != nil || d == nil {
		t.Fatalf("load descriptor: %v %v", err, probs)
	}
	got, err := source.Validate(context.Background(), d, "", 0)
	must(t, err)
	return got.Problems
}

func render(ps []problem.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s", p.Location, p.Code))
	}
	return out
}

func node(id, extra string) string {
	return "+++\nid = \"" + id + "\"\nkind = \"component\"\nfamily = \"arch\"\n" + extra + "+++\n# Title of " + id + "\n"
}

func yamlNode(id, extra string) string {
	return "---\nid: " + id + "\nkind: component\nfamily: arch\n" + extra + "---\n# Title of " + id + "\n"
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // "path:line:col code", sorted as Validate sorts
	}{
		{"a_valid_project_has_no_problems",
			map[string]string{"a.md": node("a", "[relations]\ndepends_on = [\"b\"]\n"), "b.md": node("b", "")}, nil},
		{"duplicate_id_reports_both_files",
			map[string]string{"a.md": node("x", ""), "b.md": node("x", "")},
			[]string{"docs/a.md:1:1 duplicate_id", "docs/b.md:1:1 duplicate_id"}},
		{"undeclared_relation_points_at_its_key",
			map[string]string{"a.md": node("a", "[relations]\nowns = [\"a\"]\n")},
			[]string{"docs/a.md:6:1 undeclared_relation"}},
		{"dangling_target_points_at_the_target_string",
			map[string]string{"a.md": node("a", "[relations]\ndepends_on = [\"a\", \"zz\"]\n")},
			[]string{"docs/a.md:6:20 dangling_target"}},
		{"dangling_code_reference_is_reported_like_any_other",
			map[string]string{"a.md": node("a", "[relations]\ndepends_on = [\"go:example.com/x.F\"]\n")},
			[]string{"docs/a.md:6:15 dangling_target"}},
		{"wiki_reference_to_a_missing_node_is_dangling",
			map[string]string{"a.md": node("a", "") + "See [[nope]] and `[[in.code]]`.\n"},
			[]string{"docs/a.md:7:5 dangling_target"}},
		{"unknown_family_points_at_its_value",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"archi\"\n+++\n"},
			[]string{"docs/a.md:4:10 unknown_family"}},
		{"unknown_kind_points_at_its_value",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"widget\"\nfamily = \"arch\"\n+++\n"},
			[]string{"docs/a.md:3:8 unknown_kind"}},
		{"malformed_front_matter_has_the_toml_position",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = = 1\n+++\n"},
			[]string{"docs/a.md:3:8 malformed_front_matter"}},
		{"unclosed_front_matter_is_malformed",
			map[string]string{"a.md": "+++\nid = \"a\"\n"},
			[]string{"docs/a.md:1:1 malformed_front_matter"}},
		{"markdown_without_front_matter",
			map[string]string{"a.md": "# hello\n"},
			[]string{"docs/a.md:1:1 missing_front_matter"}},
		{"missing_id",
			map[string]string{"a.md": "+++\nkind = \"component\"\nfamily = \"arch\"\n+++\n"},
			[]string{"docs/a.md:1:1 missing_field"}},
		{"unknown_field_points_at_the_key",
			map[string]string{"a.md": node("a", "colour = \"red\"\n")},
			[]string{"docs/a.md:5:1 unknown_field"}},
		{"a_dot_dot_segment_in_an_id_is_refused",
			map[string]string{"a.md": "+++\nid = \"a/../b\"\nkind = \"component\"\nfamily = \"arch\"\n+++\n"},
			[]string{"docs/a.md:2:6 invalid_id"}},
		{"an_escape_sequence_in_a_title_is_refused",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"\\u001b[2K\\rcs-fake ready\"\n+++\n"},
			[]string{"docs/a.md:5:9 invalid_field"}},
		{"a_line_separator_in_a_title_is_refused",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"one\u2028two\"\n+++\n"},
			[]string{"docs/a.md:5:9 invalid_field"}},
		{"a_bidi_override_in_a_title_is_refused",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"pay\u202emoc.exe\"\n+++\n"},
			[]string{"docs/a.md:5:9 invalid_field"}},
		{"a_hangul_filler_title_is_refused",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\ntitle = \"\u3164\"\n+++\n"},
			[]string{"docs/a.md:5:9 invalid_field"}},
		{"a_nul_in_a_status_is_refused",
			map[string]string{"a.md": "+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\nstatus = \"ok\\u0000\"\n+++\n"},
			[]string{"docs/a.md:5:10 invalid_field"}},
		{"wrong_field_type_points_at_the_value",
			map[string]string{"a.md": node("a", "tags = \"x\"\n")},
			[]string{"docs/a.md:5:8 invalid_field"}},
		{"wrong_field_type_in_a_record_points_at_its_value",
			map[string]string{"r.toml": "[[node]]\nid = \"r1\"\nkind = \"requirement\"\nfamily = \"req\"\n\n[[node]]\nid = \"r2\"\nkind = \"requirement\"\nfamily = \"req\"\ntitle = 5\n"},
			[]string{"docs/r.toml:10:9 invalid_field"}},
		{"not_utf8_points_at_the_bad_byte",
			map[string]string{"a.md": node("a", "") + "ab\xff\n"},
			[]string{"docs/a.md:7:3 not_utf8"}},
		{"reserved_code_prefix_is_an_invalid_id",
			map[string]string{"a.md": node("go:x", "")},
			[]string{"docs/a.md:2:6 invalid_id"}},
		{"record_file_problems_point_into_the_right_record",
			map[string]string{"r.toml": "[[node]]\nid = \"r1\"\nkind = \"requirement\"\nfamily = \"req\"\n\n[[node]]\nid = \"r2\"\nkind = \"component\"\nfamily = \"req\"\n[node.relations]\ntested_by = [\"r1\", \"ghost\"]\n"},
			[]string{"docs/r.toml:8:8 unknown_kind", "docs/r.toml:11:20 dangling_target"}},
		// Another tool's TOML (a linter's, a site's) is skipped with a warning, not read as records.
		{"toml_without_node_tables_is_skipped_with_a_warning",
			map[string]string{"r.toml": "title = \"x\"\n[rule.exported]\nseverity = 1\n"},
			[]string{"docs/r.toml:1:1 no_records"}},
		{"foreign_toml_that_does_not_parse_is_skipped_too",
			map[string]string{"r.toml": "this is = = not toml\n"},
			[]string{"docs/r.toml:1:1 no_records"}},
		{"record_file_with_a_stray_top_level_key_is_an_error",
			map[string]string{"r.toml": "title = \"x\"\n[[node]]\nid = \"r1\"\nkind = \"requirement\"\nfamily = \"req\"\n"},
			[]string{"docs/r.toml:1:1 unknown_field"}},
		{"malformed_record_file_is_an_error",
			map[string]string{"r.toml": "[[node]]\nid = = \"r1\"\n"},
			[]string{"docs/r.toml:2:6 malformed_toml"}},
		{"yaml_front_matter_is_a_node_like_toml",
			map[string]string{"a.md": yamlNode("a", "tags: [x, y]\nrelations:\n  depends_on:\n    - b\n"), "b.md": node("b", "")}, nil},
		{"yaml_dangling_target_points_at_the_target",
			map[string]string{"a.md": yamlNode("a", "relations:\n  depends_on: [a, zz]\n")},
			[]string{"docs/a.md:6:19 dangling_target"}},
		{"yaml_unknown_kind_points_at_its_value",
			map[string]string{"a.md": "---\nid: a\nkind: widget\nfamily: arch\n---\n"},
			[]string{"docs/a.md:3:7 unknown_kind"}},
		{"yaml_unknown_field_points_at_the_key",
			map[string]string{"a.md": yamlNode("a", "colour: red\n")},
			[]string{"docs/a.md:5:1 unknown_field"}},
		{"a_slug_without_local_ids_is_no_field",
			map[string]string{"a.md": yamlNode("a", "slug: /a\n"), "b.md": node("b", "slug = \"/b\"\n"),
				"r.toml": "[[node]]\nid = \"r1\"\nkind = \"requirement\"\nfamily = \"req\"\nslug = \"x\"\n"},
			[]string{"docs/a.md:5:1 unknown_field", "docs/b.md:5:1 unknown_field", "docs/r.toml:5:1 unknown_field"}},
		{"yaml_body_is_refused",
			map[string]string{"a.md": yamlNode("a", "body: text\n")},
			[]string{"docs/a.md:5:1 unknown_field"}},
		{"yaml_wrong_field_type_names_its_line",
			map[string]string{"a.md": yamlNode("a", "tags:\n  nested: 1\n")},
			[]string{"docs/a.md:6:1 invalid_field"}},
		{"broken_yaml_names_its_line",
			map[string]string{"a.md": "---\nid: a\nkind: component\nfamily: [arch\n---\n"},
			[]string{"docs/a.md:4:1 malformed_front_matter"}},
		{"yaml_that_is_not_a_mapping_is_malformed",
			map[string]string{"a.md": "---\n- a\n- b\n---\n"},
			[]string{"docs/a.md:2:1 malformed_front_matter"}},
		{"unclosed_yaml_front_matter_is_malformed",
			map[string]string{"a.md": "---\nid: a\n"},
			[]string{"docs/a.md:1:1 malformed_front_matter"}},
		{"excluded_files_are_not_sources",
			map[string]string{"skip/bad.md": "garbage", "a.md": node("a", "")}, nil},
		{"hidden_files_are_not_sources",
			map[string]string{".swap.md": "garbage", "a.md": node("a", "")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(validate(t, writeProject(t, tt.files)))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// withCodeRoot makes the test project read a code root, code/, as well.
func withCodeRoot(t *testing.T, root string) {
	t.Helper()
	desc := strings.Replace(testDescriptor, `content_roots = ["docs"]`, `content_roots = ["docs"]`+"\ncode_roots = [\"code\"]", 1)
	desc = strings.Replace(desc, `allowed = [`, `allowed = ["calls", "contains", "defines", "imports", `, 1)
	must(t, os.WriteFile(filepath.Join(root, project.FileName), []byte(desc), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "code"), 0o755))
}

// A file over the size limit is left out with a warning that gives its own size, not how far
// the bounded read went, whatever its format; the other sources still count.
func TestFileTooLargeIsReportedWithoutReadingItAll(t *testing.T) {
	big := strings.Repeat("x", 5_400_000)
	root := writeProject(t, map[string]string{"big.md": node("big", "") + big, "a.md": node("a", "")})
	withCodeRoot(t, root)
	must(t, os.WriteFile(filepath.Join(root, "code", "big.py"), []byte("x = 1\n"+big), 0o644))
	got := validate(t, root)
	want := []string{"docs/big.md file_too_large", "code/big.py file_too_large"}
	if r := render(got); len(r) != 2 || !slices.Contains(r, want[0]) || !slices.Contains(r, want[1]) {
		t.Fatalf("got %q, want %q", r, want)
	}
	for _, p := range got {
		size := len(node("big", "")) + len(big)
		if p.Location.Path == "code/big.py" {
			size = len("x = 1\n") + len(big)
		}
		if p.Severity != problem.SeverityWarning || !strings.Contains(p.Message, fmt.Sprintf("file is %d bytes; the limit is %d", size, 4<<20)) {
			t.Errorf("%s: %s %q", p.Location.Path, p.Severity, p.Message)
		}
	}
}

// A link inside the root is followed; one that leaves it, or that names a FIFO, is skipped
// with a warning and holds nothing back.
func TestSymlinkInsideRootIsFollowedAndOutsideIsSkipped(t *testing.T) {
	root := writeProject(t, map[string]string{"a.md": node("a", "")})
	outside := filepath.Join(t.TempDir(), "o.md")
	must(t, os.WriteFile(outside, []byte(node("o", "")), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "docs", "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "docs", "sub", "b.md"), []byte(node("b", "")), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "docs", "out.md")))
	must(t, os.Symlink(filepath.Join(root, "docs", "sub"), filepath.Join(root, "docs", "loop")))
	fifo := filepath.Join(root, "docs", "sub", "pipe")
	must(t, unix.Mkfifo(fifo, 0o600))
	must(t, os.Symlink(fifo, filepath.Join(root, "docs", "pipe.md")))
	probs := validate(t, root)
	got := render(probs)
	// docs/loop is the same directory as docs/sub: visited once, so b is not a duplicate.
	want := []string{"docs/out.md path_escape", "docs/pipe.md path_escape"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q want %q", got, want)
	}
	for _, p := range probs {
		// A warning: no error, so the index publishes.
		if p.Severity != problem.SeverityWarning || !strings.Contains(p.Message, "skipped and never read") {
			t.Errorf("%s: %s %q", p.Location.Path, p.Severity, p.Message)
		}
	}
}

// TestBrokenExamples checks that validation reports exactly the problems planted in each
// broken copy of the example project, at their positions.
func TestBrokenExamples(t *testing.T) {
	dirs, err := filepath.Glob("../examples/testdata/broken-*")
	must(t, err)
	if len(dirs) < 3 {
		t.Fatalf("found %d broken examples, want at least 3", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, "expected-problems.txt"))
			must(t, err)
			defer f.Close()
			var want []string
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if line := strings.TrimSpace(sc.Text()); line != "" {
					want = append(want, line)
				}
			}
			got := render(validate(t, dir))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("problems:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestExampleProjectIsValid(t *testing.T) {
	if got := validate(t, "../examples/courier"); len(got) != 0 {
		t.Fatalf("example has problems: %q", render(got))
	}
}

// YAML front matter yields the same node as the TOML spelling of the same fields.
func TestYAMLAndTOMLFrontMatterAgree(t *testing.T) {
	d, probs := project.Parse([]byte(testDescriptor), writeProject(t, nil))
	if d == nil {
		t.Fatalf("descriptor: %v", probs)
	}
	body := "# Store\n\nSee [[b]].\n"
	asTOML := source.Parse(d, "docs/a.md", source.Markdown, []byte("+++\nid = \"a\"\nkind = \"component\"\nfamily = \"arch\"\n"+
		"status = \"draft\"\ntags = [\"x\", \"y\"]\n[relations]\ndepends_on = [\"b\"]\n+++\n"+body))
	asYAML := source.Parse(d, "docs/a.md", source.Markdown, []byte("---\nid: a\nkind: component\nfamily: arch\n"+
		"status: draft\ntags:\n  - x\n  - y\nrelations:\n  depends_on: [b]\n---\n"+body))
	if len(asTOML.Problems)+len(asYAML.Problems) != 0 || len(asTOML.Nodes) != 1 || len(asYAML.Nodes) != 1 {
		t.Fatalf("problems: toml %v, yaml %v", asTOML.Problems, asYAML.Problems)
	}
	tn, yn := asTOML.Nodes[0], asYAML.Nodes[0]
	if tn.Record.Hash() != yn.Record.Hash() || tn.Title != "Store" {
		t.Errorf("records differ:\n toml %+v\n yaml %+v", tn.Record, yn.Record)
	}
	rels := func(f []graph.EdgeAt) (out []string) {
		for _, e := range f {
			out = append(out, e.Relation+">"+e.Target)
		}
		return out
	}
	if got, want := rels(asYAML.Edges), rels(asTOML.Edges); strings.Join(got, ",") != strings.Join(want, ",") || len(got) < 2 {
		t.Errorf("edges: yaml %v, toml %v", got, want)
	}
}

// A file name that is not UTF-8 is left out with a warning quoting it (two such names would
// read as one ID); a code file whose content is not UTF-8 is parsed as it is and warned of as
// not_utf8 at its first invalid byte, not as a syntax error.
func TestNamesAndCodeThatAreNotUTF8(t *testing.T) {
	root := writeProject(t, map[string]string{"a.md": node("a", "")})
	withCodeRoot(t, root)
	for name, text := range map[string]string{"caf\xe9.py": "x = 1\n", "caf\xe8.py": "y = 2\n", "bad.js": "const a = 1;\nconst b = \"\xff\xfe\";\n", "good.py": "z = 3\n"} {
		must(t, os.WriteFile(filepath.Join(root, "code", name), []byte(text), 0o644))
	}
	var got []string
	for _, p := range validate(t, root) {
		got = append(got, fmt.Sprintf("%s %s %s %s", p.Location, p.Code, p.Severity, p.Message))
	}
	slices.Sort(got)
	want := []string{
		`code/bad.js:2:12 not_utf8 warning file is not valid UTF-8; what the parser read of it is indexed`,
		`code/caf` + "\uFFFD" + `.py not_utf8 warning the name "caf\xe8.py" is not valid UTF-8, so it is left out with all it holds; rename it`,
		`code/caf` + "\uFFFD" + `.py not_utf8 warning the name "caf\xe9.py" is not valid UTF-8, so it is left out with all it holds; rename it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
