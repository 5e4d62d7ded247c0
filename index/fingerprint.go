package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/docforge/docforge/base/problem"
	"github.com/docforge/docforge/index/publication"
)

// Implementation is the adapter implementation a process runs: the adapter version and the
// SHA-256 of the executable. A process takes it at start; if the executable on disk later
// differs, the process is running code that no longer matches what is installed.
//
// The executable is opened at start and hashed from that descriptor in the background, so a
// server answers initialize without waiting for the hash, and a file replaced in the meantime
// is still hashed as it was when the process started.
type Implementation struct {
	Adapter    string
	Executable string
	size       int64 // the executable's stat at start, so Check rehashes only after a change
	modNano    int64
	done       chan struct{}
	sha        string
	err        error
}

// Fingerprint is the implementation fingerprint: adapter version plus executable hash (or
// "unavailable" when the executable could not be read).
func (im *Implementation) Fingerprint() string {
	sum, err := im.SHA256()
	if err != nil {
		return im.Adapter + "+unavailable"
	}
	return im.Adapter + "+" + sum
}

// SHA256 returns the executable's hash at start, waiting for it if need be.
func (im *Implementation) SHA256() (string, error) {
	<-im.done
	return im.sha, im.err
}

// CurrentImplementation fingerprints the running executable.
func CurrentImplementation() (*Implementation, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("fingerprint implementation: %w", err)
	}
	return startFingerprint(exe)
}

func startFingerprint(path string) (*Implementation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fingerprint implementation: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("fingerprint implementation: %w", err)
	}
	im := &Implementation{Adapter: publication.AdapterName + "@" + publication.AdapterVersion, Executable: path, size: st.Size(), modNano: st.ModTime().UnixNano(), done: make(chan struct{})}
	go func() {
		defer close(im.done)
		defer f.Close()
		im.sha, im.err = hashReader(f)
	}()
	return im, nil
}

func hashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("fingerprint implementation: %w", err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Check compares the executable on disk with the one fingerprinted at process start. A
// difference (or an executable that is gone) is adapter_restart_required: this process keeps
// running the old code and must be restarted to use the new.
func (im *Implementation) Check() error {
	st, err := os.Stat(im.Executable)
	if err == nil && st.Size() == im.size && st.ModTime().UnixNano() == im.modNano {
		return nil
	}
	started, serr := im.SHA256()
	if serr == nil {
		if f, err := os.Open(im.Executable); err == nil {
			now, herr := hashReader(f)
			f.Close()
			if herr == nil && now == started {
				return nil
			}
		}
	}
	pe := problem.Errorf(problem.AdapterRestartRequired,
		"the executable %s changed since this process started (started as %s)", im.Executable, im.Fingerprint())
	pe.Problem.Remediation = "restart_project_server"
	return pe
}
