package mcphosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// probeTimeout bounds a probe's exchange: start, initialize and tools/list
// together. Codex gives a server 10 s to start and list its tools too.
var probeTimeout = 10 * time.Second

// probeTerminate is how long closing waits for the server to exit after
// its stdin closes, then after SIGTERM, before SIGKILL.
var probeTerminate = 2 * time.Second

// probeProtocol is the version the probe's initialize asks for: one every
// host here speaks and our server negotiates.
const probeProtocol = "2025-06-18"

// probeResult is what starting an entry's server found.
type probeResult struct {
	// Tools are the names tools/list returned, in its order; nil when the
	// exchange failed.
	Tools []string
	// Version is the version the server gave in its initialize answer.
	Version string
	// Err says why the server did not connect, in a sentence with no
	// secret in it ("command not found: /path"); empty when it connected
	// and listed at least one tool.
	Err string
}

// Connected reports whether the server answered and listed tools.
func (r probeResult) Connected() bool { return r.Err == "" }

// String is "connected, 2 tools (a, b)" or the reason.
func (r probeResult) String() string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("connected, %d tool%s (%s)", len(r.Tools), plural(len(r.Tools)), strings.Join(r.Tools, ", "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// probeEntry starts l's server exactly as its host would and speaks MCP over
// stdio: initialize, notifications/initialized, tools/list, then closes
// its stdin (and signals it if it does not exit). It calls no tool, so the
// server never reaches DeepSeek. Every value in secrets is masked in the
// result, as is anything shaped like a credential.
func probeEntry(ctx context.Context, l launchSpec, secrets []string) probeResult {
	res := probe(ctx, l)
	res.Err = redact(res.Err, secrets)
	res.Version = redact(res.Version, secrets)
	for i, t := range res.Tools {
		res.Tools[i] = redact(t, secrets)
	}
	return res
}

func probe(ctx context.Context, l launchSpec) probeResult {
	path, err := findCommand(l.Command, l.Env)
	if err != nil {
		return probeResult{Err: err.Error()}
	}
	cmd := &exec.Cmd{Path: path, Args: append([]string{l.Command}, l.Args...), Env: l.Env, Dir: l.Dir}
	stderr := &headBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	// A server that leaves a child holding stderr open must not hold the
	// probe past its exit.
	cmd.WaitDelay = probeTerminate
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: install.Name + "-doctor", Version: core.Version}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: probeTerminate}, &sdk.ClientSessionOptions{ProtocolVersion: probeProtocol})
	if err != nil {
		return probeResult{Err: failure(ctx, cmd, stderr, "initialize", err)}
	}
	var version string
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		version = ir.ServerInfo.Version
	}
	list, err := cs.ListTools(ctx, nil)
	_ = cs.Close() // waits for the server to exit, so failure sees how
	if err != nil {
		return probeResult{Err: failure(ctx, cmd, stderr, "tools/list", err)}
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return probeResult{Tools: []string{}, Err: "tools/list returned 0 tools"}
	}
	return probeResult{Tools: names, Version: version}
}

// failure says why the exchange stopped at step.
func failure(ctx context.Context, cmd *exec.Cmd, stderr *headBuffer, step string, err error) string {
	if cmd.Process == nil {
		var ee *exec.Error
		if errors.As(err, &ee) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return "cannot start " + cmd.Path + ": " + rootCause(err)
		}
		return "cannot start " + cmd.Path + ": " + err.Error()
	}
	line := stderr.firstLine()
	if ctx.Err() != nil {
		msg := fmt.Sprintf("no answer to %s within %s", step, probeTimeout)
		if line != "" {
			msg += "; its stderr began: " + line
		}
		return msg
	}
	// It ended by itself: with a status, or by a signal other than those
	// closing sends when it is still running after the exchange failed.
	st := cmd.ProcessState
	ws, _ := sysStatus(st)
	if st != nil && (st.Exited() || ws.Signaled() && ws.Signal() != syscall.SIGTERM && ws.Signal() != syscall.SIGKILL) {
		msg := fmt.Sprintf("exited with status %d", st.ExitCode())
		if !st.Exited() {
			msg = fmt.Sprintf("killed by a signal (%s)", ws.Signal())
		}
		if line != "" {
			return msg + ": " + line
		}
		return msg + " before answering " + step + ", with nothing on stderr"
	}
	msg := step + " failed: " + err.Error()
	if line != "" {
		msg += "; its stderr began: " + line
	}
	return msg
}

func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// findCommand resolves the command the way the host's spawn does: a name
// with a slash as is, a bare name on the PATH of the server's environment.
func findCommand(name string, env []string) (string, error) {
	check := func(p string) error {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("command not found: %s", p)
		case err != nil:
			return fmt.Errorf("cannot start %s: %v", p, rootCause(err))
		case fi.IsDir():
			return fmt.Errorf("cannot start %s: it is a directory", p)
		case fi.Mode().Perm()&0o111 == 0:
			return fmt.Errorf("cannot start %s: not executable", p)
		}
		return nil
	}
	if strings.ContainsRune(name, '/') || filepath.IsAbs(name) {
		return name, check(name)
	}
	pathVar, _ := launchSpec{Env: env}.lookup("PATH")
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if check(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("command not found: %s (not on the PATH the host passes: %s)", name, pathVar)
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.b.Len(); room > 0 {
		h.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// firstLine is the first non-blank line, at most 300 bytes.
func (h *headBuffer) firstLine() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, line := range strings.Split(h.b.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 300 {
				line = strings.ToValidUTF8(line[:300], "") + "…"
			}
			return line
		}
	}
	return ""
}

// redact masks each secret (in every form core's Redactor knows) and any
// word shaped like a credential.
func redact(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = core.NewRedactor(k).Mask(s)
		}
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\"'`,;()[]{}<>", r) })
	for _, w := range words {
		if install.LooksSecret(w) {
			s = strings.ReplaceAll(s, w, "[redacted]")
		}
	}
	return s
}

func sysStatus(st *os.ProcessState) (syscall.WaitStatus, bool) {
	var ws syscall.WaitStatus
	if st == nil {
		return ws, false
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ws, ok
}

// probeRemote connects to a gateway's streamable HTTP endpoint as a host
// would, sending authorization (the Authorization header's value, "" for
// none) with every request: initialize, tools/list, then it closes the
// session. It calls no tool. Every value in secrets is masked in the
// result.
func probeRemote(ctx context.Context, endpoint, authorization string, secrets []string) probeResult {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	rt := &withHeader{base: http.DefaultTransport, name: "Authorization", value: authorization}
	hc := &http.Client{Transport: rt}
	client := sdk.NewClient(&sdk.Implementation{Name: install.Name + "-doctor", Version: core.Version}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	res := func() probeResult {
		cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: probeProtocol})
		if err != nil {
			return probeResult{Err: remoteFailure(ctx, rt.refused(), "initialize", err)}
		}
		defer cs.Close()
		var version string
		if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
			version = ir.ServerInfo.Version
		}
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			return probeResult{Err: remoteFailure(ctx, rt.refused(), "tools/list", err)}
		}
		names := []string{}
		for _, t := range list.Tools {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return probeResult{Tools: names, Err: "tools/list returned 0 tools"}
		}
		return probeResult{Tools: names, Version: version}
	}()
	res.Err = redact(res.Err, append(secrets, authorization))
	return res
}

// remoteFailure says why the exchange with a gateway stopped at step;
// status is the HTTP status of a refused request (0 when none was).
func remoteFailure(ctx context.Context, status int, step string, err error) string {
	switch {
	case status == http.StatusUnauthorized:
		return "the gateway refused the token (401 Unauthorized): check the token in your environment, or ask for a new one (`serve token add`)"
	case status != 0:
		return fmt.Sprintf("the gateway answered %s with %d %s", step, status, http.StatusText(status))
	case ctx.Err() != nil:
		return fmt.Sprintf("no answer to %s within %s", step, probeTimeout)
	}
	return step + " failed: " + err.Error()
}

// withHeader sets one header on every request it sends, and keeps the
// status of the last response that refused one (4xx or 5xx).
type withHeader struct {
	base        http.RoundTripper
	name, value string
	mu          sync.Mutex
	status      int
}

func (w *withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if w.value != "" {
		r = r.Clone(r.Context())
		r.Header.Set(w.name, w.value)
	}
	resp, err := w.base.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		w.mu.Lock()
		w.status = resp.StatusCode
		w.mu.Unlock()
	}
	return resp, err
}

func (w *withHeader) refused() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status
}

// signInIssuer reads the protected-resource metadata (RFC 9728) of the
// gateway at endpoint and returns the identity provider it names.
func signInIssuer(ctx context.Context, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	meta := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, meta, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %v", meta, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered HTTP %d", meta, resp.StatusCode)
	}
	var m struct {
		Servers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil || len(m.Servers) == 0 {
		return "", fmt.Errorf("%s names no authorization server", meta)
	}
	return m.Servers[0], nil
}
