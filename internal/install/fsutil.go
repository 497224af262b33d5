package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte("\xef\xbb\xbf")

// SplitBOM splits a leading UTF-8 byte order mark off data. Editors keep it
// in place, so the installer parses the body and writes the mark back.
func SplitBOM(data []byte) (mark, body []byte) {
	if bytes.HasPrefix(data, bom) {
		return data[:len(bom)], data[len(bom):]
	}
	return nil, data
}

// Exists reports whether p exists (a dangling symlink exists).
func Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ReadFile returns a file's content and permission bits; exists is false
// when it is absent. A symlink is followed (a config kept in a dotfiles
// repository is edited where it lives), but a dangling one is refused:
// writing there would replace the link with a regular file, and a later
// uninstall would delete it. Anything but a regular file is refused, and
// so is a file over 256 MiB, before it is read. A host's config is read
// with ReadConfig.
func ReadFile(p string) (data []byte, mode fs.FileMode, exists bool, err error) {
	return readFile(p, maxFileBytes)
}

// readFile is ReadFile with a size bound.
func readFile(p string, limit int64) (data []byte, mode fs.FileMode, exists bool, err error) {
	li, lerr := os.Lstat(p)
	if errors.Is(lerr, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if lerr != nil {
		return nil, 0, false, lerr
	}
	fi, err := os.Stat(p)
	if li.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist) {
		target, _ := os.Readlink(p)
		return nil, 0, false, Refuse(fmt.Sprintf("%s is a symbolic link to %s, which does not exist (dotfiles not checked out yet?); the installer will not replace the link with a file", p, target),
			"create "+target+" (or check out your dotfiles), then run the command again",
			"or remove the link "+p+" if you no longer want it")
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, Refuse(p + " is not a regular file")
	}
	data, err = readCapped(p, limit)
	return data, fi.Mode().Perm(), true, err
}

// ErrOutside is returned by Confine for a path that leaves its root.
var ErrOutside = errors.New("path leaves the directory the install owns")

// Confine resolves rel, a slash-separated path read from untrusted input
// (an install record), inside root: it must be relative, must not climb out
// with "..", and after resolving every symbolic link on the way (as far as
// the path exists) must still be inside root (itself resolved). It returns
// the absolute path.
func Confine(root, rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, '\\') || strings.ContainsRune(rel, 0) || path.IsAbs(rel) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	abs := filepath.Join(root, filepath.FromSlash(clean))
	realRoot, err := resolveExisting(root)
	if err != nil {
		return "", err
	}
	real, err := resolveExisting(abs)
	if err != nil {
		return "", err
	}
	if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
		return "", fmt.Errorf("%q resolves to %s: %w", rel, real, ErrOutside)
	}
	return abs, nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of p
// and appends the rest.
func resolveExisting(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append(rest, filepath.Base(p))
		p = parent
	}
}
