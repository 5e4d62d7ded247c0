package main

import "syscall"

// maxrssBytes converts ru_maxrss, which Linux reports in KiB.
func maxrssBytes(ru *syscall.Rusage) int64 { return ru.Maxrss * 1024 }
