package index

import "testing"

// A declaration's fenced examples stay out of its full text; a document keeps its code.
func TestIndexedBody(t *testing.T) {
	for _, c := range []struct{ name, id, body, want string }{
		{"rust doc with an example", "rs:src/arg.rs/Arg.required", "Sets the argument required.\n\n```rust\nlet m = Command::new(\"prog\");\n```\nDefaults to false.\n",
			"Sets the argument required.\n\nDefaults to false.\n"},
		{"no example", "rs:src/arg.rs/Arg", "An argument.\n", "An argument.\n"},
		{"an unclosed fence hides the rest", "ts:src/a.ts/f", "Does f.\n```ts\nf()\n", "Does f.\n"},
		{"a document keeps its code", "guide", "Run:\n```sh\nmake test\n```\n", "Run:\n```sh\nmake test\n```\n"},
	} {
		if got := indexedBody(c.id, c.body); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
