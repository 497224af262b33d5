package core

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testKey looks like a DeepSeek key: "sk-" and 32 hex digits.
const testKey = "sk-0123456789abcdef0123456789abcdef"

// pinnedNow is the clock of every test Env.
var pinnedNow = time.Date(2025, time.March, 4, 5, 6, 7, 0, time.UTC)

// testEnv pins the clock and makes jitter neutral (factor 1).
func testEnv() Env {
	return Env{Now: func() int64 { return pinnedNow.UnixMilli() }, Random: func() float64 { return 0.5 }}
}

func intPtr(n int) *int    { return &n }
func boolPtr(b bool) *bool { return &b }

func mustConfig(t testing.TB, o Options) *Config {
	t.Helper()
	cfg, _, err := NewConfig(o)
	require.NoError(t, err)
	return cfg
}

func okReply(body string) Reply {
	return Reply{Kind: ReplyResponse, Status: 200, Body: []byte(body)}
}

func statusReply(status int, body string, header ...HeaderField) Reply {
	return Reply{Kind: ReplyResponse, Status: status, Body: []byte(body), Header: header}
}

// item is a search result for building bodies; nil fields are left out.
type item struct {
	URL       any `json:"url,omitempty"`
	Title     any `json:"title,omitempty"`
	Snippet   any `json:"snippet,omitempty"`
	Summary   any `json:"summary,omitempty"`
	Content   any `json:"content,omitempty"`
	Rerank    any `json:"rerank_score,omitempty"`
	Authority any `json:"authority,omitempty"`
	Date      any `json:"date,omitempty"`
	SiteName  any `json:"site_name,omitempty"`
}

func resultsBody(t testing.TB, items ...item) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"results": items})
	require.NoError(t, err)
	return string(b)
}

// search runs one search whose first attempt is answered by reply.
func search(t testing.TB, cfg *Config, query string, reply Reply) Step {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindSearch, Query: query, Config: cfg, APIKey: testKey})
	require.False(t, s.Done, "start: %+v", s.Err)
	require.NotNil(t, s.Request)
	s = e.Resume(s.Handle, reply)
	require.True(t, s.Done)
	require.Zero(t, e.InFlight())
	return s
}

// searchHits runs a search answered 200 with body and returns the hits.
func searchHits(t testing.TB, cfg *Config, body string) []Hit {
	t.Helper()
	s := search(t, cfg, "query", okReply(body))
	require.Nil(t, s.Err)
	require.NotNil(t, s.Result)
	require.NotNil(t, s.Result.Search)
	require.Nil(t, s.Result.Fetch)
	return s.Result.Search.Hits
}

func hitURLs(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.URL
	}
	return out
}

// fetch runs one fetch of pageURL whose first attempt is answered by reply.
func fetch(t testing.TB, cfg *Config, pageURL string, reply Reply) Step {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindFetch, URL: pageURL, Config: cfg, APIKey: testKey})
	require.False(t, s.Done, "start: %+v", s.Err)
	s = e.Resume(s.Handle, reply)
	require.True(t, s.Done)
	require.Zero(t, e.InFlight())
	return s
}

func fetchBodyJSON(t testing.TB, title, content string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"title": title, "content": content})
	require.NoError(t, err)
	return string(b)
}

// assertNoKeyPart fails when s holds any three or more consecutive
// characters of testKey: a cut after masking leaves such a part.
func assertNoKeyPart(t testing.TB, s string) {
	t.Helper()
	for n := 3; n <= len(testKey); n++ {
		for i := 0; i+n <= len(testKey); i++ {
			if strings.Contains(s, testKey[i:i+n]) {
				t.Fatalf("%q shows %q, part of the key", s, testKey[i:i+n])
			}
		}
	}
}

func messagesConfig(t testing.TB, o Options) *Config {
	t.Helper()
	o.SearchBackend = BackendMessages
	return mustConfig(t, o)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "messages", name))
	require.NoError(t, err)
	return string(b)
}

// messagesSearch runs one Messages search, answering its requests with
// replies in order, and returns the done step and every request.
func messagesSearch(t testing.TB, cfg *Config, query string, replies ...Reply) (Step, []*Request) {
	t.Helper()
	e := NewEngine(testEnv())
	s := e.Start(Operation{Kind: KindSearch, Query: query, Config: cfg, APIKey: testKey})
	var reqs []*Request
	for _, r := range replies {
		require.False(t, s.Done, "done before every reply was used: %+v", s.Err)
		reqs = append(reqs, s.Request)
		s = e.Resume(s.Handle, r)
	}
	require.True(t, s.Done, "not done after %d replies", len(replies))
	require.Zero(t, e.InFlight())
	return s, reqs
}

// encodings returns the forms of key a server may echo.
func encodings(key string) map[string]string {
	pct, hexu, hexU, hexx, dec, decPadded, hexRef, hexRefUpper, named := "", "", "", "", "", "", "", "", ""
	for i := 0; i < len(key); i++ {
		pct += fmt.Sprintf("%%%02X", key[i])
		hexu += fmt.Sprintf(`\u%04x`, key[i])
		hexU += fmt.Sprintf(`\u%04X`, key[i])
		hexx += fmt.Sprintf(`\x%02x`, key[i])
		dec += fmt.Sprintf("&#%d;", key[i])
		decPadded += fmt.Sprintf("&#%07d;", key[i])
		hexRef += fmt.Sprintf("&#x%x;", key[i])
		hexRefUpper += fmt.Sprintf("&#X%04X;", key[i])
		switch key[i] {
		case '.':
			named += "&period;"
		case '_':
			named += "&lowbar;"
		case '+':
			named += "&plus;"
		case '/':
			named += "&sol;"
		case '=':
			named += "&equals;"
		case ':':
			named += "&colon;"
		default:
			named += key[i : i+1]
		}
	}
	mixed := []byte(key)
	for i := range mixed {
		if i%2 == 0 {
			mixed[i] = strings.ToUpper(key[i : i+1])[0]
		}
	}
	return map[string]string{
		"as is":                             key,
		"JSON-escaped slash":                strings.ReplaceAll(key, "/", `\/`),
		"percent-encoded":                   pct,
		"percent-encoded, lower":            strings.ToLower(pct),
		"query-escaped":                     url.QueryEscape(key),
		"first letter encoded":              "%73" + key[1:],
		"u-escaped":                         hexu,
		"u-escaped, upper hex":              hexU,
		"x-escaped":                         hexx,
		"base64":                            base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 unpadded":                   base64.RawStdEncoding.EncodeToString([]byte(key)),
		"base64url":                         base64.URLEncoding.EncodeToString([]byte(key)),
		"base64url unpadded":                base64.RawURLEncoding.EncodeToString([]byte(key)),
		"basic auth, offset 1":              base64.StdEncoding.EncodeToString([]byte("u:" + key)),
		"basic auth, offset 2":              base64.StdEncoding.EncodeToString([]byte("us:" + key)),
		"basic auth, offset 0":              base64.StdEncoding.EncodeToString([]byte("usr:" + key)),
		"base64url after a prefix":          base64.RawURLEncoding.EncodeToString([]byte("token=" + key)),
		"base64 of the key upper-cased":     base64.StdEncoding.EncodeToString([]byte(strings.ToUpper(key))),
		"base64url of the key lower-cased":  base64.RawURLEncoding.EncodeToString([]byte(strings.ToLower(key))),
		"basic auth of the key upper-cased": base64.StdEncoding.EncodeToString([]byte("u:" + strings.ToUpper(key))),
		"hex":                               hex.EncodeToString([]byte(key)),
		"hex, upper":                        strings.ToUpper(hex.EncodeToString([]byte(key))),
		"hex of the key upper-cased":        hex.EncodeToString([]byte(strings.ToUpper(key))),
		"upper case":                        strings.ToUpper(key),
		"lower case":                        strings.ToLower(key),
		"mixed case":                        string(mixed),
		"HTML decimal":                      dec,
		"HTML decimal, zero-padded":         decPadded,
		"HTML hex":                          hexRef,
		"HTML hex, upper":                   hexRefUpper,
		"HTML named":                        named,
		"percent-encoded upper case":        url.PathEscape(strings.ToUpper(key)),
	}
}

// pn ends the message of a URL refused for a private or local host.
const pn = "; private and local addresses never leave this machine"

// checkedURL is CheckFetchURL with the URL to send parsed by net/url: the
// shape the tests had when CheckFetchURL returned a *url.URL, and a check
// that net/url reads every URL sent.
func checkedURL(raw string, allowed, blocked []string) (*url.URL, error) {
	send, err := CheckFetchURL(raw, allowed, blocked)
	if err != nil {
		if send != "" {
			return &url.URL{Opaque: send}, err
		}
		return nil, err
	}
	u, err := url.Parse(send)
	if err != nil {
		return nil, fmt.Errorf("net/url cannot read the URL sent %q: %w", send, err)
	}
	return u, nil
}

// insideURLs are result URLs that point inside the network or carry
// credentials: the fetch URL policy refuses each, so no backend passes one on.
var insideURLs = []string{
	"http://169.254.169.254/latest/meta-data/iam/security-credentials/",
	"http://127.0.0.1:8080/admin",
	"http://2130706433/x",
	"http://[::1]/x",
	"https://[fd12:3456::1]/x",
	"https://[::ffff:10.0.0.1]/x",
	"http://10.0.0.5/x",
	"http://192.168.1.1/",
	"https://user:pass@example.com/secret",
	"https://token@example.com/",
	"http://localhost/x",
	"http://metadata.google.internal/computeMetadata/v1/",
	"http://printer.local/",
	"http://intranet/",
}
