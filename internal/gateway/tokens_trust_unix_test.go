//go:build !windows

package gateway_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

// other is the uid the tests give files they chown to another user.
const other = 1001

// trustDirs builds, in a fresh private directory: safe (0700), shared
// (1777, as /tmp), open (0777) and group (0770).
func trustDirs(t *testing.T) (dir, safe, shared, open, group string) {
	dir = t.TempDir()
	safe, shared, open, group = filepath.Join(dir, "safe"), filepath.Join(dir, "shared"), filepath.Join(dir, "open"), filepath.Join(dir, "group")
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{safe, 0o700}, {shared, 0o777 | os.ModeSticky}, {open, 0o777}, {group, 0o770}} {
		require.NoError(t, os.Mkdir(d.path, 0o700))
		require.NoError(t, os.Chmod(d.path, d.mode))
	}
	return dir, safe, shared, open, group
}

// addAlice makes a tokens file at path with the member alice.
func addAlice(t *testing.T, path string) {
	t.Helper()
	_, err := gateway.AddToken(path, "alice", created)
	require.NoError(t, err)
}

// TestTokensFileTrust: the tokens file, every directory on the way to it
// and every symbolic link followed must belong to this user or root and
// be writable by no one else (a directory may be, with the sticky bit,
// as /tmp is); every entry point refuses anything else with a sentence
// that says what to fix, and writes nothing.
func TestTokensFileTrust(t *testing.T) {
	me := os.Geteuid()
	notYours := fmt.Sprintf("owned by uid %d, not by you (uid %d) or root", other, me)
	writable := func(path, dir, mode string) string {
		return fmt.Sprintf("tokens file %s: directory %s is writable by group or others (mode %s) and not sticky; whoever can write it could replace the file: run chmod go-w %s, or move the file to a private directory", path, dir, mode, dir)
	}
	tests := []struct {
		name     string
		needRoot bool
		// setup returns the path to use and the error every entry point
		// returns ("" when the file is accepted).
		setup func(t *testing.T) (path, want string)
	}{
		{"0600 file in a 0700 directory", false, func(t *testing.T) (string, string) {
			_, safe, _, _, _ := trustDirs(t)
			p := filepath.Join(safe, "tokens.json")
			addAlice(t, p)
			return p, ""
		}},
		{"file of yours in a sticky world-writable directory", false, func(t *testing.T) (string, string) {
			_, _, shared, _, _ := trustDirs(t)
			p := filepath.Join(shared, "tokens.json")
			addAlice(t, p)
			return p, ""
		}},
		{"symbolic link to a file in a private directory", false, func(t *testing.T) (string, string) {
			dir, safe, _, _, _ := trustDirs(t)
			addAlice(t, filepath.Join(safe, "tokens.json"))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "etc"), 0o755))
			p := filepath.Join(dir, "etc", "tokens.json")
			require.NoError(t, os.Symlink("../safe/./tokens.json", p))
			return p, ""
		}},
		{"file owned by another user", true, func(t *testing.T) (string, string) {
			_, safe, _, _, _ := trustDirs(t)
			p := filepath.Join(safe, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chown(p, other, other))
			return p, fmt.Sprintf("tokens file %s: %s; its owner could add members: check them, then run chown %d %s", p, notYours, me, p)
		}},
		{"file of another user in a sticky directory", true, func(t *testing.T) (string, string) {
			_, _, shared, _, _ := trustDirs(t)
			p := filepath.Join(shared, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chown(p, other, other))
			return p, fmt.Sprintf("tokens file %s: %s; its owner could add members: check them, then run chown %d %s", p, notYours, me, p)
		}},
		{"group-writable file", false, func(t *testing.T) (string, string) {
			_, safe, _, _, _ := trustDirs(t)
			p := filepath.Join(safe, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chmod(p, 0o620))
			return p, "tokens file " + p + ": mode 0620: tokens file is writable by group or others; run chmod 600 " + p
		}},
		{"world-writable file", false, func(t *testing.T) (string, string) {
			_, safe, _, _, _ := trustDirs(t)
			p := filepath.Join(safe, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chmod(p, 0o606))
			return p, "tokens file " + p + ": mode 0606: tokens file is writable by group or others; run chmod 600 " + p
		}},
		{"world-writable directory without the sticky bit", false, func(t *testing.T) (string, string) {
			_, safe, _, open, _ := trustDirs(t)
			p := filepath.Join(open, "tokens.json")
			addAlice(t, filepath.Join(safe, "tokens.json"))
			require.NoError(t, os.Rename(filepath.Join(safe, "tokens.json"), p))
			return p, writable(p, open, "0777")
		}},
		{"group-writable directory", false, func(t *testing.T) (string, string) {
			_, safe, _, _, group := trustDirs(t)
			p := filepath.Join(group, "tokens.json")
			addAlice(t, filepath.Join(safe, "tokens.json"))
			require.NoError(t, os.Rename(filepath.Join(safe, "tokens.json"), p))
			return p, writable(p, group, "0770")
		}},
		{"directory owned by another user", true, func(t *testing.T) (string, string) {
			dir, _, _, _, _ := trustDirs(t)
			d := filepath.Join(dir, "theirs")
			require.NoError(t, os.Mkdir(d, 0o755))
			p := filepath.Join(d, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chown(d, other, other))
			return p, fmt.Sprintf("tokens file %s: directory %s is %s; its owner could replace the file: run chown %d %s, or move the file to a directory of yours", p, d, notYours, me, d)
		}},
		{"sticky directory owned by another user", true, func(t *testing.T) (string, string) {
			_, _, shared, _, _ := trustDirs(t)
			p := filepath.Join(shared, "tokens.json")
			addAlice(t, p)
			require.NoError(t, os.Chown(shared, other, other))
			return p, fmt.Sprintf("tokens file %s: directory %s is %s; its owner could replace the file: run chown %d %s, or move the file to a directory of yours", p, shared, notYours, me, shared)
		}},
		{"symbolic link in a world-writable directory", false, func(t *testing.T) (string, string) {
			_, safe, _, open, _ := trustDirs(t)
			addAlice(t, filepath.Join(safe, "tokens.json"))
			p := filepath.Join(open, "tokens.json")
			require.NoError(t, os.Symlink(filepath.Join(safe, "tokens.json"), p))
			return p, writable(p, open, "0777")
		}},
		{"symbolic link to a file in a world-writable directory", false, func(t *testing.T) (string, string) {
			_, safe, _, open, _ := trustDirs(t)
			addAlice(t, filepath.Join(safe, "real.json"))
			require.NoError(t, os.Rename(filepath.Join(safe, "real.json"), filepath.Join(open, "real.json")))
			p := filepath.Join(safe, "tokens.json")
			require.NoError(t, os.Symlink("../open/real.json", p))
			return p, writable(p, open, "0777")
		}},
		{"path through a symbolic link to a world-writable directory", false, func(t *testing.T) (string, string) {
			dir, safe, _, open, _ := trustDirs(t)
			addAlice(t, filepath.Join(safe, "tokens.json"))
			require.NoError(t, os.Rename(filepath.Join(safe, "tokens.json"), filepath.Join(open, "tokens.json")))
			require.NoError(t, os.Symlink("open", filepath.Join(dir, "conf")))
			p := filepath.Join(dir, "conf", "tokens.json")
			return p, writable(p, open, "0777")
		}},
		{"another user's symbolic link in a sticky directory", true, func(t *testing.T) (string, string) {
			_, safe, shared, _, _ := trustDirs(t)
			addAlice(t, filepath.Join(safe, "tokens.json"))
			p := filepath.Join(shared, "tokens.json")
			require.NoError(t, os.Symlink(filepath.Join(safe, "tokens.json"), p))
			require.NoError(t, os.Lchown(p, other, other))
			return p, fmt.Sprintf("tokens file %s: the symbolic link %s is %s; its owner could point it elsewhere: remove it, or run chown -h %d %s", p, p, notYours, me, p)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needRoot && os.Geteuid() != 0 {
				t.Skip("chown to another user needs root")
			}
			path, want := tt.setup(t)
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			tok, openErr := gateway.OpenTokens(path, nil)
			_, listErr := gateway.ListTokens(path)
			_, addErr := gateway.AddToken(path, "bob", created)
			revokeErr := gateway.RevokeToken(path, "alice")
			if want == "" {
				require.NoError(t, openErr)
				require.NoError(t, listErr)
				require.NoError(t, addErr)
				require.NoError(t, revokeErr)
				require.NotNil(t, tok)
				return
			}
			for i, err := range []error{openErr, listErr, addErr, revokeErr} {
				require.EqualError(t, err, want, []string{"OpenTokens", "ListTokens", "AddToken", "RevokeToken"}[i])
			}
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(before), string(after), "a refused file was written")
		})
	}
}

// A tokens file is not created in a directory others can write, and a
// gateway refused for its directory recovers once the directory is fixed,
// with no change to the file.
func TestTokensFileTrustDirectoryFixed(t *testing.T) {
	_, _, _, open, _ := trustDirs(t)
	p := filepath.Join(open, "tokens.json")
	_, err := gateway.AddToken(p, "alice", created)
	want := "tokens file " + p + ": directory " + open + " is writable by group or others (mode 0777) and not sticky; whoever can write it could replace the file: run chmod go-w " + open + ", or move the file to a private directory"
	require.EqualError(t, err, want)
	ents, err := os.ReadDir(open)
	require.NoError(t, err)
	require.Empty(t, ents, "a file was created in the open directory")

	require.NoError(t, os.Chmod(open, 0o700))
	alice, err := gateway.AddToken(p, "alice", created)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(open, 0o777))
	var logs logBuf
	tok, err := gateway.OpenTokens(p, logs.Logf)
	require.EqualError(t, err, want)
	_, err = tok.Authenticate("Bearer " + alice)
	require.EqualError(t, err, want)
	require.NoError(t, os.Chmod(open, 0o755))
	member, err := tok.Authenticate("Bearer " + alice)
	require.NoError(t, err, "the gateway did not recover")
	require.Equal(t, "alice", member)
	require.Equal(t, 1, strings.Count(logs.String(), want), "the refusal was logged more than once")
}

// A path that leads to no regular file, or loops, is refused by name.
func TestTokensFileTrustNotAFile(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.json")
	require.NoError(t, os.Symlink("loop.json", loop))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("sub", link))
	tests := []struct{ path, want string }{
		{sub, "tokens file " + sub + ": not a regular file"},
		{link, "tokens file " + link + ": its target " + sub + " is not a regular file"},
		{loop, "tokens file " + loop + ": more than 40 symbolic links on the way; point it at the file itself"},
	}
	for _, tt := range tests {
		_, err := gateway.AddToken(tt.path, "alice", created)
		require.EqualError(t, err, tt.want)
		_, err = gateway.ListTokens(tt.path)
		require.EqualError(t, err, tt.want)
	}
	_, err := gateway.OpenTokens(link, nil)
	require.EqualError(t, err, "tokens file "+link+": its target "+sub+" is not a regular file")
	_, err = gateway.OpenTokens(loop, nil)
	require.ErrorContains(t, err, "too many levels of symbolic links", "the system's own message, from the gateway's stat")
}
