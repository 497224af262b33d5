package gateway

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/atomicfile"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/filelock"
)

// TokenPrefix starts every member token, so secret scanners and people can
// tell one apart: "dwr_" and 43 URL-safe base64 characters (32 random
// bytes, 256 bits).
const TokenPrefix = "dwr_"

// tokensVersion is the "version" of the tokens file format.
const tokensVersion = 1

// The tokens file: a JSON object, written by [AddToken] and [RevokeToken]
// with mode 0600 through a temporary file and a rename, so readers never
// see half of it:
//
//	{"version": 1, "members": [
//	  {"name": "alice", "hash": "sha256:<64 hex>", "created": "2026-12-02T05:00:00Z"}]}
//
// Only the SHA-256 of each token is stored. A token is 256 random bits,
// so its hash cannot be reversed or guessed, and a slow password hash
// would add nothing but cost per request.
type tokensFile struct {
	Version int           `json:"version"`
	Members []tokenMember `json:"members"`
}

type tokenMember struct {
	Name    string    `json:"name"`
	Hash    string    `json:"hash"`
	Created time.Time `json:"created"`
}

// Member is one entry of a tokens file, as [ListTokens] returns it.
type Member struct {
	Name    string
	Created time.Time
}

// The errors of [Tokens.Authenticate]. None of them, nor any error of this
// file, holds a token.
var (
	// ErrNoToken: the request has no Authorization header.
	ErrNoToken = errors.New("no Authorization header")
	// ErrNotBearer: the Authorization header is not "Bearer <token>".
	ErrNotBearer = errors.New("authorization header is not \"Bearer <token>\"")
	// ErrUnknownToken: the token is not in the tokens file (never
	// issued, or revoked).
	ErrUnknownToken = errors.New("unknown or revoked token")
	// ErrMemberExists: AddToken for a name that has a token.
	ErrMemberExists = errors.New("member already has a token")
	// ErrNoMember: RevokeToken for a name that has none.
	ErrNoMember = errors.New("no such member")
	// ErrTokensMode: the tokens file can be written by group or others
	// (not checked on Windows).
	ErrTokensMode = errors.New("tokens file is writable by group or others")
)

var memberName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// CheckMemberName returns an error naming what is wrong with name: 1 to
// 64 characters, letters, digits and . _ @ -, starting with a letter or
// digit (names appear in audit lines and Redis keys).
func CheckMemberName(name string) error {
	if !memberName.MatchString(name) {
		return fmt.Errorf("member name %q: want 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", name)
	}
	return nil
}

func hashToken(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

// newToken returns a new random token: [TokenPrefix] and 32 bytes from
// crypto/rand in URL-safe base64 without padding.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// AddToken makes a token for a new member, stores its hash with name and
// now in the tokens file at path (creating the file), and returns the
// token: the only time anyone sees it. A name that has a token is refused
// with [ErrMemberExists]; revoke it first to rotate.
func AddToken(path, name string, now time.Time) (string, error) {
	if err := CheckMemberName(name); err != nil {
		return "", err
	}
	unlock, err := lockTokensFile(path)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, err := readTokensFile(path, true)
	if err != nil {
		return "", err
	}
	for _, m := range f.Members {
		if m.Name == name {
			return "", fmt.Errorf("tokens file %s: %q: %w; revoke it first to issue a new one", path, name, ErrMemberExists)
		}
	}
	token := newToken()
	h := hashToken(token)
	f.Members = append(f.Members, tokenMember{Name: name, Hash: "sha256:" + hex.EncodeToString(h[:]), Created: now.UTC().Truncate(time.Second)})
	if err := writeTokensFile(path, f); err != nil {
		return "", err
	}
	return token, nil
}

// RevokeToken removes name's token from the tokens file at path; gateways
// reading the file refuse the token from their next request on.
func RevokeToken(path, name string) error {
	unlock, err := lockTokensFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := readTokensFile(path, false)
	if err != nil {
		return err
	}
	kept := f.Members[:0]
	found := false
	for _, m := range f.Members {
		if m.Name == name {
			found = true
			continue
		}
		kept = append(kept, m)
	}
	if !found {
		return fmt.Errorf("tokens file %s: %q: %w", path, name, ErrNoMember)
	}
	f.Members = kept
	return writeTokensFile(path, f)
}

// ListTokens returns the members of the tokens file at path, by name.
func ListTokens(path string) ([]Member, error) {
	f, err := readTokensFile(path, false)
	if err != nil {
		return nil, err
	}
	out := make([]Member, len(f.Members))
	for i, m := range f.Members {
		out[i] = Member{Name: m.Name, Created: m.Created}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// tokensLockWait is how long a token command waits for another one.
const tokensLockWait = 5 * time.Second

// lockTokensFile serialises AddToken and RevokeToken on one file, across
// processes (and containers sharing the directory) too: it takes the
// kernel lock of path+".lock" ([filelock.Lock]), which its holder keeps
// exactly as long as it runs, waiting up to tokensLockWait for another
// holder. The lock file stays beside the tokens file. It returns the
// function that releases the lock.
func lockTokensFile(path string) (unlock func(), err error) {
	if _, err := checkTokensPath(path, true); err != nil {
		return nil, err // no lock file in a directory we do not trust
	}
	lock := path + ".lock"
	unlock, err = filelock.Lock(lock, tokensLockWait)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("tokens file %s: another token command is running (it holds the lock on %s; waited %s); wait for it to finish, then run the command again", path, lock, tokensLockWait)
	}
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return unlock, nil
}

// readTokensFile reads and checks the file, refusing one that others
// could have written ([checkTokensPath]); a missing file is empty when
// missingOK.
func readTokensFile(path string, missingOK bool) (*tokensFile, error) {
	fi, err := checkTokensPath(path, missingOK)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return &tokensFile{Version: tokensVersion}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	return parseTokensFile(path, data)
}

// parseTokensFile decodes and checks a tokens file; errors name the path
// and the line or the member and field at fault.
func parseTokensFile(path string, data []byte) (*tokensFile, error) {
	var f tokensFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("tokens file %s: the file is empty; want {\"version\": 1, \"members\": [...]}", path)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("tokens file %s: line %d: the JSON ends early", path, lineOf(data, int64(len(data))))
		case errors.As(err, &syn):
			return nil, fmt.Errorf("tokens file %s: line %d: %v", path, lineOf(data, syn.Offset), err)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("tokens file %s: line %d: %s: want %s, found %s", path, lineOf(data, typ.Offset), typ.Field, typ.Type, typ.Value)
		}
		return nil, fmt.Errorf("tokens file %s: %v", path, err)
	}
	if f.Version != tokensVersion {
		return nil, fmt.Errorf("tokens file %s: version is %d; this gateway reads version %d", path, f.Version, tokensVersion)
	}
	names := map[string]bool{}
	hashes := map[string]string{}
	for i, m := range f.Members {
		at := fmt.Sprintf("tokens file %s: members[%d]", path, i)
		if err := CheckMemberName(m.Name); err != nil {
			return nil, fmt.Errorf("%s.name: %v", at, err)
		}
		if names[m.Name] {
			return nil, fmt.Errorf("%s.name: %q appears twice", at, m.Name)
		}
		names[m.Name] = true
		hx, ok := strings.CutPrefix(m.Hash, "sha256:")
		if b, err := hex.DecodeString(hx); !ok || err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("%s.hash (%s): want \"sha256:\" and 64 hex digits", at, m.Name)
		}
		if other, dup := hashes[hx]; dup {
			return nil, fmt.Errorf("%s.hash (%s): the same as %s's", at, m.Name, other)
		}
		hashes[hx] = m.Name
	}
	return &f, nil
}

func lineOf(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}

// writeTokensFile writes f to path with mode 0600 through
// [atomicfile.WriteFile]: a reader sees the old file or the new one.
func writeTokensFile(path string, f *tokensFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("tokens file %s: %w", path, err)
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("tokens file %s: %w", path, err)
	}
	return nil
}

// Tokens authenticates members against a tokens file, re-reading it when
// it changes: each [Tokens.Authenticate] stats the file (about a
// microsecond) and reloads it when its size, modification time, mode or
// identity (inode, so a rename over it counts) differ from the last load.
//
// # Failing closed
//
// While the file is missing, unreadable, malformed or writable by group or
// others, no token authenticates: a revocation must never be undone by a
// broken edit. The error says what is wrong (Authenticate returns it and
// Logf reports it once per change of the file); serve a 401 without it.
//
// # Owner and mode
//
// Whoever can write the file, or replace it, can make themselves a
// member; so, as OpenSSH's StrictModes for authorized_keys, the file must
// belong to this user or root and be writable by no one else
// ([ErrTokensMode]), and so must every directory on the way to it from /,
// through every symbolic link (a directory with the sticky bit, as /tmp,
// may be writable by all). The refusal names what to fix. These checks run
// when the file is loaded (at start and when it changes) and, while they
// fail, on every call. A file readable by group or others is accepted with
// a warning through Logf: the hashes in it cannot be turned back into
// tokens, and mounted secrets (Kubernetes, Docker) are often 0644.
// [AddToken], [RevokeToken] and [ListTokens] refuse the same files. On
// Windows only that it is a regular file is checked: access control
// lists, not owners and modes, decide who may write there.
type Tokens struct {
	path string
	logf func(format string, args ...any)

	mu      sync.Mutex
	info    fs.FileInfo
	members []loadedMember
	err     error
}

type loadedMember struct {
	name string
	hash [sha256.Size]byte
}

// OpenTokens reads the tokens file at path and returns a Tokens that
// follows it; the returned error is the file's state now (the Tokens is
// usable either way, and recovers when the file is fixed). logf reports
// reloads, warnings and errors; nil means no reports.
func OpenTokens(path string, logf func(format string, args ...any)) (*Tokens, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	t := &Tokens{path: path, logf: logf}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refresh()
	return t, t.err
}

// refresh reloads the file if it changed; the caller holds mu.
func (t *Tokens) refresh() {
	info, err := os.Stat(t.path)
	if err != nil {
		if t.info != nil || t.err == nil || t.err.Error() != ("tokens file: "+err.Error()) {
			t.info, t.members, t.err = nil, nil, fmt.Errorf("tokens file: %w", err)
			t.logf("gateway: %v; no member can authenticate", t.err)
		}
		return
	}
	if t.info != nil && os.SameFile(info, t.info) && info.Size() == t.info.Size() &&
		info.ModTime().Equal(t.info.ModTime()) && info.Mode() == t.info.Mode() {
		return
	}
	if _, err := checkTokensPath(t.path, false); err != nil {
		// Checked again on every call until it passes: fixing a
		// directory does not change the file.
		if t.err == nil || t.err.Error() != err.Error() {
			t.logf("gateway: %v; no member can authenticate", err)
		}
		t.info, t.members, t.err = nil, nil, err
		return
	}
	t.info = info
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o044 != 0 {
		t.logf("gateway: tokens file %s: mode %04o lets group or others read it; chmod 600 %s is safer", t.path, info.Mode().Perm(), t.path)
	}
	data, err := os.ReadFile(t.path)
	var f *tokensFile
	if err == nil {
		f, err = parseTokensFile(t.path, data)
	} else {
		err = fmt.Errorf("tokens file: %w", err)
	}
	if err != nil {
		t.members, t.err = nil, err
		t.logf("gateway: %v; no member can authenticate", err)
		return
	}
	ms := make([]loadedMember, len(f.Members))
	for i, m := range f.Members {
		b, _ := hex.DecodeString(strings.TrimPrefix(m.Hash, "sha256:"))
		ms[i].name = m.Name
		copy(ms[i].hash[:], b)
	}
	t.members, t.err = ms, nil
	noun := "members"
	if len(ms) == 1 {
		noun = "member"
	}
	t.logf("gateway: tokens file %s: %d %s", t.path, len(ms), noun)
}

// Authenticate returns the member whose token the Authorization header
// value carries ("Bearer <token>", scheme in any case); see
// [Tokens.AuthenticateToken].
func (t *Tokens) Authenticate(authorization string) (string, error) {
	if authorization == "" {
		return "", ErrNoToken
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", ErrNotBearer
	}
	return t.AuthenticateToken(token)
}

// AuthenticateToken returns the member whose token this is. It compares
// the token's hash with every member's in constant time, so the time
// taken does not depend on which member (if any) matched.
func (t *Tokens) AuthenticateToken(token string) (string, error) {
	if token == "" {
		return "", ErrNoToken
	}
	h := hashToken(token)
	t.mu.Lock()
	t.refresh()
	members, err := t.members, t.err
	t.mu.Unlock()
	if err != nil {
		return "", err
	}
	found := -1
	for i := range members {
		if subtle.ConstantTimeCompare(h[:], members[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", ErrUnknownToken
	}
	return members[found].name, nil
}
