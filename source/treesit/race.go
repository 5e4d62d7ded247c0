//go:build race

package treesit

// walkScale stretches the walks' time bound: the race detector makes Go code (the walks, not
// the parser's C) several times slower, and a test must read the files a release reads.
const walkScale = 10
