package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// The file gets exactly the mode asked for, whatever the umask, and no
// temporary file is left.
func TestWriteFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps only the read-only bit")
	}
	for _, mode := range []fs.FileMode{0o600, 0o644, 0o666, 0o755, 0o400} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			require.NoError(t, WriteFile(path, []byte("new\n"), mode))
			fi, err := os.Lstat(path)
			require.NoError(t, err)
			require.Equal(t, mode, fi.Mode())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, "new\n", string(data))
			require.Equal(t, []string{"f"}, names(t, dir))
		})
	}
}

// A write replaces the file whole (a new inode, the new mode), and a link
// at the path is replaced, not followed.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(path, []byte("old content, longer than the new\n"), 0o644))
	before, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, WriteFile(path, []byte("new\n"), 0o600))
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.False(t, os.SameFile(before, after), "the file was written in place")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new\n", string(data))
	if runtime.GOOS != "windows" {
		require.Equal(t, fs.FileMode(0o600), after.Mode().Perm())
	}
	require.Equal(t, []string{"f"}, names(t, dir))

	if runtime.GOOS == "windows" {
		return
	}
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("target\n"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))
	require.NoError(t, WriteFile(link, []byte("new\n"), 0o600))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular(), "the link was followed")
	data, err = os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "target\n", string(data))
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errors.New("disk on fire")
	}
	r.n--
	return copy(p, "half "), nil
}

// A write that fails at any step before the rename leaves the old file as
// it was, and no temporary file.
func TestWriteFailureKeepsOld(t *testing.T) {
	tests := []struct {
		name   string
		rename func(string, string) error
		r      io.Reader
		want   string
	}{
		{"rename fails", func(string, string) error { return errors.New("rename refused") }, strings.NewReader("new\n"), "rename refused"},
		{"reading fails", os.Rename, &failingReader{n: 3}, "disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rename = tt.rename
			t.Cleanup(func() { rename = os.Rename })
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o640))
			before, err := os.Stat(path)
			require.NoError(t, err)
			err = Write(path, tt.r, 0o600, "")
			require.EqualError(t, err, tt.want)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, "old\n", string(data))
			after, err := os.Stat(path)
			require.NoError(t, err)
			require.True(t, os.SameFile(before, after))
			require.Equal(t, before.Mode(), after.Mode())
			require.Equal(t, []string{"f"}, names(t, dir), "a temporary file was left behind")
		})
	}
}

// The temporary file is named by the caller's pattern (the installer's
// marker lets a later run find what a killed one left), or after the file.
func TestWriteTempName(t *testing.T) {
	var tmp string
	rename = func(from, to string) error { tmp = from; return os.Rename(from, to) }
	t.Cleanup(func() { rename = os.Rename })
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, Write(path, strings.NewReader("{}"), 0o644, ".config.json.marker-*"))
	require.Equal(t, dir, filepath.Dir(tmp))
	require.Regexp(t, `^\.config\.json\.marker-[0-9]+$`, filepath.Base(tmp))
	require.NoError(t, WriteFile(path, []byte("{}"), 0o644))
	require.Regexp(t, `^\.config\.json\.tmp-[0-9]+$`, filepath.Base(tmp))
}

// A missing directory fails the write and creates nothing.
func TestWriteMissingDir(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(filepath.Join(dir, "no", "f"), []byte("x"), 0o600)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.Empty(t, names(t, dir))
}

func TestSyncDir(t *testing.T) {
	require.NoError(t, SyncDir(t.TempDir()))
	if runtime.GOOS != "windows" {
		require.ErrorIs(t, SyncDir(filepath.Join(t.TempDir(), "missing")), fs.ErrNotExist)
	}
}
