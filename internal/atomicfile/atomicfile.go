// Package atomicfile replaces files so that readers, and a crash, see the
// old content or the new one, never a mix: the one way this module writes a
// file it must not leave half written.
package atomicfile

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// rename is os.Rename; tests replace it to make the rename fail.
var rename = os.Rename

// WriteFile replaces path with data and permission bits mode; see [Write].
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	return Write(path, bytes.NewReader(data), mode, "")
}

// Write replaces path with what r holds and permission bits mode (exactly:
// the umask does not apply). It writes a temporary file in path's
// directory, sets its mode, syncs it, closes it, renames it over path and
// syncs the directory ([SyncDir]): once it returns nil the new content is
// durable, and until the rename readers see the old one. On an error the
// temporary file is removed and path is as it was, unless only the
// directory sync failed (then path has the new content, not yet durable).
//
// tempPattern names the temporary file as [os.CreateTemp]'s pattern does;
// "" means "." + the base name of path + ".tmp-*". A symbolic link at path
// is replaced, not followed: callers that edit a link's target resolve it
// first. The new file belongs to the user running the process.
func Write(path string, r io.Reader, mode fs.FileMode, tempPattern string) (err error) {
	dir := filepath.Dir(path)
	if tempPattern == "" {
		tempPattern = "." + filepath.Base(path) + ".tmp-*"
	}
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // a second close fails harmlessly
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}
