package main

import "syscall"

// maxrssBytes converts ru_maxrss, which macOS reports in bytes.
func maxrssBytes(ru *syscall.Rusage) int64 { return ru.Maxrss }
