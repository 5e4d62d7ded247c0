package changeset

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
