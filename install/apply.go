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
// keeps its mode; a symlinked config is written through the link), and a
// KindTree directory is built under a temporary name and renamed into
// place. Before each step it checks the path still is as planned. If a step
// fails, the steps already done are undone, each only while the path still
// holds what this run wrote (so a rollback never removes or overwrites
// another writer's file), and the error says so. Callers hold [Lock].
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
		case c.Kind == KindTree:
			if err := writeTree(c.Path, c.Files); err != nil {
				return err
			}
			path, files := c.Path, c.Files
			undo = append(undo, func() error { return removeTree(path, files) })
		case c.Kind == KindDir && c.Op == OpCreate:
			if err := os.Mkdir(c.Path, dirMode(c.Mode)); err != nil {
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
			if err := WriteAtomic(c.Path, c.New, c.Mode); err != nil {
				return err
			}
			path, data := c.Path, c.New
			undo = append(undo, func() error { return removeIfSame(path, data) })
		case c.Op == OpUpdate:
			target := resolve(c.Path)
			fi, err := os.Stat(target)
			if err != nil {
				return err
			}
			mode := fi.Mode().Perm()
			if c.Kind == KindRecord {
				mode = 0o600
			}
			if err := WriteAtomic(target, c.New, mode); err != nil {
				return err
			}
			old, data := c.Old, c.New
			undo = append(undo, func() error { return restoreIfSame(target, data, old, mode) })
		case c.Op == OpDelete:
			target := resolve(c.Path)
			fi, err := os.Stat(target)
			if err != nil {
				return err
			}
			if err := os.Remove(c.Path); err != nil {
				return err
			}
			path, old, mode := c.Path, c.Old, fi.Mode().Perm()
			undo = append(undo, func() error {
				if Exists(path) {
					return nil // someone else wrote it since: leave theirs
				}
				return WriteAtomic(path, old, mode)
			})
		}
	}
	return nil
}

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
		_, err := os.Lstat(c.Path)
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
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
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
	return os.Rename(tmp, dir)
}

// removeTree removes the files writeTree wrote (while unchanged) and then
// the directory, if nothing else is left in it.
func removeTree(dir string, files []TreeFile) error {
	for _, f := range files {
		if err := removeIfSame(filepath.Join(dir, f.Name), f.Data); err != nil {
			return err
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

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, so readers see the old or the new content, never
// a mix.
func WriteAtomic(path string, data []byte, mode fs.FileMode) (err error) {
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
