package main

// The reverse-proxy examples of docs/gateway.md are the configurations this test runs: nginx and
// Caddy from Debian's packages, each in front of two real serve replicas on loopback (the
// proxy on the gateway's machine), with only mechanical substitutions (upstream addresses,
// the listen port, a self-signed certificate, the test's own files). Members' calls through
// the proxy succeed; a rebinding Host is still refused.

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/syncbuf"
)

// publicHost is the name in the examples of docs/gateway.md, the one members connect to.
const publicHost = "gw.example.com"

// proxyCase is one example: where it is, and how to run it.
type proxyCase struct {
	name string
	// config returns the example's text from the repository.
	config func(t *testing.T) string
	// start runs the proxy on the example, substituted, at port (0: a free
	// one) and returns its port.
	start func(t *testing.T, example string, upstreams [2]string, cert, key string, port int) int
	// passesAnyHost: the proxy sends a request for any Host on to the replicas (nginx's
	// only server is its default); Caddy answers only its site's name itself.
	passesAnyHost bool
}

func TestReadmeProxyExamples(t *testing.T) {
	for _, pc := range []proxyCase{
		{"nginx, docs/gateway.md", func(t *testing.T) string { return readmeBlock(t, "nginx") }, startNginx, true},
		{"Caddy, docs/gateway.md", func(t *testing.T) string { return readmeBlock(t, "caddyfile") }, startCaddy, false},
		{"Caddy, deploy/Caddyfile", deployCaddyfile, startCaddy, false},
	} {
		t.Run(pc.name, func(t *testing.T) {
			t.Setenv("DEEPSEEK_API_KEY", cliKey)
			d := newMock(t)
			d.Fetch = deepseektest.Answer(200, fetchAnswer)
			tokens := filepath.Join(t.TempDir(), "tokens.json")
			code, token, errs := runCLI("serve", "token", "add", "alice", "--tokens", tokens)
			require.Equal(t, exitOK, code, errs)
			token = strings.TrimSpace(token)
			var upstreams [2]string
			for i := range upstreams {
				upstreams[i] = startReplica(t, "--tokens", tokens, "--base-url", d.URL, "--audit", "off", "--public-url", "https://"+publicHost)
			}
			dir := t.TempDir()
			cert, key, pool := selfSigned(t, dir, publicHost)
			port := pc.start(t, pc.config(t), upstreams, cert, key, 0)
			client := proxyClient(pool, port)

			// Members' calls through the proxy reach the tools, on both replicas.
			c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
			endpoint := fmt.Sprintf("https://%s:%d/mcp", publicHost, port)
			cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withBearer{token, client}}, MaxRetries: -1}, nil)
			require.NoError(t, err, "connecting through %s", pc.name)
			defer cs.Close()
			for i := range 4 {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": fmt.Sprintf("https://go.dev/%d", i)}})
				require.NoError(t, err)
				require.False(t, res.IsError, "%+v", res.Content)
				require.Contains(t, res.Content[0].(*sdk.TextContent).Text, "Effective Go is a guide.")
			}
			for _, u := range upstreams {
				require.Regexp(t, `dwr_calls_total\{tool="deepseek_fetch",outcome="ok"\} [1-9]`, metricsOf(t, u), "replica %s served no call", u)
			}

			// A page that rebinds its own name to this machine gets no further than 403,
			// through the proxy or straight to a replica.
			code, body := postThrough(t, client, port, "evil.example", token)
			if pc.passesAnyHost {
				require.Equal(t, http.StatusForbidden, code, body)
				require.Equal(t, "Forbidden: invalid Host header \"evil.example\"\n", body)
			} else {
				require.Empty(t, body, "Caddy answers a name it does not serve with nothing")
			}
			for _, u := range upstreams {
				code, body := postThrough(t, http.DefaultTransport.(*http.Transport), 0, "evil.example", token, "http://"+u)
				require.Equal(t, http.StatusForbidden, code, body)
			}
			refused := 0
			for _, u := range upstreams {
				m := regexp.MustCompile(`dwr_calls_total\{tool="",outcome="forbidden_host"\} (\d+)`).FindStringSubmatch(metricsOf(t, u))
				require.NotNil(t, m, "replica %s counted no refused Host", u)
				n, _ := strconv.Atoi(m[1])
				refused += n
			}
			want := 2 // the two straight to the replicas
			if pc.passesAnyHost {
				want++
			}
			require.Equal(t, want, refused, "Host refusals the replicas counted")
		})
	}
}

// readmeBlock is the fenced block of language lang in docs/gateway.md's section "TLS,
// behind a reverse proxy".
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "gateway.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## TLS, behind a reverse proxy\n")
	require.True(t, ok, `docs/gateway.md has no section "TLS, behind a reverse proxy"`)
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```"+lang+"\n")
	require.True(t, ok, "docs/gateway.md's proxy section has no ```%s block", lang)
	block, _, ok = strings.Cut(block, "\n```\n")
	require.True(t, ok, "docs/gateway.md's ```%s block does not end", lang)
	return block + "\n"
}

// deployCaddyfile is deploy/Caddyfile, with the Compose services' names replaced by
// the replicas of docs/gateway.md, as docs/gateway.md says it is.
func deployCaddyfile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../deploy/Caddyfile")
	require.NoError(t, err)
	return substitute(t, "deploy/Caddyfile", string(b),
		"{$GATEWAY_HOST:localhost} {", publicHost+" {",
		"gateway-1:8787 gateway-2:8787", "10.0.0.11:8787 10.0.0.12:8787")
}

// substitute replaces each old with its new in text, each exactly once: an example that
// changed shape fails here, naming what is missing.
func substitute(t *testing.T, what, text string, oldNew ...string) string {
	t.Helper()
	for i := 0; i < len(oldNew); i += 2 {
		require.Equal(t, 1, strings.Count(text, oldNew[i]), "%s: want exactly one %q to replace (update proxy_test.go with the example)", what, oldNew[i])
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	return text
}

// upstreamSubs replaces the replica addresses of docs/gateway.md with the test's.
func upstreamSubs(upstreams [2]string) []string {
	return []string{"10.0.0.11:8787", upstreams[0], "10.0.0.12:8787", upstreams[1]}
}

// proxyBinary finds a reverse proxy; a missing one fails the test, which CI installs
// (.ci/run).
func proxyBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	t.Fatalf("%s is not installed: the proxy examples of docs/gateway.md run under it. Install it (Debian: apt-get install %s; .ci/run does)", name, pkg)
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func startNginx(t *testing.T, example string, upstreams [2]string, cert, key string, port int) int {
	bin := proxyBinary(t, "nginx", "nginx-light")
	dir := t.TempDir()
	if port == 0 {
		port = freePort(t)
	}
	site := substitute(t, "docs/gateway.md's nginx example", example, append(upstreamSubs(upstreams),
		"listen 443 ssl;", fmt.Sprintf("listen 127.0.0.1:%d ssl;", port),
		"/etc/letsencrypt/live/gw.example.com/fullchain.pem", cert,
		"/etc/letsencrypt/live/gw.example.com/privkey.pem", key)...)
	// The example goes in the http block of a configuration of the test's own: a single
	// process in the foreground, every file in dir. Temporary paths of modules built in
	// are set too, or nginx would create them under /var/lib/nginx.
	v, _ := exec.Command(bin, "-V").CombinedOutput()
	var temps strings.Builder
	for _, m := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if m == "client_body" || m == "proxy" || !strings.Contains(string(v), "--without-http_"+m+"_module") {
			fmt.Fprintf(&temps, "    %s_temp_path %s;\n", m, filepath.Join(dir, m))
		}
	}
	conf := fmt.Sprintf("daemon off;\nmaster_process off;\npid %s;\nerror_log %s info;\nevents {\n    worker_connections 256;\n}\nhttp {\n    access_log %s;\n%s%s}\n",
		filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"), filepath.Join(dir, "access.log"), temps.String(), site)
	file := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(file, []byte(conf), 0o600))
	args := []string{"-p", dir, "-c", file, "-e", filepath.Join(dir, "error.log")}
	if out, err := exec.Command(bin, append(args, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t refuses the example of docs/gateway.md: %v\n%s\n%s", err, out, conf)
	}
	runProxy(t, exec.Command(bin, args...), port, filepath.Join(dir, "error.log"))
	return port
}

func startCaddy(t *testing.T, example string, upstreams [2]string, cert, key string, port int) int {
	bin := proxyBinary(t, "caddy", "caddy")
	dir := t.TempDir()
	if port == 0 {
		port = freePort(t)
	}
	site := substitute(t, "the Caddy example", example, append(upstreamSubs(upstreams),
		publicHost+" {", fmt.Sprintf("%s:%d {\n\ttls %s %s", publicHost, port, cert, key))...)
	// Global options of the test's own: no admin endpoint, no port 80, loopback only, and
	// Caddy's files in dir.
	conf := fmt.Sprintf("{\n\tadmin off\n\thttp_port %d\n\tdefault_bind 127.0.0.1\n\tauto_https disable_redirects\n\tstorage file_system %s\n}\n\n%s",
		freePort(t), filepath.Join(dir, "data"), site)
	file := filepath.Join(dir, "Caddyfile")
	require.NoError(t, os.WriteFile(file, []byte(conf), 0o600))
	cmd := exec.Command(bin, "run", "--config", file, "--adapter", "caddyfile")
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"), "PATH=" + os.Getenv("PATH")}
	runProxy(t, cmd, port, "")
	return port
}

// runProxy starts cmd, waits until it accepts on port, and kills it when the test ends.
func runProxy(t *testing.T, cmd *exec.Cmd, port int, logFile string) {
	t.Helper()
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Killed: nothing of the proxy's outlives the test, and Caddy's graceful stop
		// takes seconds.
		_ = cmd.Process.Kill()
		<-exited
	})
	logs := func() string {
		s := out.String()
		if logFile != "" {
			b, _ := os.ReadFile(logFile)
			s += string(b)
		}
		return s
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("%s exited before it served: %s", filepath.Base(cmd.Path), logs())
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not accept on port %d after 20 s: %s", filepath.Base(cmd.Path), port, logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startReplica runs the built binary's serve on a free loopback port and returns
// host:port; it is stopped when the test ends.
func startReplica(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(cliBin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = baseEnv(t)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var lines syncbuf.Buffer
	addr := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		at := regexp.MustCompile(`at http://(127\.0\.0\.1:\d+)/mcp`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&lines, sc.Text())
			if m := at.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		require.NotContains(t, lines.String(), cliKey)
	})
	select {
	case a := <-addr:
		return a
	case <-exited:
		t.Fatalf("serve exited before it served: %s", lines.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not say where it serves within 20 s: %s", lines.String())
	}
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// selfSigned writes a certificate for host and its key to dir, and returns their paths
// and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir, host string) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: host},
		DNSNames:              []string{host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	parsed, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(parsed)
	return cert, key, pool
}

// proxyClient reaches publicHost at the proxy's loopback port, as a member whose DNS
// names the proxy would, trusting the test's certificate.
func proxyClient(pool *x509.CertPool, port int) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", port))
		},
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: publicHost},
		Proxy:           nil,
	}
}

// postThrough sends an MCP initialize through the proxy at port with the Host header
// host (TLS still names publicHost), or to base when given: the status and body.
func postThrough(t *testing.T, client *http.Transport, port int, host, token string, base ...string) (int, string) {
	t.Helper()
	url := fmt.Sprintf("https://%s:%d", publicHost, port)
	if len(base) > 0 {
		url = base[0]
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricsOf is a replica's /metrics.
func metricsOf(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
