package gateway_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

var created = time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)

func TestAddRevokeList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	alice, err := gateway.AddToken(path, "alice", created)
	require.NoError(t, err)
	require.Regexp(t, `^dwr_[A-Za-z0-9_-]{43}$`, alice)
	bob, err := gateway.AddToken(path, "bob@example.com", created.Add(time.Hour))
	require.NoError(t, err)
	require.NotEqual(t, alice, bob)

	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(data), alice[len("dwr_"):], "the file holds a token")
	require.NotContains(t, string(data), bob[len("dwr_"):], "the file holds a token")
	var f struct {
		Version int `json:"version"`
		Members []struct{ Name, Hash, Created string }
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, 1, f.Version)
	require.Len(t, f.Members, 2)
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, f.Members[0].Hash)
	require.Equal(t, "2026-12-02T05:00:00Z", f.Members[0].Created)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"tokens.json", "tokens.json.lock"}, names, "a temporary file was left behind")

	_, err = gateway.AddToken(path, "alice", created)
	require.ErrorIs(t, err, gateway.ErrMemberExists)
	require.EqualError(t, err, "tokens file "+path+`: "alice": member already has a token; revoke it first to issue a new one`)
	_, err = gateway.AddToken(path, "-x", created)
	require.EqualError(t, err, `member name "-x": want 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit`)

	ms, err := gateway.ListTokens(path)
	require.NoError(t, err)
	require.Equal(t, []gateway.Member{{Name: "alice", Created: created}, {Name: "bob@example.com", Created: created.Add(time.Hour)}}, ms)

	require.NoError(t, gateway.RevokeToken(path, "alice"))
	err = gateway.RevokeToken(path, "alice")
	require.ErrorIs(t, err, gateway.ErrNoMember)
	ms, err = gateway.ListTokens(path)
	require.NoError(t, err)
	require.Equal(t, []gateway.Member{{Name: "bob@example.com", Created: created.Add(time.Hour)}}, ms)
}

func TestAuthenticate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	alice, err := gateway.AddToken(path, "alice", created)
	require.NoError(t, err)
	revoked, err := gateway.AddToken(path, "mallory", created)
	require.NoError(t, err)
	require.NoError(t, gateway.RevokeToken(path, "mallory"))
	tok, err := gateway.OpenTokens(path, t.Logf)
	require.NoError(t, err)
	tests := []struct {
		name, header, member string
		err                  error
	}{
		{"member", "Bearer " + alice, "alice", nil},
		{"scheme in any case", "bearer  " + alice + " ", "alice", nil},
		{"no header", "", "", gateway.ErrNoToken},
		{"basic", "Basic " + alice, "", gateway.ErrNotBearer},
		{"bearer alone", "Bearer", "", gateway.ErrNotBearer},
		{"wrong token", "Bearer " + gateway.NewToken(), "", gateway.ErrUnknownToken},
		{"revoked token", "Bearer " + revoked, "", gateway.ErrUnknownToken},
		{"token with a byte changed", "Bearer " + alice[:len(alice)-1] + "!", "", gateway.ErrUnknownToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			member, err := tok.Authenticate(tt.header)
			require.Equal(t, tt.member, member)
			require.ErrorIs(t, err, tt.err)
			if err != nil {
				require.NotContains(t, err.Error(), "dwr_", "an error shows a token")
			}
		})
	}
}

// TestTokensFollowTheFile: an Authenticate after add, revoke, a broken
// edit, a bad mode or removal sees the file as it is now.
func TestTokensFollowTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	alice, err := gateway.AddToken(path, "alice", created)
	require.NoError(t, err)
	var logs logBuf
	tok, err := gateway.OpenTokens(path, logs.Logf)
	require.NoError(t, err)
	auth := func(token string) (string, error) { return tok.Authenticate("Bearer " + token) }

	bob, err := gateway.AddToken(path, "bob", created)
	require.NoError(t, err)
	member, err := auth(bob)
	require.NoError(t, err, "a token added after start is refused")
	require.Equal(t, "bob", member)

	require.NoError(t, gateway.RevokeToken(path, "alice"))
	_, err = auth(alice)
	require.ErrorIs(t, err, gateway.ErrUnknownToken, "a revoked token still works")

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	// A broken edit fails closed: nobody authenticates until it is fixed.
	require.NoError(t, os.WriteFile(path, []byte("{\"version\": 1,\n \"members\": [\n  {\"name\": \"bob\",,}]}\n"), 0o600))
	_, err = auth(bob)
	require.EqualError(t, err, "tokens file "+path+": line 3: invalid character ',' looking for beginning of object key string")
	require.NoError(t, os.WriteFile(path, good, 0o600))
	_, err = auth(bob)
	require.NoError(t, err, "a fixed file is not re-read")

	require.NoError(t, os.Chmod(path, 0o620))
	_, err = auth(bob)
	require.ErrorIs(t, err, gateway.ErrTokensMode)
	require.EqualError(t, err, "tokens file "+path+": mode 0620: tokens file is writable by group or others; run chmod 600 "+path)
	require.NoError(t, os.Chmod(path, 0o644))
	_, err = auth(bob)
	require.NoError(t, err, "a readable file is refused")
	require.Contains(t, logs.String(), "mode 0644 lets group or others read it")

	require.NoError(t, os.Remove(path))
	_, err = auth(bob)
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotContains(t, logs.String(), "dwr_", "a log line shows a token")
}

func TestTokensFileErrors(t *testing.T) {
	dir := t.TempDir()
	h := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name, content, want string
	}{
		{"syntax", "{\n\"version\": 1\n\"members\": []}", "line 3: invalid character '\"' after object key:value pair"},
		{"type", "{\"version\": 1,\n\"members\": [{\"name\": 7}]}", "line 2: members.name: want string, found number"},
		{"empty", "", `the file is empty; want {"version": 1, "members": [...]}`},
		{"cut short", "{\"version\": 1,\n\"members\": [", "line 2: the JSON ends early"},
		{"unknown field", `{"version": 1, "members": [], "tokens": []}`, `json: unknown field "tokens"`},
		{"version", `{"version": 2, "members": []}`, "version is 2; this gateway reads version 1"},
		{"name", `{"version": 1, "members": [{"name": "a b", "hash": "` + h + `"}]}`, `members[0].name: member name "a b": want 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit`},
		{"duplicate name", `{"version": 1, "members": [{"name": "a", "hash": "` + h + `"}, {"name": "a", "hash": "sha256:` + strings.Repeat("cd", 32) + `"}]}`, `members[1].name: "a" appears twice`},
		{"hash", `{"version": 1, "members": [{"name": "a", "hash": "md5:00"}]}`, `members[0].hash (a): want "sha256:" and 64 hex digits`},
		{"duplicate hash", `{"version": 1, "members": [{"name": "a", "hash": "` + h + `"}, {"name": "b", "hash": "` + h + `"}]}`, `members[1].hash (b): the same as a's`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".json")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			_, err := gateway.OpenTokens(path, nil)
			require.EqualError(t, err, "tokens file "+path+": "+tt.want)
			_, err = gateway.ListTokens(path)
			require.EqualError(t, err, "tokens file "+path+": "+tt.want)
		})
	}
}

func TestNewTokenIsRandom(t *testing.T) {
	seen := map[string]bool{}
	re := regexp.MustCompile(`^dwr_[A-Za-z0-9_-]{43}$`)
	for range 1000 {
		tk := gateway.NewToken()
		require.Regexp(t, re, tk)
		require.False(t, seen[tk], "a token repeated")
		seen[tk] = true
	}
}

// TestAddTokenConcurrent: token commands run at once lose no member (the
// read-modify-write of the file is locked).
func TestAddTokenConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			_, err := gateway.AddToken(path, fmt.Sprint("m", i), created)
			require.NoError(t, err)
		})
	}
	wg.Wait()
	ms, err := gateway.ListTokens(path)
	require.NoError(t, err)
	require.Len(t, ms, 10)
	lock, err := os.Stat(path + ".lock")
	require.NoError(t, err, "the lock file is kept: removing it would let two commands hold the lock")
	require.Zero(t, lock.Size())
}
