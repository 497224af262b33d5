//go:build !windows

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// SyncDir makes the entries of dir durable: a rename, a creation or a
// removal in it survives a crash once it returns nil. A file system that
// cannot sync a directory (EINVAL, on some network and FUSE file systems)
// is not an error: nothing more can be done there.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
