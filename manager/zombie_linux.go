package manager

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether pid has died since signal 0 found it: the state field of
// /proc/PID/stat, after the parenthesised command name, is Z (dead, not reaped) or X, or the
// entry is gone while /proc itself answers (the process was reaped between the two checks;
// read as alive, a worker the manager had just reaped was dialled and failed the call).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		_, serr := os.Stat("/proc/self/stat")
		return serr == nil
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}
