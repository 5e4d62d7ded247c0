package main

// selfPeakRSSMiB is this process's peak resident set since it started (VmHWM). A child
// reports its own: the rusage a parent reads on wait will not do, as on Linux a child started
// by fork and exec keeps its parent's peak in ru_maxrss (the address space it was forked
// from counts), so a small child of a large parent would report the parent's figure.
func selfPeakRSSMiB() float64 { return procStatusMiB("VmHWM:") }
