package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/otlptest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

// withBearer sets a member's token on every request sent through base
// (nil: http.DefaultTransport).
type withBearer struct {
	token string
	base  http.RoundTripper
}

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.base == nil {
		return http.DefaultTransport.RoundTrip(r)
	}
	return b.base.RoundTrip(r)
}

func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--listen", "0.0.0.0:8787"}, "--listen 0.0.0.0:8787 is reachable from other machines and there is no --tokens file"},
		{[]string{"--listen", "8787"}, `--listen "8787": want host:port (127.0.0.1:8787)`},
		{[]string{"--listen", "localhost.:8787"}, "--listen localhost.:8787 is reachable from other machines and there is no --tokens file"},
		{[]string{"--allow-origin", "app.example.com"}, `allowed origin "app.example.com": want scheme://host[:port]`},
		{[]string{"--redis", "http://x"}, "--redis: redis URL: want redis://"},
		{[]string{"--replicas", "0"}, "--replicas is at least 1"},
		{[]string{"--max-conns", "-1"}, "--fetch-rps and --max-conns are 0 (the default) or more"},
		{[]string{"--public-url", "gw.example.com"}, `public URL "gw.example.com": want https://host[:port], the address members reach the gateway at`},
		{[]string{"--public-url", "https://gw.example.com,http://gw2.example.com"}, `public URL "http://gw2.example.com" is plain http: members reach a gateway beyond loopback over https (init --remote refuses plain http), so write https://gw2.example.com`},
		{[]string{"--max-results", "99"}, "--max-results"},
		{[]string{"--oidc-issuer", "https://idp.example.com"}, "--oidc-issuer and --audience go together"},
		{[]string{"--audience", "https://gw.example.com/mcp"}, "--oidc-issuer and --audience go together"},
		{[]string{"--oidc-issuer", "idp.example.com", "--audience", "https://gw.example.com/mcp"}, `--oidc-issuer "idp.example.com": want an absolute http:// or https:// URL`},
		{[]string{"--group-claim", "groups", "--classes", "c.json"}, "--group-claim and --classes apply to members signed in with --oidc-issuer"},
		{[]string{"--oidc-issuer", "https://idp.example.com", "--audience", "https://gw.example.com/mcp", "--group-claim", "groups"}, "--group-claim and --classes go together"},
		{[]string{"--oidc-issuer", "https://idp.example.com", "--audience", "https://gw.example.com/mcp", "--group-claim", "groups", "--classes", "/nonexistent/classes.json"}, "--classes: open /nonexistent/classes.json: no such file or directory"},
		{[]string{"token", "add"}, "serve token needs --tokens FILE"},
		{[]string{"token", "frob", "x", "--tokens", "t.json"}, "serve token: want add NAME, revoke NAME or list"},
	} {
		code, _, errs := runCLI(append([]string{"serve"}, tc.args...)...)
		require.Equal(t, exitUsage, code, "%v: %s", tc.args, errs)
		require.Contains(t, errs, tc.err, tc.args)
	}
}

// DEEPSEEK_WEB_RETRIEVAL_PUBLIC_URL is --public-url, as for every flag.
func TestServePublicURLFromEnv(t *testing.T) {
	t.Setenv("DEEPSEEK_WEB_RETRIEVAL_PUBLIC_URL", "https://gw.example.com/?x")
	code, _, errs := runCLI("serve")
	require.Equal(t, exitUsage, code, errs)
	require.Contains(t, errs, `public URL "https://gw.example.com/?x" has a query or a fragment`)
}

// serve token add prints the token once and keeps its hash; the gateway
// serves the member with it, refuses others, and a signal stops it with
// exit 0.
func TestServeEndToEnd(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", cliKey)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	d := newMock(t)
	d.Fetch = deepseektest.Answer(200, map[string]any{"title": "T", "content": "the page"})
	file := filepath.Join(t.TempDir(), "tokens.json")
	code, token, errs := runCLI("serve", "token", "add", "alice", "--tokens", file)
	require.Equal(t, exitOK, code, errs)
	token = strings.TrimSpace(token)
	require.Regexp(t, `^dwr_[A-Za-z0-9_-]{43}$`, token)
	require.Contains(t, errs, "it is shown once")
	code, list, _ := runCLI("serve", "token", "list", "--tokens", file)
	require.Equal(t, exitOK, code)
	require.Regexp(t, `^alice\t\d{4}-`, list)
	require.NotContains(t, list, token)

	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--tokens", file, "--base-url", d.URL}, &stdout, &stderr)
	}()
	addr := regexp.MustCompile(`at http://(127\.0\.0\.1:\d+)/mcp`)
	require.Eventually(t, func() bool { return addr.MatchString(stderr.String()) }, 10*time.Second, 10*time.Millisecond, stderr.String())
	endpoint := "http://" + addr.FindStringSubmatch(stderr.String())[1] + "/mcp"

	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withBearer{token: token}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": "https://go.dev/"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "the page")
	_ = cs.Close()

	_, err = c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withBearer{token: token + "x"}}, MaxRetries: -1}, nil)
	require.Error(t, err)

	cancel()
	select {
	case code := <-done:
		require.Equal(t, exitOK, code, stderr.String())
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
	require.Contains(t, stdout.String(), `"member":"alice"`)
	require.Contains(t, stderr.String(), "stopping: no new connections")
	// The standard variable turned traces on; serve flushed them on the
	// way out.
	var names []string
	for _, sp := range recv.Spans() {
		names = append(names, sp.Name)
		if sp.Name == "tools/call deepseek_fetch" {
			require.Equal(t, "alice", sp.Attrs["dwr.member"])
		}
	}
	require.ElementsMatch(t, []string{"tools/call deepseek_fetch", "cache", "deepseek deepseek_fetch"}, names)
	// Without Redis, the gateway's request is in the machine's ledger,
	// under the client's name.
	code, usage, errs := runCLI("usage", "--json", "--no-balance", "--by", "host")
	require.Equal(t, exitOK, code, errs)
	var u struct {
		Report struct {
			Rows []struct {
				Key    string
				Billed int
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(usage), &u))
	require.Len(t, u.Report.Rows, 1)
	require.Equal(t, "t", u.Report.Rows[0].Key)
	require.Equal(t, 1, u.Report.Rows[0].Billed)
	for _, out := range []string{stdout.String(), stderr.String()} {
		require.NotContains(t, out, cliKey)
		require.NotContains(t, out, token)
	}
}

// Traces follow the standard OpenTelemetry variables: off unless an OTLP
// endpoint is set, off when disabled, refused for a protocol not built in.
func TestServeTracingFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		on   bool
		err  string
	}{
		{"nothing set", nil, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, ""},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, false, ""},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false,
			"OTEL_EXPORTER_OTLP_PROTOCOL grpc: this build exports traces over http/protobuf only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, stop, err := tracing(context.Background(), func(k string) string { return tc.env[k] }, false)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer stop()
			require.Equal(t, tc.on, tr != nil)
		})
	}
}
