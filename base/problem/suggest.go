package problem

import (
	"fmt"
	"slices"
	"strings"
)

// Suggest is " (did you mean X?)" naming the candidate closest to word, when one is close
// enough to be a slip (an edit distance of at most a third of its length, a swap of two
// neighbours counting once), else "". Ties go to the first candidate in sorted order.
func Suggest(word string, candidates []string) string {
	sorted := slices.Sorted(slices.Values(candidates))
	best, bestDist := "", len(word)/3+1
	for _, c := range sorted {
		if d := editDistance(strings.ToLower(word), strings.ToLower(c)); d < bestDist && c != word {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the edit distance between a and b in bytes, counting a swap of two
// neighbours as one edit (the commonest slip: fnuc for func).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
