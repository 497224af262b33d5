//go:build !windows

package filelock

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A lock file that is a link, or that another user owns, is refused: its
// owner could hold the lock for ever, or point it at a file of ours.
func TestLockRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, nil, 0o600))
	link := filepath.Join(dir, "link.lock")
	require.NoError(t, os.Symlink(target, link))
	_, err := Lock(link, 0)
	require.ErrorContains(t, err, "open "+link+": too many levels of symbolic links")

	sub := filepath.Join(dir, "sub.lock")
	require.NoError(t, os.Mkdir(sub, 0o700))
	_, err = Lock(sub, 0)
	require.EqualError(t, err, "open "+sub+": is a directory")

	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	other := filepath.Join(dir, "other.lock")
	require.NoError(t, os.WriteFile(other, nil, 0o666))
	require.NoError(t, os.Chown(other, 1001, 1001))
	_, err = Lock(other, 0)
	require.EqualError(t, err, "lock file "+other+" belongs to uid 1001, not to you (uid 0) or root; remove it")
}
