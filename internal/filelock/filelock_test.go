package filelock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain doubles as the helper process of TestLockDiesWithItsHolder:
// with FILELOCK_HOLD set it holds that file's lock until killed.
func TestMain(m *testing.M) {
	if name := os.Getenv("FILELOCK_HOLD"); name != "" {
		if _, err := Lock(name, 0); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("locked\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// One holder at a time, also within one process; the lock file stays.
func TestLockExcludes(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(name, 0)
	require.NoError(t, err)
	_, err = Lock(name, 0)
	require.ErrorIs(t, err, ErrHeld)
	_, err = Lock(name, 200*time.Millisecond)
	require.ErrorIs(t, err, ErrHeld)
	unlock()
	unlock, err = Lock(name, 0)
	require.NoError(t, err)
	unlock()
	fi, err := os.Stat(name)
	require.NoError(t, err, "the lock file was removed")
	require.Zero(t, fi.Size())
}

// A waiter gets the lock once the holder lets go.
func TestLockWaitsForTheHolder(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(name, 0)
	require.NoError(t, err)
	go func() { time.Sleep(100 * time.Millisecond); unlock() }()
	unlock2, err := Lock(name, 30*time.Second)
	require.NoError(t, err)
	unlock2()
}

// The lock lives exactly as long as its holder: the age of the lock file
// means nothing, and a killed holder leaves no lock behind.
func TestLockDiesWithItsHolder(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+name)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)

	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(name, old, old))
	_, err = Lock(name, 0)
	require.ErrorIs(t, err, ErrHeld, "an old lock file was taken from a live holder")

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	unlock, err := Lock(name, 30*time.Second)
	require.NoError(t, err)
	unlock()
}
