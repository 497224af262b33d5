package mcphosts

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Hosts returns the MCP hosts (Codex, Claude Code, Gemini CLI, Pi,
// Cursor, then the hosts register adds) as install.Host values, in the
// order plans are made and shown.
func Hosts() []install.Host {
	out := make([]install.Host, len(all))
	for i, h := range all {
		out[i] = mcpHost{h}
	}
	return out
}

// Gateway returns OpenCode's gateway entry (init --remote, under the
// config's "mcp" key) as an install.Host. Without --remote, OpenCode is
// internal/install/opencodehost's: the plugin.
func Gateway() install.Host { return mcpHost{OpenCode} }

// mcpHost is one MCP host behind the install.Host interface.
type mcpHost struct{ h Host }

func (m mcpHost) req(r install.Request) request { return request{Request: r, Host: m.h} }

// Name returns the --host value; OpenCode's gateway entry is
// "opencode (gateway)", as uninstall names it beside the plugin.
func (m mcpHost) Name() string {
	if m.h == OpenCode {
		return "opencode (gateway)"
	}
	return string(m.h)
}

// Remote reports whether the host can connect to a team gateway.
func (m mcpHost) Remote() bool { return adapters[m.h].remote }

// NoRemote says why the host cannot connect to a team gateway ("" when
// it can).
func (m mcpHost) NoRemote() string {
	if adapters[m.h].remote {
		return ""
	}
	return noRemoteReason(m.h)
}

// NoProject says why the host has no project scope ("" when it has one).
func (m mcpHost) NoProject() string { return adapters[m.h].noProject }

// Refusal says why init cannot install into the host for this request,
// when that depends on what is on disk; nil when it can.
func (m mcpHost) Refusal(r install.Request) error {
	a := adapters[m.h]
	if a.refuse == nil {
		return nil
	}
	rs, err := resolve(m.req(r))
	if err != nil {
		return nil // planInit reports it
	}
	return a.refuse(rs)
}

func (m mcpHost) Detect(r install.Request) (install.Host, string, error) {
	if m.h == OpenCode || !detect(m.h, r.Env) {
		return nil, "", nil
	}
	return m, "", nil
}

func (m mcpHost) ConfigDir(r install.Request) (string, error) {
	f, err := mainFile(m.req(r))
	return filepath.Dir(f), err
}

func (m mcpHost) Installed(r install.Request) bool { return hasInstall(m.req(r)) }

func (m mcpHost) PlanInit(r install.Request) (*install.Plan, error) {
	return planInit(m.req(r))
}

func (m mcpHost) PlanUninstall(r install.Request) (*install.Plan, error) {
	return planUninstall(m.req(r))
}

// Doctor checks the global scope and the project: a scope is shown when
// the entry is there or something is wrong, and the global one also when
// the host is on this machine. The gateway entry is shown only when there
// is one. Run from the home directory, a project's file can be the global
// one (~/.codex/config.toml): it is shown once.
func (m mcpHost) Doctor(ctx context.Context, r install.Request) []install.Check {
	detected := m.h != OpenCode && detect(m.h, r.Env)
	var out []install.Check
	for _, sc := range []install.Scope{install.ScopeGlobal, install.ScopeProject} {
		if sc == install.ScopeProject && adapters[m.h].noProject != "" {
			continue
		}
		req := m.req(r)
		req.Scope = sc
		if sc == install.ScopeProject {
			g, gerr := mainFile(request{Request: install.Request{Env: r.Env}, Host: m.h})
			if f, err := mainFile(req); err == nil && gerr == nil && f == g {
				continue
			}
		}
		c := doctor(ctx, req, r.Env.Environ)
		if !c.Installed && len(c.Problems) == 0 && (sc == install.ScopeProject || !detected) {
			continue
		}
		ic := install.Check{Title: fmt.Sprintf("%s (%s)", c.Host, sc), Lines: c.Lines, Traps: c.Traps, Problems: c.Problems, Installed: c.Installed, TokenEnv: c.TokenEnv}
		if c.Installed && c.TokenEnv == "" {
			ic.KeyEnv = c.KeyEnv
		}
		out = append(out, ic)
	}
	if !detected && m.h != OpenCode {
		out = append(out, install.Check{Title: string(m.h), Absent: true})
	}
	return out
}
