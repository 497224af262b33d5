//go:build !windows

package install

import (
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// foreignOwner reports the owner of a file that belongs to another user
// than the one running the installer.
func foreignOwner(fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return "", false
	}
	id := strconv.FormatUint(uint64(st.Uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username + " (uid " + id + ")", true
	}
	return "uid " + id, true
}
