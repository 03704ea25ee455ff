//go:build !unix

package gen

import (
	"fmt"
	"os"
)

// openRegular opens path for reading; the caller has checked with Lstat
// that it is a regular file, and checks again once it is open.
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, pathErr(err))
	}
	return f, nil
}
