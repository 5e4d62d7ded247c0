package main

import "syscall"

// selfPeakRSSMiB is this process's peak resident set (ru_maxrss, which macOS reports in
// bytes).
func selfPeakRSSMiB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / (1 << 20)
}
