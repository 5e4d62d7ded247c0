package lang

import (
	"slices"
	"testing"

	"github.com/docforge/docforge/source/code"
)

// A use tree is the paths it names, groups and renames expanded.
func TestExpandUse(t *testing.T) {
	for _, tc := range []struct {
		tree string
		want []use
	}{
		{"crate::builder::Arg", []use{{"crate::builder::Arg", ""}}},
		{"std::io::Write as _", []use{{"std::io::Write", "_"}}},
		{"crate::{builder::{Arg, Command as Cmd}, util::{self, escape}}", []use{
			{"crate::builder::Arg", ""}, {"crate::builder::Command", "Cmd"}, {"crate::util::self", ""}, {"crate::util::escape", ""}}},
		{"super::*", []use{{"super::*", ""}}},
	} {
		if got := expandUse(tc.tree); !slices.Equal(got, tc.want) {
			t.Errorf("expandUse(%q) = %v, want %v", tc.tree, got, tc.want)
		}
	}
}

// A module path names the files Rust would read it from, and a Java type's qualified name
// its file under the importing file's source root and its main/test sibling.
func TestModuleFiles(t *testing.T) {
	rust := &code.Facts{}
	for _, tc := range []struct {
		rel, module string
		want        []string
	}{
		{"clap_builder/src/parser/parser.rs", "crate::builder::Arg",
			[]string{"clap_builder/src/builder.rs", "clap_builder/src/builder/mod.rs", "clap_builder/src/builder/arg.rs"}},
		{"clap_builder/src/parser/parser.rs", "crate::util::escape",
			[]string{"clap_builder/src/util.rs", "clap_builder/src/util/mod.rs", "clap_builder/src/util/escape.rs", "clap_builder/src/util/escape/mod.rs"}},
		// A lower-case last segment is a function of the module above or a module itself.
		{"clap_builder/src/parser/parser.rs", "super::matches",
			[]string{"clap_builder/src/parser/lib.rs", "clap_builder/src/parser/main.rs", "clap_builder/src/parser/mod.rs",
				"clap_builder/src/parser/matches.rs", "clap_builder/src/parser/matches/mod.rs"}},
		{"clap_builder/src/output/mod.rs", "self::usage::self",
			[]string{"clap_builder/src/output/usage.rs", "clap_builder/src/output/usage/mod.rs"}},
		{"tests/builder/help.rs", "clap_lex::RawArgs",
			[]string{"clap_lex/src/lib.rs", "clap_lex/src/raw_args.rs", "crates/clap_lex/src/lib.rs", "crates/clap_lex/src/raw_args.rs",
				"clap-lex/src/lib.rs", "clap-lex/src/raw_args.rs", "crates/clap-lex/src/lib.rs", "crates/clap-lex/src/raw_args.rs"}},
		{"src/lib.rs", "std::fmt::Display", nil},
		// A test crate's root is its folder under tests/ (tests/testsuite/main.rs).
		{"clap_mangen/tests/testsuite/roff.rs", "crate::common",
			[]string{"clap_mangen/tests/testsuite/lib.rs", "clap_mangen/tests/testsuite/main.rs", "clap_mangen/tests/testsuite/mod.rs",
				"clap_mangen/tests/testsuite/common.rs", "clap_mangen/tests/testsuite/common/mod.rs"}},
	} {
		if got := rustModule(tc.rel, rust, tc.module); !slices.Equal(got, tc.want) {
			t.Errorf("rustModule(%s, %s) =\n %v\nwant\n %v", tc.rel, tc.module, got, tc.want)
		}
	}
	java := &code.Facts{Package: "com.example.json"}
	got := javaModule("core/src/main/java/com/example/json/Parser.java", java, "com.example.io.NumberInput.Helper")
	want := []string{"core/src/main/java/com/example/io/NumberInput.java", "core/src/test/java/com/example/io/NumberInput.java"}
	if !slices.Equal(got, want) {
		t.Errorf("javaModule = %v, want %v", got, want)
	}
	// A C# type's namespace is its folders, with or without the root namespace.
	cs := &code.Facts{Package: "Shop.Core"}
	got = csharpModule("src/Shop/Core/Cart.cs", cs, "Shop.Util.Helper")
	want = []string{"src/Shop/Util/Helper.cs", "src/Util/Helper.cs"}
	if !slices.Equal(got, want) {
		t.Errorf("csharpModule = %v, want %v", got, want)
	}
	got = csharpModule("src/Core/Cart.cs", cs, "Shop.Util.Helper")
	want = []string{"src/Shop/Util/Helper.cs", "src/Util/Helper.cs"}
	if !slices.Equal(got, want) {
		t.Errorf("csharpModule without the root namespace's folder = %v, want %v", got, want)
	}
	// A Kotlin type's file is named as the type, .kt or a Java one beside it.
	kt := &code.Facts{Package: "shop.core"}
	got = kotlinModule("app/src/main/kotlin/shop/core/Cart.kt", kt, "shop.util.Helper")
	for _, w := range []string{"app/src/main/kotlin/shop/util/Helper.kt", "app/src/test/kotlin/shop/util/Helper.kt", "app/src/main/java/shop/util/Helper.java"} {
		if !slices.Contains(got, w) {
			t.Errorf("kotlinModule = %v, without %s", got, w)
		}
	}
}
