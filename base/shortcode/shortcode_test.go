package shortcode

import "testing"

func TestOpensRawBlock(t *testing.T) {
	tests := []struct {
		line string
		want string // "" for no raw block
	}{
		{`{{< code-toggle file=hugo >}}`, "code-toggle"},
		{`{{<highlight go "linenos=table">}}  `, "highlight"},
		{`{{< figure caption="a } b" >}}`, "figure"},
		{`{{% details %}}`, ""},                   // {{% %}}: inner text is Markdown
		{`{{< notice warning >}}`, ""},            // a callout
		{`{{< tip >}}`, ""},                       // a callout
		{`{{< relref "install" >}}`, ""},          // a link
		{`{{< /code-toggle >}}`, ""},              // a closing tag
		{`See {{< code >}}`, ""},                  // not the whole line
		{`{{< a >}}{{< /a >}}`, ""},               // two tags
		{`{{</* code-toggle */>}}`, ""},           // Hugo's escape for showing one
		{`{{< code-toggle >}} and {{< x >}}`, ""}, // two tags
		{`plain text`, ""},
	}
	for _, tt := range tests {
		got, ok := OpensRawBlock(tt.line)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("OpensRawBlock(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

func TestTagRefAndCallout(t *testing.T) {
	tests := []struct {
		line            string
		ref             string
		refAt           int
		callout         string
		wantRef, closes bool
	}{
		{line: `x {{< relref "docs/a.md#b" >}}`, ref: "docs/a.md#b", refAt: 14, wantRef: true},
		{line: `{{% ref path="/docs" %}}`, ref: "/docs", refAt: 14, wantRef: true},
		{line: `{{< ref bare >}}`, ref: "bare", refAt: 8, wantRef: true},
		{line: `{{< ref >}}`},
		{line: `{{< notice tip >}}`, callout: "tip"},
		{line: `{{< notice "Warning" >}}`, callout: "warning"},
		{line: `{{< notice odd >}}`, callout: "note"},
		{line: `{{% note %}}`, callout: "note"},
		{line: `{{< / notice >}}`, closes: true},
		{line: `{{< figure src="a.png" >}}`},
	}
	for _, tt := range tests {
		tags := Tags(tt.line)
		if len(tags) != 1 {
			t.Fatalf("Tags(%q): %d tags, want 1", tt.line, len(tags))
		}
		tag := tags[0]
		ref, at, ok := tag.Ref()
		if ok != tt.wantRef || ref != tt.ref || at != tt.refAt {
			t.Errorf("%q: Ref() = %q, %d, %v; want %q, %d, %v", tt.line, ref, at, ok, tt.ref, tt.refAt, tt.wantRef)
		}
		if ok && tt.line[at:at+len(ref)] != ref {
			t.Errorf("%q: Ref offset %d does not point at %q", tt.line, at, ref)
		}
		if got := tag.Callout(); got != tt.callout {
			t.Errorf("%q: Callout() = %q, want %q", tt.line, got, tt.callout)
		}
		if tag.Closing != tt.closes {
			t.Errorf("%q: Closing = %v, want %v", tt.line, tag.Closing, tt.closes)
		}
	}
}

// A raw block needs a closing tag below its opening line; Closings answers from one pass a name.
func TestClosingsAfter(t *testing.T) {
	body := "{{< a >}}\nx\n{{< /a >}}\n{{< a >}}\n{{% /b %}}\n{{< /b >}}\ntail"
	c := Closings{}
	tests := []struct {
		from int
		name string
		want bool
	}{
		{10, "a", true}, // after the first opening line
		{len("{{< a >}}\nx\n{{< /a >}}\n{{< a >}}\n"), "a", false}, // the second has none below
		{0, "b", true}, // {{< /b >}}; {{% /b %}} does not close a raw block
		{len(body) - 4, "b", false},
		{0, "c", false},
	}
	for _, tt := range tests {
		if got := c.After(body, tt.from, tt.name); got != tt.want {
			t.Errorf("After(%d, %q) = %v, want %v", tt.from, tt.name, got, tt.want)
		}
	}
	if len(c) != 3 {
		t.Errorf("Closings holds %d names, want one entry a name (3)", len(c))
	}
}

func TestFence(t *testing.T) {
	lines := []struct {
		text string
		code bool
	}{
		{"text", false},
		{"```bash", true},
		{"echo", true},
		{"```bash", true}, // an info string: no closing fence, still code
		{"```", true},     // closes
		{"after", false},
		{"````md", true},
		{"```", true}, // shorter than the opening: code
		{"````", true},
		{"~~~", true},
		{"```", true}, // another character: code
		{"~~~~  ", true},
		{"```x``` inline", false}, // backticks in the info string: inline code
		{"   ```", true},
		{"   ```", true},
		{"done", false},
	}
	var f Fence
	for i, l := range lines {
		if got := f.Line(l.text); got != l.code {
			t.Errorf("line %d %q: code %v, want %v", i+1, l.text, got, l.code)
		}
	}
}
