package manager

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether pid is a zombie: the state field of /proc/PID/stat, after the
// parenthesised command name, is Z.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
