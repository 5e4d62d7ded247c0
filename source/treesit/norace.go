//go:build !race

package treesit

// walkScale stretches the walks' time bound in a race-detector build (race.go).
const walkScale = 1
