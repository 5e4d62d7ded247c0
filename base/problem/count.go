package problem

import "fmt"

// Count is n with its noun, singular for one: "1 error", "3 errors". Nouns here take a
// plain s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
