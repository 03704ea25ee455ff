//go:build unix

package gen

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens path for reading without following a symbolic link and
// without blocking: opening a FIFO for reading would otherwise wait for a
// writer. The caller checks that what it opened is a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, pathErr(err))
	}
	return f, nil
}
