package gateway

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A token command that holds the lock is never robbed of it, however old
// the lock file looks: a second one waits, then fails saying why, and
// gets the lock once the first lets go.
func TestTokensLockNeverBrokenWhileHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	unlock, err := lockTokensFile(path)
	require.NoError(t, err)
	// The holder has held it for a minute: past the 30 s after which the
	// lock used to be taken over.
	old := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(path+".lock", old, old))
	_, err = AddToken(path, "alice", time.Now())
	require.EqualError(t, err, "tokens file "+path+": another token command is running (it holds the lock on "+path+".lock; waited 5s); wait for it to finish, then run the command again")
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "the second command wrote the file")
	unlock()
	_, err = AddToken(path, "alice", time.Now())
	require.NoError(t, err)
}
