package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/atomicfile"
)

// ErrStale is returned by Apply when a file changed after the plan was made.
var ErrStale = errors.New("changed since the plan was made")

func dirMode(m fs.FileMode) fs.FileMode {
	if m == 0 {
		return 0o755
	}
	return m
}

// check verifies the path is still as the plan saw it.
func check(c Change) error {
	stale := func() error { return fmt.Errorf("%s: %w; run the command again", c.Path, ErrStale) }
	if c.Kind == KindDir || c.Kind == KindTree {
		fi, err := os.Lstat(c.Path)
		switch {
		case c.Kind == KindDir && c.Op == OpCreate && err == nil && fi.IsDir():
			return nil // made meanwhile: composes
		case c.Kind == KindDir && c.Op == OpDelete && c.IfEmpty:
			return nil
		case (c.Op == OpCreate) != errors.Is(err, fs.ErrNotExist):
			return stale()
		}
		return nil
	}
	cur, err := os.ReadFile(c.Path)
	switch {
	case c.Op == OpCreate && !errors.Is(err, fs.ErrNotExist):
		return stale()
	case c.Op == OpCreate:
		if Exists(c.Path) { // a dangling link: never replace it
			return stale()
		}
		return nil
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return stale()
	case err != nil:
		return err
	case !bytes.Equal(cur, c.Old):
		return stale()
	}
	return nil
}

func removeIfSame(path string, data []byte) error {
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !bytes.Equal(cur, data)) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.Remove(path)
}

func restoreIfSame(path string, data, old []byte, mode fs.FileMode) error {
	cur, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(cur, data) {
		return nil
	}
	return WriteAtomic(path, old, mode)
}

// writeTree builds dir's files in a temporary sibling directory and renames
// it into place; the rename fails if dir appeared meanwhile.
func writeTree(dir string, files []TreeFile) (err error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+TempMarker+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || f.Name == "." || f.Name == ".." {
			return fmt.Errorf("bad file name %q", f.Name)
		}
		if err := WriteAtomic(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	if Exists(dir) {
		return fmt.Errorf("%s: %w; run the command again", dir, ErrStale)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(dir))
}

// removeTree removes the files writeTree wrote (while unchanged: each
// named with its content's hash) and then the directory, if nothing else
// is left in it.
func removeTree(dir string, files []TreeFileID) error {
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if f.Name != filepath.Base(f.Name) || f.Name == ".." {
			continue
		}
		if b, err := os.ReadFile(p); err == nil && SHA(b) == f.SHA256 {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
		return os.Remove(dir)
	}
	return nil
}

// resolve follows symlinks so a linked config (e.g. from a dotfiles
// repository) is edited where it lives instead of being replaced by a copy.
func resolve(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	return path
}

// WriteAtomic writes data to path with mode through [atomicfile.Write],
// its temporary file named with [TempMarker]: readers see the old or the
// new content, never a mix, and once it returns the new content survives a
// crash.
func WriteAtomic(path string, data []byte, mode fs.FileMode) error {
	return atomicfile.Write(path, bytes.NewReader(data), mode, "."+filepath.Base(path)+TempMarker+"*")
}
