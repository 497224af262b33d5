//go:build !windows

package gateway

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symbolic links a tokens path may go through, as
// Linux's limit.
const maxLinks = 40

// checkTokensPath refuses a tokens file that anyone but this user (the
// effective uid) or root could have written or replaced, as OpenSSH's
// StrictModes refuses an authorized_keys file; see internal/gateway/RATIONALE.md.
// The file must be a regular file of this user or root, writable by no
// one else ([ErrTokensMode]). Every directory in which a name on the way
// to it is looked up, from / and through every symbolic link (so the
// directories of the path as given and of the link's target), must belong
// to this user or root and be writable by no one else, unless it has the
// sticky bit (as /tmp has): there, others cannot rename or remove what is
// not theirs, and every entry used is checked for its owner anyway. Every
// symbolic link followed must belong to this user or root.
//
// It returns the file's information; a missing file is (nil, nil) when
// missingOK, once its directories passed.
func checkTokensPath(path string, missingOK bool) (fs.FileInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	c := pathCheck{path: path, uid: os.Geteuid(), seen: map[string]bool{}}
	dir, rest, links := "/", components(abs), 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == ".." {
			dir = filepath.Dir(dir)
			continue
		}
		if err := c.dir(dir); err != nil {
			return nil, err
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && missingOK && len(rest) == 0:
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("tokens file: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			if err := c.link(p, fi); err != nil {
				return nil, err
			}
			if links++; links > maxLinks {
				return nil, fmt.Errorf("tokens file %s: more than %d symbolic links on the way; point it at the file itself", path, maxLinks)
			}
			target, err := os.Readlink(p)
			if err != nil {
				return nil, fmt.Errorf("tokens file: %w", err)
			}
			if filepath.IsAbs(target) {
				dir = "/"
			}
			rest = append(components(target), rest...)
		case len(rest) > 0:
			dir = p
		default:
			return fi, c.file(p, abs, fi)
		}
	}
	return nil, fmt.Errorf("tokens file %s: not a regular file", path)
}

// components splits a slash-separated path into its names, without the
// empty ones and ".".
func components(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// pathCheck holds one check's state: the path as given, this user's id,
// and the directories already found safe.
type pathCheck struct {
	path string
	uid  int
	seen map[string]bool
}

// ours reports whether fi belongs to this user or root, and its owner.
func (c *pathCheck) ours(fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, true
	}
	return st.Uid, int(st.Uid) == c.uid || st.Uid == 0
}

// dir checks a directory in which a name is looked up.
func (c *pathCheck) dir(d string) error {
	if c.seen[d] {
		return nil
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("tokens file: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("tokens file %s: %s is not a directory", c.path, d)
	}
	if uid, ok := c.ours(fi); !ok {
		return fmt.Errorf("tokens file %s: directory %s is owned by uid %d, not by you (uid %d) or root; its owner could replace the file: run chown %d %s, or move the file to a directory of yours", c.path, d, uid, c.uid, c.uid, d)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("tokens file %s: directory %s is writable by group or others (mode %04o) and not sticky; whoever can write it could replace the file: run chmod go-w %s, or move the file to a private directory", c.path, d, perm, d)
	}
	c.seen[d] = true
	return nil
}

// link checks a symbolic link on the way.
func (c *pathCheck) link(p string, fi fs.FileInfo) error {
	if uid, ok := c.ours(fi); !ok {
		return fmt.Errorf("tokens file %s: the symbolic link %s is owned by uid %d, not by you (uid %d) or root; its owner could point it elsewhere: remove it, or run chown -h %d %s", c.path, p, uid, c.uid, c.uid, p)
	}
	return nil
}

// file checks the tokens file itself, at p (abs when no link led there).
func (c *pathCheck) file(p, abs string, fi fs.FileInfo) error {
	what := ""
	if p != abs {
		what = "its target " + p + " is "
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("tokens file %s: %snot a regular file", c.path, what)
	}
	if uid, ok := c.ours(fi); !ok {
		return fmt.Errorf("tokens file %s: %sowned by uid %d, not by you (uid %d) or root; its owner could add members: check them, then run chown %d %s", c.path, what, uid, c.uid, c.uid, c.path)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("tokens file %s: %smode %04o: %w; run chmod 600 %s", c.path, what, perm, ErrTokensMode, c.path)
	}
	return nil
}
