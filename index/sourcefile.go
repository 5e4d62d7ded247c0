package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"zombiezen.com/go/sqlite"

	"github.com/docforge/docforge/source"
)

// SourceFile returns the bytes of a source file of this generation, and whether they are
// still the bytes the generation was built from: its SHA-256 is compared with the indexed
// file hash, so evidence never quotes an edit the graph has not seen. A file that is gone,
// changed, too large, outside the project through a symlink, or not a source of this
// generation yields false and no bytes; only an unexpected read failure is an error.
func (s *Snapshot) SourceFile(ctx context.Context, rel string) ([]byte, bool, error) {
	if s.root == "" || rel == "" || filepath.IsAbs(rel) || strings.Contains("/"+rel+"/", "/../") {
		return nil, false, nil
	}
	var want string
	err := s.with(ctx, func(conn *sqlite.Conn) error {
		st := conn.Prep(`SELECT file_hash FROM files WHERE path = ?`)
		defer st.Reset()
		st.BindText(1, rel)
		ok, err := st.Step()
		if ok {
			want = st.ColumnText(0)
		}
		return err
	})
	if err != nil || want == "" {
		return nil, false, err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false, nil
	}
	realRoot, err := filepath.EvalSymlinks(s.root)
	if err != nil || !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return nil, false, nil
	}
	f, err := os.Open(real)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read source %s: %w", rel, err)
	}
	defer f.Close()
	limit := s.maxFileBytes
	if limit <= 0 {
		limit = 4 << 20
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("read source %s: %w", rel, err)
	}
	if int64(len(data)) > limit || source.FileHash(data) != want {
		return nil, false, nil
	}
	return data, true, nil
}
