package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// checkTokensPath checks on Windows only that the tokens file is a
// regular file. Owners and mode bits do not say there who may write a
// file (access control lists do), so neither the file's owner and mode
// nor its directories are checked, and links are followed as the system
// does: keep the file in a directory that only the gateway's user and
// administrators can write. A missing file is (nil, nil) when missingOK.
func checkTokensPath(path string, missingOK bool) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) && missingOK {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("tokens file %s: not a regular file", path)
	}
	return fi, nil
}
