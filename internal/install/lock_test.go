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

// A run that dies holding the lock leaves no stale lock: while
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
	old := lockWait
	lockWait = 0
	t.Cleanup(func() { lockWait = old })
	_, err = Lock(dir)
	require.ErrorIs(t, err, ErrLocked)
	require.Contains(t, err.Error(), "another deepseek-web-retrieval init or uninstall is running on "+dir)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	unlock, err := Lock(dir)
	require.NoError(t, err)
	unlock()
}

// LockRun holds the state directory's lock and every config directory's
// until released, and reports no recovery when no run was interrupted.
func TestLockRunHoldsEveryLock(t *testing.T) {
	state, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	old := lockWait
	lockWait = 0
	t.Cleanup(func() { lockWait = old })
	release, _, found, err := LockRun(state, []string{b, "", a, b})
	require.NoError(t, err)
	require.False(t, found, "nothing to recover in a fresh state directory")
	for _, d := range []string{state, a, b} {
		_, err := Lock(d)
		require.ErrorIs(t, err, ErrLocked, "%s is locked while the run holds its locks", d)
	}
	_, _, _, err = LockRun(state, nil)
	require.ErrorIs(t, err, ErrLocked)
	release()
	for _, d := range []string{state, a, b} {
		unlock, err := Lock(d)
		require.NoError(t, err, "%s is free once released", d)
		unlock()
	}
}
