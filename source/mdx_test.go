package source

import (
	"strings"
	"testing"
)

func TestMDXText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"module lines", "import Tabs from '@theme/Tabs';\nexport const x = 1;\n# Title\n", "                               \n                   \n# Title\n"},
		{"an import over lines", "import {\n  A,\n} from 'a';\nText.\n", "        \n    \n           \nText.\n"},
		{"components around Markdown", "<Tabs>\n<TabItem value=\"go\" label=\"Go\">\nSee [the API](api.md).\n</TabItem>\n</Tabs>\n", "\n\nSee [the API](api.md).\n\n\n"},
		{"self-closing and fragments", "Before <Badge text=\"new\" /> after <>x</>.\n", "Before  after x.\n"},
		{"HTML stays", "A <br/> and <details>.\n", "A <br/> and <details>.\n"},
		{"fenced code stays", "```jsx\nimport X from 'x';\n<Tabs />\n```\n", "```jsx\nimport X from 'x';\n<Tabs />\n```\n"},
		{"prose that starts with the word", "Important: exports are listed below.\n", "Important: exports are listed below.\n"},
	}
	for _, tt := range tests {
		if got := mdxText(tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if strings.Count(mdxText(tt.in), "\n") != strings.Count(tt.in, "\n") {
			t.Errorf("%s: lines moved", tt.name)
		}
	}
}
