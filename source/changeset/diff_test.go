package changeset

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff as Unified writes it to a, checking every context and
// removed line against a and every hunk's counts.
func applyUnified(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	src := splitLines(a)
	lines := splitLines(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no file header: %q", diff)
	}
	var out strings.Builder
	next := 0 // the first line of a not yet copied
	for i := 2; i < len(lines); {
		var aStart, aLen, bStart, bLen int
		if _, err := fmt.Sscanf(hunkHeader(lines[i]), "%d %d %d %d", &aStart, &aLen, &bStart, &bLen); err != nil {
			return "", fmt.Errorf("line %d: not a hunk header %q: %w", i+1, lines[i], err)
		}
		if aLen > 0 {
			aStart-- // 1-based, but the line before an empty range
		}
		if aStart < next || aStart > len(src) {
			return "", fmt.Errorf("hunk at %d overlaps or passes the text", aStart)
		}
		for _, l := range src[next:aStart] {
			out.WriteString(l)
		}
		next = aStart
		i++
		gotA, gotB := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@ ") {
			kind, text := lines[i][0], lines[i][1:]
			i++
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch kind {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					return "", fmt.Errorf("line %d of a is not %q", next+1, text)
				}
				next++
				gotA++
				if kind == ' ' {
					out.WriteString(text)
					gotB++
				}
			case '+':
				out.WriteString(text)
				gotB++
			default:
				return "", fmt.Errorf("a hunk line starts with %q", kind)
			}
		}
		if gotA != aLen || gotB != bLen {
			return "", fmt.Errorf("hunk counts -%d +%d, lines -%d +%d", aLen, bLen, gotA, gotB)
		}
	}
	for _, l := range src[next:] {
		out.WriteString(l)
	}
	return out.String(), nil
}

// hunkHeader turns "@@ -3,2 +4 @@" into "3 2 4 1".
func hunkHeader(line string) string {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" {
		return ""
	}
	part := func(s string) string {
		start, n, ok := strings.Cut(s[1:], ",")
		if !ok {
			n = "1"
		}
		return start + " " + n
	}
	return part(f[1]) + " " + part(f[2])
}

// randomText is lines drawn from a few, so that texts share many lines, with or without a
// final newline.
func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(30) {
		b.WriteString("line " + strconv.Itoa(r.IntN(6)) + "\n")
	}
	s := b.String()
	if s != "" && r.IntN(4) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// The diff of any two texts, applied to the first, gives the second: hunks, context,
// counts and missing final newlines included.
func TestUnifiedAppliesToTheNewText(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		a := randomText(r)
		b := a
		switch i % 3 {
		case 0:
			b = randomText(r)
		default: // a few edits of a: the common case, long shared runs
			lines := splitLines(a)
			for range 1 + r.IntN(3) {
				k := r.IntN(len(lines) + 1)
				switch r.IntN(3) {
				case 0:
					lines = append(lines[:k], append([]string{"new " + strconv.Itoa(i) + "\n"}, lines[k:]...)...)
				case 1:
					if k < len(lines) {
						lines = append(lines[:k], lines[k+1:]...)
					}
				default:
					if k < len(lines) {
						lines[k] = "changed\n"
					}
				}
			}
			b = strings.Join(lines, "")
		}
		checkUnified(t, a, b)
	}
}

func checkUnified(t *testing.T, a, b string) {
	t.Helper()
	d := Unified("a", "b", a, b)
	if (d == "") != (a == b) {
		t.Fatalf("diff of %q and %q is %q", a, b, d)
	}
	got, err := applyUnified(a, d)
	if err != nil {
		t.Fatalf("%v\na: %q\nb: %q\ndiff:\n%s", err, a, b, d)
	}
	if got != b {
		t.Fatalf("the diff applied gives %q, want %q\ndiff:\n%s", got, b, d)
	}
}

// FuzzUnifiedAppliesToTheNewText is the same property for any two texts ('go test -fuzz
// FuzzUnifiedAppliesToTheNewText ./source/changeset' explores further).
func FuzzUnifiedAppliesToTheNewText(f *testing.F) {
	for _, seed := range [][2]string{{"", "a\n"}, {"a\nb\nc\n", "a\nc\n"}, {"x", "x\n"}, {"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n0\n4\n5\n6\n7\n8\n0\n"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkUnified(t, a, b)
	})
}
