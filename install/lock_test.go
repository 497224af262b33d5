package install

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain doubles as the helper process of TestLockReleasedWhenHolderDies:
// with LOCK_DIR set it holds that directory's lock until killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("LOCK_DIR"); dir != "" {
		if _, err := Lock(dir); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A run that dies holding the lock leaves no stale lock (issue 9.2): while
// it lives a second run gets ErrLocked, once it is killed the lock is free.
func TestLockReleasedWhenHolderDies(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LOCK_DIR="+dir)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	old := LockWait
	LockWait = 0
	t.Cleanup(func() { LockWait = old })
	_, err = Lock(dir)
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	unlock, err := Lock(dir)
	require.NoError(t, err)
	unlock()
}
