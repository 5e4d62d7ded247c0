package manager

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/docforge/docforge/base/problem"
)

// Paths are the files of one user's manager, all in one private directory.
type Paths struct {
	Dir      string // mode 0700, owned by the user
	Socket   string // the manager's gRPC socket, mode 0600
	Lock     string // flock held by the running manager; holds its pid
	Log      string // the manager's log, rotated
	StartLog string // stdout and stderr of the last 'manager start' child, for its errors
	Workers  string // worker sockets
}

// DefaultPaths are under $XDG_RUNTIME_DIR/docforge; when that is unset (MCP hosts often pass
// a child only a few variables), under /run/user/UID if it exists and is this user's, so a
// bridge and a terminal find the same manager; else under the user cache directory (macOS, a
// bare container).
func DefaultPaths() (Paths, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		run := filepath.Join("/run/user", strconv.Itoa(os.Getuid()))
		if checkPrivate(run, os.Getuid(), true) == nil {
			base = run
		}
	}
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return Paths{}, problem.Wrap(problem.UnsafeRuntimeDir, err, "no runtime directory: set XDG_RUNTIME_DIR or HOME")
		}
		base = cache
	}
	return PathsIn(filepath.Join(base, "docforge")), nil
}

// PathsIn are the manager's files in dir.
func PathsIn(dir string) Paths {
	return Paths{Dir: dir, Socket: filepath.Join(dir, "manager.sock"), Lock: filepath.Join(dir, "manager.lock"),
		Log: filepath.Join(dir, "manager.log"), StartLog: filepath.Join(dir, "manager.start.log"), Workers: filepath.Join(dir, "workers")}
}

// workerSocket names the socket of one spawn of a worker: unique per spawn, so a new worker
// never races a dying one for its path. Short, because a socket path has ~100 bytes at most.
func (p Paths) workerSocket(key string, seq int) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(p.Workers, hex.EncodeToString(sum[:6])+"-"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(seq)+".sock")
}

// ensureDir creates dir (mode 0700) or checks that it is private to uid.
func ensureDir(dir string, uid int) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return problem.Wrap(problem.UnsafeRuntimeDir, err, "create %s", filepath.Dir(dir))
	}
	if err := os.Mkdir(dir, 0o700); err == nil {
		if err := os.Chmod(dir, 0o700); err != nil { // the umask may have narrowed nothing, but be exact
			return problem.Wrap(problem.UnsafeRuntimeDir, err, "chmod %s", dir)
		}
	} else if !os.IsExist(err) {
		return problem.Wrap(problem.UnsafeRuntimeDir, err, "create %s", dir)
	}
	return checkPrivate(dir, uid, true)
}

// checkPrivate refuses a runtime directory (mode 0700) or socket (mode 0600) that is a
// symlink, of another type, not owned by uid or open to others.
func checkPrivate(path string, uid int, dir bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return problem.Wrap(problem.UnsafeRuntimeDir, err, "stat %s", path)
	}
	want, kind := os.FileMode(0o600), "socket"
	typeOK := st.Mode().Type() == os.ModeSocket
	if dir {
		want, kind, typeOK = 0o700, "directory", st.IsDir()
	}
	if !typeOK {
		return problem.Errorf(problem.UnsafeRuntimeDir, "%s is not a %s (it is %v); remove it", path, kind, st.Mode().Type())
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return problem.Errorf(problem.UnsafeRuntimeDir, "cannot read the owner of %s", path)
	}
	if int(sys.Uid) != uid {
		return problem.Errorf(problem.UnsafeRuntimeDir, "%s is owned by uid %d, not uid %d: it is not yours to trust", path, sys.Uid, uid)
	}
	if st.Mode().Perm() != want {
		return problem.Errorf(problem.UnsafeRuntimeDir, "%s has mode %04o; a manager %s must be %04o (chmod %o %s)", path, st.Mode().Perm(), kind, want, want, path)
	}
	return nil
}

// readPID reads the pid the running manager wrote into its lock file.
func readPID(lock string) int {
	b, err := os.ReadFile(lock)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(string(bytes.TrimSpace(b)))
	return pid
}

// maxSocketPath is the longest socket path every supported system accepts (macOS: 104 bytes
// with the terminating NUL; Linux allows 108).
const maxSocketPath = 103

// checkLengths refuses a runtime directory whose socket paths the kernel would reject, with
// a message that says what to do, rather than a bind error later.
func (p Paths) checkLengths() error {
	longest := len(p.Workers) + len("/0123456789ab-4194304-1000000.sock~") // ~: the name bound before the rename
	if len(p.Socket)+1 > maxSocketPath || longest > maxSocketPath {
		return problem.Errorf(problem.InvalidArgument, "the runtime directory %s is too long for Unix socket paths (at most %d bytes); set XDG_RUNTIME_DIR to a shorter directory", p.Dir, maxSocketPath)
	}
	return nil
}
