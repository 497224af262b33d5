package mcphosts

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

const gateway = "https://gw.example.com/mcp"

func (f *fixture) remoteReq(h Host, scope install.Scope, o install.Options) request {
	r := f.req(h, scope, o)
	r.Binary, r.Remote = "", &install.Remote{URL: gateway, TokenEnv: "TEAM_TOKEN"}
	return r
}

// init --remote writes each host's remote entry, the token by reference
// in the host's own syntax; a second init is a no-op; uninstall gives back
// every byte. Each case starts from a config the user already had.
func TestRemoteEntries(t *testing.T) {
	cases := []struct {
		host   Host
		file   string // under HOME
		before string
		want   string
	}{
		{Codex, ".codex/config.toml", "model = \"o3\"\n",
			"model = \"o3\"\n\n[mcp_servers.deepseek-web-retrieval]\nurl = \"https://gw.example.com/mcp\"\nbearer_token_env_var = \"TEAM_TOKEN\"\n"},
		{Claude, ".claude.json", "{\n  \"numStartups\": 3\n}\n",
			"{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN:-}\"\n      }\n    }\n  }\n}\n"},
		{Gemini, ".gemini/settings.json", "{\n  \"theme\": \"GitHub\"\n}\n",
			"{\n  \"theme\": \"GitHub\",\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"httpUrl\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TEAM_TOKEN}\"\n      }\n    }\n  }\n}\n"},
		{OpenCode, ".config/opencode/opencode.jsonc", "{\n  // mine\n  \"theme\": \"opencode\"\n}\n",
			"{\n  // mine\n  \"theme\": \"opencode\",\n  \"mcp\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"remote\",\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer {env:TEAM_TOKEN}\"\n      },\n      \"oauth\": false,\n      \"enabled\": true\n    }\n  }\n}\n"},
		{Cursor, ".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n",
			"{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"url\": \"https://gw.example.com/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${env:TEAM_TOKEN}\"\n      }\n    }\n  }\n}\n"},
	}
	for _, tc := range cases {
		t.Run(string(tc.host), func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(f.env.Home, filepath.FromSlash(tc.file))
			f.write(path, tc.before)
			before := f.tree()
			req := f.remoteReq(tc.host, install.ScopeGlobal, install.Options{})
			p, err := planInit(req)
			require.NoError(t, err)
			text := f.render(p, false)
			require.Contains(t, text, "sends your gateway token from the TEAM_TOKEN environment variable")
			require.NotContains(t, text, "DEEPSEEK_API_KEY")
			require.Empty(t, install.Secrets(path, []byte(tc.want)), "the entry holds no credential, so the record keeps its patch")
			require.NoError(t, p.Apply())
			require.Equal(t, tc.want, f.read(path))

			again, err := planInit(req)
			require.NoError(t, err)
			require.True(t, again.Empty(), f.render(again, false))

			u, err := planUninstall(f.req(tc.host, install.ScopeGlobal, install.Options{}))
			require.NoError(t, err)
			require.Contains(t, f.render(u, false), "The gateway token was never written by init; if nothing else uses TEAM_TOKEN, remove its export")
			f.apply(u, nil)
			require.Equal(t, before, f.tree())
		})
	}
}

// A local entry turned into a remote one (and back) is one entry, and
// uninstall still gives back the original bytes.
func TestLocalToRemote(t *testing.T) {
	for _, h := range []Host{Codex, Claude, Gemini, Cursor, Copilot} {
		t.Run(string(h), func(t *testing.T) {
			f := newFixture(t)
			before := f.tree()
			f.apply(planInit(f.req(h, install.ScopeGlobal, install.Options{Search: "forced"})))
			p := f.apply(planInit(f.remoteReq(h, install.ScopeGlobal, install.Options{Search: "forced"})))
			require.Contains(t, f.render(p, true), "instead")
			f.apply(planInit(f.req(h, install.ScopeGlobal, install.Options{})))
			f.apply(planUninstall(f.req(h, install.ScopeGlobal, install.Options{})))
			require.Equal(t, before, f.tree())
		})
	}
}

func TestRemoteRefusals(t *testing.T) {
	f := newFixture(t)
	_, err := planInit(f.remoteReq(Pi, install.ScopeGlobal, install.Options{}))
	require.EqualError(t, err, "Pi (pi-mcp-adapter mcp.json) cannot connect to a team gateway (--remote): it starts MCP servers only as commands")
	_, err = planInit(f.remoteReq(Codex, install.ScopeGlobal, install.Options{MaxResults: new(5)}))
	require.EqualError(t, err, "--max-results is the gateway's setting: with --remote, only --search and --fetch (which turn the host's built-in tools off) apply here; pass the rest to `deepseek-web-retrieval serve`")
	_, err = planInit(f.remoteReq(Codex, install.ScopeGlobal, install.Options{APIKeyEnv: "MY_KEY"}))
	require.EqualError(t, err, "--api-key-env is the gateway's setting: with --remote, only --search and --fetch (which turn the host's built-in tools off) apply here; pass the rest to `deepseek-web-retrieval serve`")
	// The tiers stay the host's: forced turns the built-in off beside the remote entry.
	p, err := planInit(f.remoteReq(Gemini, install.ScopeGlobal, install.Options{Search: "forced"}))
	require.NoError(t, err)
	require.NoError(t, p.Apply())
	require.Contains(t, f.read(filepath.Join(f.env.Home, ".gemini", "settings.json")), "google_web_search")
}

// gatewayStub is a streamable HTTP MCP server with two tools that wants
// "Bearer <token>", as `serve` does.
func gatewayStub(t *testing.T, token string) *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "stub-gateway", Version: "9.9.9"}, nil)
	for _, name := range []string{"deepseek_search", "deepseek_fetch"} {
		s.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// doctor connects to a gateway entry as the host would, with the token
// from the shell, and says why not when it cannot; the token is in no line.
func TestDoctorRemote(t *testing.T) {
	const token = "dwr_Zq8Xv3Lp0Rt7Yw2Mn5Bc9Kd4Fg6Hj1S"
	srv := gatewayStub(t, token)
	for _, h := range []Host{Codex, Claude, Gemini, Cursor, Copilot, OpenCode} {
		t.Run(string(h), func(t *testing.T) {
			f := newFixture(t)
			req := f.req(h, install.ScopeGlobal, install.Options{})
			req.Binary, req.Remote = "", &install.Remote{URL: srv.URL + "/mcp", TokenEnv: "TEAM_TOKEN"}
			f.apply(planInit(req))
			check := func(environ []string) check {
				c := doctor(context.Background(), f.req(h, install.ScopeGlobal, install.Options{}), environ)
				all := strings.Join(append(append(c.Lines, c.Problems...), c.Traps...), "\n")
				require.NotContains(t, all, token)
				require.NotContains(t, all, token[4:20])
				return c
			}
			c := check([]string{"TEAM_TOKEN=" + token})
			require.Empty(t, c.Problems)
			require.Empty(t, c.Traps)
			require.Equal(t, []string{
				"entry present in " + c.File,
				"connects to the gateway " + srv.URL + "/mcp",
				"TEAM_TOKEN is set (value not shown)",
				"connected, 2 tools (deepseek_fetch, deepseek_search)",
				"the gateway's version: 9.9.9",
			}, c.Lines)

			c = check(nil)
			require.Equal(t, []string{"TEAM_TOKEN is not set in this shell, so " + names[h] + " connects without a token and the gateway refuses it: export the token `serve token add` printed for you"}, c.Traps)
			require.Equal(t, []string{"does not connect: the gateway refused the token (401 Unauthorized): check the token in your environment, or ask for a new one (`serve token add`)"}, c.Problems)

			c = check([]string{"TEAM_TOKEN=" + token[:len(token)-1] + "x"})
			require.Equal(t, []string{"does not connect: the gateway refused the token (401 Unauthorized): check the token in your environment, or ask for a new one (`serve token add`)"}, c.Problems)
		})
	}
}

// init --remote --sign-in: Claude Code, VS Code and Codex get an entry with
// no token, which they sign in to themselves; another host keeps its token
// entry and says why. Uninstall gives back every byte.
func TestRemoteSignIn(t *testing.T) {
	cases := []struct {
		host Host
		file string // under HOME
		want string
	}{
		{Codex, ".codex/config.toml", "[mcp_servers.deepseek-web-retrieval]\nurl = \"https://gw.example.com/mcp\"\n"},
		{Claude, ".claude.json", "{\n  \"mcpServers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\"\n    }\n  }\n}\n"},
		{VSCode, ".config/Code/User/mcp.json", "{\n  \"servers\": {\n    \"deepseek-web-retrieval\": {\n      \"type\": \"http\",\n      \"url\": \"https://gw.example.com/mcp\"\n    }\n  }\n}\n"},
	}
	for _, tc := range cases {
		t.Run(string(tc.host), func(t *testing.T) {
			f := newFixture(t)
			if tc.host == VSCode {
				f.write(filepath.Join(f.env.Home, ".config", "Code", "User", "settings.json"), "{}\n")
			}
			before := f.tree()
			req := f.remoteReq(tc.host, install.ScopeGlobal, install.Options{})
			req.Remote.SignIn = true
			p, err := planInit(req)
			require.NoError(t, err)
			text := f.render(p, false)
			require.Contains(t, text, names[tc.host]+" signs you in to the gateway through your organisation's identity provider; init writes\nno token anywhere")
			require.NotContains(t, text, "TEAM_TOKEN")
			require.NoError(t, p.Apply())
			got := f.read(filepath.Join(f.env.Home, filepath.FromSlash(tc.file)))
			require.True(t, strings.HasSuffix(got, tc.want), got)
			u, err := planUninstall(f.req(tc.host, install.ScopeGlobal, install.Options{}))
			require.NoError(t, err)
			require.Contains(t, f.render(u, false), names[tc.host]+" keeps the sign-in to the gateway itself")
			f.apply(u, nil)
			require.Equal(t, before, f.tree())
		})
	}
	t.Run("a host that cannot sign in", func(t *testing.T) {
		f := newFixture(t)
		req := f.remoteReq(Gemini, install.ScopeGlobal, install.Options{})
		req.Remote.SignIn = true
		p, err := planInit(req)
		require.NoError(t, err)
		text := f.render(p, false)
		require.Contains(t, text, "Gemini CLI cannot sign in through an identity provider itself: its entry sends a member token from $TEAM_TOKEN")
		require.Contains(t, text, "sends your gateway token from the TEAM_TOKEN environment variable")
	})
}

// doctor cannot sign in for the host: it checks that the gateway offers
// sign-in (its protected-resource metadata names a provider), and says
// what to do when it does not.
func TestDoctorSignIn(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"resource":"x","authorization_servers":["https://idp.example.com"]}`))
	})
	withMeta := httptest.NewServer(mux)
	t.Cleanup(withMeta.Close)
	without := gatewayStub(t, "dwr_x")
	for _, tc := range []struct {
		srv  *httptest.Server
		line string
		bad  string
	}{
		{withMeta, "the gateway names the identity provider https://idp.example.com", ""},
		{without, "", "the gateway offers no sign-in (" + without.URL + "/.well-known/oauth-protected-resource/mcp answered HTTP 401): if it takes member tokens only, run `deepseek-web-retrieval init --host claude --remote " + without.URL + "/mcp --token-env DEEPSEEK_WEB_RETRIEVAL_TOKEN --yes`"},
	} {
		f := newFixture(t)
		req := f.req(Claude, install.ScopeGlobal, install.Options{})
		req.Binary, req.Remote = "", &install.Remote{URL: tc.srv.URL + "/mcp", TokenEnv: "TEAM_TOKEN", SignIn: true}
		f.apply(planInit(req))
		c := doctor(context.Background(), f.req(Claude, install.ScopeGlobal, install.Options{}), nil)
		require.Contains(t, c.Lines, "Claude Code signs in to it through your organisation's identity provider (the entry holds no token)")
		if tc.line != "" {
			require.Contains(t, c.Lines, tc.line)
			require.Empty(t, c.Problems)
		} else {
			require.Equal(t, []string{tc.bad}, c.Problems)
		}
	}
}
