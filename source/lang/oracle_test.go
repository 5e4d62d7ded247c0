package lang_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/docforge/docforge/base/fixture"
	"github.com/docforge/docforge/source/code"
	"github.com/docforge/docforge/source/lang"
	"github.com/docforge/docforge/source/treesit"
)

// Oracles: the languages' own compilers read the same files, and what they declare is what
// DocForge declares. gcc lists a C file's function definitions (-aux-info), protoc a .proto
// file's messages, fields, enums, values, services and rpcs (a descriptor set), javac a Java
// file's types and members (-Xprint).

// declared is the qualified names of the declarations of one file DocForge reads, of the
// kinds kept; withBody keeps only declarations with a body.
func declared(t *testing.T, path string, kinds []string, withBody bool) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := lang.ByExtension(path)
	facts, err := lang.Extract(context.Background(), l, src, false, 0, treesit.Bounds{})
	if err != nil || facts.Error != nil {
		t.Fatalf("%s: %v %+v", path, err, facts.Error)
	}
	var out []string
	for _, d := range facts.Decls {
		if slices.Contains(kinds, d.Kind) && (!withBody || d.Implementation != "") {
			out = append(out, d.Qual())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sameNames(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(want)
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n docforge: %v\n compiler: %v", what, got, want)
	}
}

// auxInfo matches a line of gcc's -aux-info: the file, whether it is a definition (F), and
// the declaration, whose function name is the word before its parameter list.
var auxInfo = regexp.MustCompile(`^/\* (.+):\d+:[NO]([FC]) \*/ (.*)$`)

// C: the function definitions gcc reads in the runtime/cgo C files of GOROOT (real code,
// on every machine with Go) are DocForge's functions with a body.
func TestOracleC(t *testing.T) {
	gcc := fixture.NeedCommand(t, "gcc", "gcc")
	cgo := filepath.Join(runtimeGOROOT(t), "src", "runtime", "cgo")
	var files []string
	for _, name := range []string{"gcc_util.c", "gcc_libinit.c", "gcc_linux.c", "gcc_setenv.c", "gcc_context.c",
		"gcc_traceback.c", "gcc_stack_unix.c", "gcc_fatalf.c", "gcc_clearenv.c", "linux_syscall.c", "gcc_mmap.c", "gcc_sigaction.c"} {
		files = append(files, filepath.Join(cgo, name))
	}
	compared := 0
	for _, file := range files {
		aux := filepath.Join(t.TempDir(), "aux.txt")
		cmd := exec.Command(gcc, "-fsyntax-only", "-aux-info", aux, "-I", filepath.Dir(file), "-I", filepath.Join(filepath.Dir(file), "..", "include"), file)
		if _, err := cmd.CombinedOutput(); err != nil {
			t.Logf("gcc does not compile %s on this machine (%v); left out", filepath.Base(file), err)
			continue
		}
		data, err := os.ReadFile(aux)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(file)
		var want []string
		for _, line := range strings.Split(string(data), "\n") {
			m := auxInfo.FindStringSubmatch(line)
			if m == nil || m[2] != "F" {
				continue
			}
			if p, _ := filepath.Abs(m[1]); p != abs {
				continue // a header's
			}
			// The name is the first word before a parameter list that is no keyword: void
			// (*f (void)) (int) is f's.
			for _, w := range calledWord.FindAllStringSubmatch(m[3], -1) {
				if !cKeywords[w[1]] {
					want = append(want, w[1])
					break
				}
			}
		}
		// gcc reads one branch of each #if; DocForge reads every branch, so what it declares
		// beyond gcc must be in a conditional one.
		got := declared(t, file, []string{code.KindFunc}, true)
		src, _ := os.ReadFile(file)
		conditional := conditionalNames(string(src))
		got = slices.DeleteFunc(got, func(name string) bool { return !slices.Contains(want, name) && conditional[name] })
		sameNames(t, filepath.Base(file), got, want)
		compared++
	}
	if compared < 8 {
		t.Errorf("only %d C files compared", compared)
	}
}

var calledWord = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

var cKeywords = map[string]bool{"void": true, "int": true, "char": true, "long": true, "short": true, "unsigned": true, "signed": true,
	"float": true, "double": true, "struct": true, "union": true, "enum": true, "const": true, "volatile": true, "extern": true,
	"static": true, "inline": true, "__attribute__": true, "__extension__": true}

// conditionalNames are the words followed by ( on the lines inside #if, #ifdef and #ifndef
// blocks, which gcc may have left out.
func conditionalNames(src string) map[string]bool {
	out := map[string]bool{}
	depth := 0
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "#if"):
			depth++
		case strings.HasPrefix(l, "#endif") && depth > 0:
			depth--
		case depth > 0:
			for _, w := range calledWord.FindAllStringSubmatch(l, -1) {
				out[w[1]] = true
			}
		}
	}
	return out
}

// runtimeGOROOT is the Go installation the test runs under.
func runtimeGOROOT(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// Protocol Buffers: protoc's descriptors of the project's own .proto files and of the
// oracle fixture (nested messages and enums, oneofs, maps, services) name what DocForge
// declares, kind by kind.
func TestOracleProtobuf(t *testing.T) {
	protoc := fixture.NeedCommand(t, "protoc", "protobuf-compiler")
	for _, c := range []struct{ root, file string }{
		{"../../proto", "docforge/v2/worker.proto"},
		{"../../proto", "docforge/v2/manager.proto"},
		{"testdata/oracle", "catalog.proto"},
	} {
		out := filepath.Join(t.TempDir(), "set.pb")
		if msg, err := exec.Command(protoc, "--proto_path="+c.root, "--descriptor_set_out="+out, c.file).CombinedOutput(); err != nil {
			t.Fatalf("protoc %s: %v\n%s", c.file, err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var set descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(data, &set); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		var message func(prefix string, m *descriptorpb.DescriptorProto)
		enum := func(prefix string, e *descriptorpb.EnumDescriptorProto) {
			q := prefix + e.GetName()
			want[code.KindEnum] = append(want[code.KindEnum], q)
			for _, v := range e.GetValue() {
				want[code.KindConst] = append(want[code.KindConst], q+"."+v.GetName())
			}
		}
		message = func(prefix string, m *descriptorpb.DescriptorProto) {
			if m.GetOptions().GetMapEntry() {
				return // the entry type protoc makes of a map field
			}
			q := prefix + m.GetName()
			want[code.KindMessage] = append(want[code.KindMessage], q)
			for _, f := range m.GetField() {
				want[code.KindField] = append(want[code.KindField], q+"."+f.GetName())
			}
			for _, n := range m.GetNestedType() {
				message(q+".", n)
			}
			for _, e := range m.GetEnumType() {
				enum(q+".", e)
			}
		}
		fd := set.GetFile()[len(set.GetFile())-1]
		for _, m := range fd.GetMessageType() {
			message("", m)
		}
		for _, e := range fd.GetEnumType() {
			enum("", e)
		}
		for _, s := range fd.GetService() {
			want[code.KindService] = append(want[code.KindService], s.GetName())
			for _, m := range s.GetMethod() {
				want[code.KindRPC] = append(want[code.KindRPC], s.GetName()+"."+m.GetName())
			}
		}
		if len(want[code.KindMessage]) == 0 {
			t.Fatalf("%s: protoc read no message", c.file)
		}
		for _, kind := range []string{code.KindMessage, code.KindField, code.KindEnum, code.KindConst, code.KindService, code.KindRPC} {
			sameNames(t, c.file+" "+kind, declared(t, filepath.Join(c.root, c.file), []string{kind}, false), want[kind])
		}
	}
}

// Java: the JDK's own parser (through the compiler tree API, testdata/oracle/java/
// Declarations.java run as a source-file program) reads the Java fixtures' types and members
// with their kinds as DocForge does: nested types, enum constants, record components and
// compact constructors, interface constants, fields declared together.
func TestOracleJava(t *testing.T) {
	java := fixture.NeedCommand(t, "java", "default-jdk-headless")
	fixture.NeedCommand(t, "javac", "default-jdk-headless") // the compiler the program runs
	files := []string{"testdata/oracle/java/Inventory.java", "testdata/java/src/main/java/com/example/JsonPointer.java"}
	out, err := exec.Command(java, append([]string{"testdata/oracle/java/Declarations.java"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the JDK's parser: %v\n%s", err, out)
	}
	want := map[string][]string{}
	file := ""
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		kind, name, _ := strings.Cut(line, " ")
		if kind == "file" {
			file = name
			continue
		}
		want[file] = append(want[file], kind+" "+name)
	}
	kinds := []string{code.KindClass, code.KindInterface, code.KindEnum, code.KindRecord, code.KindMethod, code.KindConstructor, code.KindField, code.KindConst}
	for _, f := range files {
		if len(want[f]) == 0 {
			t.Fatalf("the JDK's parser read nothing of %s:\n%s", f, out)
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := lang.Extract(context.Background(), lang.Java(), src, false, 0, treesit.Bounds{})
		if err != nil || facts.Error != nil {
			t.Fatalf("%s: %v %+v", f, err, facts.Error)
		}
		var got []string
		for _, d := range facts.Decls {
			if slices.Contains(kinds, d.Kind) {
				got = append(got, d.Kind+" "+d.Qual())
			}
		}
		slices.Sort(got)
		sameNames(t, f, slices.Compact(got), want[f])
	}
}
