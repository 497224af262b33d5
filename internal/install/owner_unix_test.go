//go:build !windows

package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A config that belongs to another user is refused, not taken over.
func TestTxRefusesForeignOwnedConfig(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root (CI runs as root)")
	}
	home, tx, _ := txFixture(t)
	cfg := filepath.Join(home, "cfg", "config.toml")
	require.NoError(t, os.Chown(cfg, 4242, 4242))
	before := snapshot(t, home)
	err := tx.Apply()
	require.ErrorContains(t, err, cfg+" belongs to uid 4242, not to you")
	require.Equal(t, before, snapshot(t, home))
}
