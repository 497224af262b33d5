package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrStale is returned by Apply when a file changed after the plan was made.
var ErrStale = errors.New("changed since the plan was made")

// Apply performs the plan's changes in order. Files are written atomically
// (a temporary file in the same directory, then a rename; an existing file
// keeps its mode; a symlinked config is written through the link). Before
// each step it checks the file still is as planned. If any step fails,
// every step already done is undone, and the error says so.
func (p *Plan) Apply() (err error) {
	var undo []func() error
	defer func() {
		if err == nil {
			return
		}
		var failed []error
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				failed = append(failed, uerr)
			}
		}
		if len(failed) > 0 {
			err = fmt.Errorf("%w; rolling back also failed: %w", err, errors.Join(failed...))
		} else if len(undo) > 0 {
			err = fmt.Errorf("%w (everything this run wrote was rolled back)", err)
		}
	}()
	for _, c := range p.Changes {
		if err := check(c); err != nil {
			return err
		}
		switch {
		case c.Kind == KindDir && c.Op == OpCreate:
			if err := os.Mkdir(c.Path, c.Mode); err != nil {
				return err
			}
			path := c.Path
			undo = append(undo, func() error { return os.Remove(path) })
		case c.Kind == KindDir && c.Op == OpDelete:
			if err := os.Remove(c.Path); err != nil {
				return err
			}
			path := c.Path
			undo = append(undo, func() error { return os.Mkdir(path, 0o755) })
		case c.Op == OpCreate:
			if err := writeAtomic(c.Path, c.New, c.Mode); err != nil {
				return err
			}
			path := c.Path
			undo = append(undo, func() error { return os.Remove(path) })
		case c.Op == OpUpdate:
			target := resolve(c.Path)
			fi, err := os.Stat(target)
			if err != nil {
				return err
			}
			mode := fi.Mode().Perm()
			if err := writeAtomic(target, c.New, mode); err != nil {
				return err
			}
			old := c.Old
			undo = append(undo, func() error { return writeAtomic(target, old, mode) })
		case c.Op == OpDelete:
			fi, err := os.Stat(c.Path)
			if err != nil {
				return err
			}
			if err := os.Remove(c.Path); err != nil {
				return err
			}
			path, old, mode := c.Path, c.Old, fi.Mode().Perm()
			undo = append(undo, func() error { return writeAtomic(path, old, mode) })
		}
	}
	return nil
}

// check verifies the path is still as the plan saw it.
func check(c Change) error {
	stale := func() error { return fmt.Errorf("%s: %w; run the command again", c.Path, ErrStale) }
	if c.Kind == KindDir {
		_, err := os.Stat(c.Path)
		if (c.Op == OpCreate) != errors.Is(err, fs.ErrNotExist) {
			return stale()
		}
		return nil
	}
	cur, err := os.ReadFile(c.Path)
	switch {
	case c.Op == OpCreate && !errors.Is(err, fs.ErrNotExist):
		return stale()
	case c.Op == OpCreate:
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

// resolve follows symlinks so a linked config (e.g. from a dotfiles
// repository) is edited where it lives instead of being replaced by a copy.
func resolve(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	return path
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers see the old or the new content, never
// a mix.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
