package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/docforge/docforge/index/problem"
)

// Implementation is the adapter implementation a process runs: the adapter version and the
// SHA-256 of the executable. A process records it at start; if the executable on disk later
// differs, the process is running code that no longer matches what is installed.
type Implementation struct {
	Adapter    string `json:"adapter"`
	Executable string `json:"executable"`
	SHA256     string `json:"sha256"`
	// The executable's stat when hashed, so Check rehashes only after it changed.
	size    int64
	modNano int64
}

// Fingerprint is the implementation fingerprint: adapter version plus executable hash.
func (im Implementation) Fingerprint() string { return im.Adapter + "+" + im.SHA256 }

// CurrentImplementation fingerprints the running executable.
func CurrentImplementation() (Implementation, error) {
	exe, err := os.Executable()
	if err != nil {
		return Implementation{}, fmt.Errorf("fingerprint implementation: %w", err)
	}
	return fingerprintFile(exe)
}

func fingerprintFile(path string) (Implementation, error) {
	f, err := os.Open(path)
	if err != nil {
		return Implementation{}, fmt.Errorf("fingerprint implementation: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Implementation{}, fmt.Errorf("fingerprint implementation: %w", err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Implementation{}, fmt.Errorf("fingerprint implementation: %w", err)
	}
	return Implementation{
		Adapter: AdapterName + "@" + AdapterVersion, Executable: path, SHA256: "sha256:" + hex.EncodeToString(h.Sum(nil)),
		size: st.Size(), modNano: st.ModTime().UnixNano(),
	}, nil
}

// Check compares the executable on disk with the one fingerprinted at process start. A
// difference (or an executable that is gone) is adapter_restart_required: this process keeps
// running the old code and must be restarted to use the new.
func (im Implementation) Check() error {
	st, err := os.Stat(im.Executable)
	if err == nil && st.Size() == im.size && st.ModTime().UnixNano() == im.modNano {
		return nil
	}
	now, err := fingerprintFile(im.Executable)
	if err == nil && now.SHA256 == im.SHA256 {
		return nil
	}
	pe := problem.Errorf(problem.AdapterRestartRequired,
		"the executable %s changed since this process started (started as %s)", im.Executable, im.Fingerprint())
	pe.Problem.Remediation = "restart_project_server"
	return pe
}
