package mcphosts

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// check is what doctor found for one host and scope.
type check struct {
	// Host and Scope say where.
	Host  string
	Scope string
	// File is the config file holding the entry.
	File string
	// Installed reports whether the entry is there.
	Installed bool
	// Lines describe the state, one fact each; Problems are what stops the
	// server from working; Traps are the plan's warnings for the entry's
	// own options, and what will fail although the server starts.
	Lines, Problems, Traps []string
	// KeyEnv is the variable the entry passes the key in.
	KeyEnv string
	// TokenEnv is the variable a gateway entry sends the member's token
	// from; empty for an entry that starts the server.
	TokenEnv string
	// Probe is what starting the entry's server found (zero when the
	// entry is absent or unreadable).
	Probe probeResult
}

// names are the hosts as sentences name them.
var names = map[Host]string{Codex: "Codex", Claude: "Claude Code", Gemini: "Gemini CLI", Pi: "Pi (pi-mcp-adapter)", Cursor: "Cursor"}

// mainFile returns the file holding the server entry for the host and scope.
func mainFile(req request) (string, error) {
	rs, err := resolve(req)
	if err != nil {
		return "", err
	}
	return adapters[req.Host].targets(rs)[0].path, nil
}

// doctor inspects one host and scope: whether the entry is there and
// parses, whether an install record holds it (if not, the command that
// repairs that), which traps are active for its options, and whether the
// server it starts works: the server is started as the host would start it
// (see hostLaunch), from the environment environ (doctor's own, standing
// for the one the host is started from), and asked initialize and
// tools/list (see probeEntry). The key's value never appears in the check.
func doctor(ctx context.Context, req request, environ []string) check {
	rs, err := resolve(req)
	c := check{Host: string(req.Host), Scope: string(req.Scope)}
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
		return c
	}
	c.Host = adapters[req.Host].label
	rs.args = serverArgs(req.Options)
	ts := adapters[req.Host].targets(rs)
	c.File = ts[0].path
	cur, _, err := readTarget(ts[0])
	switch {
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return c
	case !cur.exists:
		c.Lines = append(c.Lines, c.File+" does not exist")
		return c
	case cur.err != nil:
		c.Problems = append(c.Problems, fmt.Sprintf("%s does not parse: %v", c.File, cur.err))
		return c
	}
	entry := ts[0].entryIn(cur.plain)
	if entry == nil {
		c.Lines = append(c.Lines, "no "+install.Name+" entry in "+c.File)
		return c
	}
	c.Installed = true
	c.Lines = append(c.Lines, "entry present in "+c.File)
	flat := flatEntry(rs.Host, entry)
	cmd, _ := flat["command"].(string)
	recPath := rs.recordPath(ts[0].path)
	rec, _, err := readRecord(recPath, rs, ts)
	if err != nil {
		c.Problems = append(c.Problems, err.Error()+": move it away, then run `"+repairCommand(rs, entry, cmd)+"`")
	} else if rec == nil {
		if hs, _ := holders(rs, ts[0]); len(hs) > 0 {
			// The file is shared (shared.go): another host's install
			// holds the entry, and its record stands for this one's.
			rec = hs[0].rec
			c.Lines = append(c.Lines, fmt.Sprintf("the entry is %s's install's (the file is shared with it)", holderNames(hs)))
		} else {
			c.Traps = append(c.Traps, fmt.Sprintf("no install record for this entry (written by hand, or by an install that was interrupted), so uninstall will not remove it: run `%s` to adopt it, or remove %s from %s", repairCommand(rs, entry, cmd), strings.Join(ts[0].serverPath, "."), c.File))
		}
	}
	if gw, ok := remoteOf(rs.Host, entry); ok {
		c.remote(ctx, rs, gw, rec.File(ts[0].path), entry, environ)
		return c
	}
	// The entry's own options: what init would write for them is compared
	// with the entry below.
	o := optionsFromArgs(stringList(flat["args"]))
	c.KeyEnv = o.APIKeyVar()
	// A project's config may come with a clone: doctor starts its entry
	// only when it is the one init wrote and recorded (the record lives in
	// the user's state directory, which a clone cannot bring).
	if rf := rec.File(ts[0].path); rs.global() || rf != nil && jsonEqual(mustJSON(entry), rf.Entry) {
		c.probe(ctx, rs, entry, environ)
	} else {
		why := "it has no install record here: adopt it with the command above if you trust it"
		if rf != nil {
			why = "it differs from the one init recorded (changed by hand, or by a pull?): run init again if you trust it"
		}
		c.Traps = append(c.Traps, "not started: doctor starts a project's entry only when it is the one init wrote and recorded, so a cloned project cannot make it run a command, and "+why)
	}
	if filepath.IsAbs(cmd) {
		req.Options, req.Binary = o, cmd
		if p, err := planInit(req); err == nil {
			c.Traps = append(c.Traps, p.Warnings...)
			for _, ch := range p.Changes {
				if ch.Kind == install.KindConfig && ch.Path == c.File {
					c.Problems = append(c.Problems, "the entry differs from what init writes for its options (edited by hand?): `init` shows the difference")
				}
			}
		} else {
			c.Problems = append(c.Problems, err.Error())
		}
	}
	return c
}

// probe starts the entry's server as the host would and reports it, with
// where the key stands in the server's environment.
func (c *check) probe(ctx context.Context, rs *resolved, entry map[string]any, environ []string) {
	parent := envMap(environ)
	dir := rs.root
	if rs.global() {
		dir = rs.Env.WorkDir
	}
	l, err := launchFor(rs.Host, rs, entry, parent, dir)
	if err != nil {
		c.Problems = append(c.Problems, "does not connect: "+err.Error())
		return
	}
	key, name := c.KeyEnv, names[rs.Host]
	secrets := []string{parent[key]}
	for _, kv := range l.Env {
		if k, v, _ := strings.Cut(kv, "="); k == key || geminiSecretName.MatchString(k) {
			secrets = append(secrets, v)
		}
	}
	c.Lines = append(c.Lines, redact("starts "+strings.Join(append([]string{l.Command}, l.Args...), " "), secrets))
	c.Traps = append(c.Traps, l.Notes...)
	if rs.Host == Gemini {
		if w := geminiTrust(rs, dir, parent); w != "" {
			c.Traps = append(c.Traps, w)
		}
	}
	v, _ := l.lookup(key)
	switch {
	case v != "" && install.IsEnvReference(v) && parent[key] != "":
		c.Traps = append(c.Traps, fmt.Sprintf("%s reaches the server as the literal text %q although it is set in this shell: %s does not expand the reference (see above why); every search and fetch fails until it does", key, v, name))
	case v != "" && install.IsEnvReference(v):
		c.Traps = append(c.Traps, fmt.Sprintf("%s reaches the server as the literal text %q: %s is not set in this shell, and %s passes the reference as written; every search and fetch fails until you export it", key, v, key, name))
	case v != "":
		c.Lines = append(c.Lines, key+" reaches the server (value not shown)")
	case parent[key] == "":
		c.Traps = append(c.Traps, fmt.Sprintf("%s is not set in this shell, so %s starts the server without a key: it lists its tools, but every search and fetch fails until you export it", key, name))
	default:
		fix := "run init again to rewrite the entry"
		switch rs.Host {
		case Codex:
			fix = "Codex passes only a short list of variables: add it to the entry's env_vars (init again does)"
		case Gemini:
			fix = "Gemini CLI drops inherited variables named like secrets: pass it in the entry's env as \"$" + key + "\" (init again does)"
		}
		c.Traps = append(c.Traps, fmt.Sprintf("%s is set in this shell, but %s does not pass it to the server: %s", key, name, fix))
	}
	c.Probe = probeEntry(ctx, l, secrets)
	if c.Probe.Connected() {
		c.Lines = append(c.Lines, c.Probe.String())
		if v := c.Probe.Version; v != "" {
			c.Lines = append(c.Lines, "the server's version: "+v)
			// Releases differ in their first word ("0.1.0"); what follows
			// is the build's module version, which differs between any
			// two builds.
			if first, _, _ := strings.Cut(v, " "); rs.Version != "" && first != strings.Fields(rs.Version)[0] {
				c.Traps = append(c.Traps, fmt.Sprintf("the server %s starts is version %s, and this binary is %s: run `deepseek-web-retrieval install --yes` from the binary you want %s to start", name, v, rs.Version, name))
			}
		}
		return
	}
	msg := "does not connect: " + c.Probe.String()
	if strings.HasPrefix(c.Probe.Err, "command not found: /") {
		msg += " (moved or deleted?): run `make install`, or init again from the binary's new place"
	}
	c.Problems = append(c.Problems, msg)
}

// remoteOf returns the gateway a remote entry (the host's streamable HTTP
// form, as init --remote writes it) points at; ok is false for a command
// entry. TokenEnv is empty when the entry sends no token by reference.
func remoteOf(h Host, entry map[string]any) (gw install.Remote, ok bool) {
	entry = flatEntry(h, entry)
	key := adapters[h].urlKey
	if key == "" {
		key = "url"
	}
	gw.URL, ok = entry[key].(string)
	if !ok {
		return gw, false
	}
	if h == Codex {
		gw.TokenEnv, _ = entry["bearer_token_env_var"].(string)
		return gw, true
	}
	headers, _ := entry["headers"].(map[string]any)
	auth, _ := headers["Authorization"].(string)
	if m := authReference.FindStringSubmatch(auth); m != nil {
		gw.TokenEnv = m[1]
	}
	return gw, true
}

// authReference finds the variable in "Bearer ${VAR}", "Bearer ${VAR:-}",
// "Bearer $VAR", "Bearer ${env:VAR}" and "Bearer {env:VAR}".
var authReference = regexp.MustCompile(`^Bearer (?:\$\{?(?:env:)?|\{env:)([A-Za-z_][A-Za-z0-9_]*)(?::-)?\}?$`)

// remote checks an entry that points at a gateway: the record, the token
// in this shell, a connection as the host makes it, and the entry against
// what init writes for it.
func (c *check) remote(ctx context.Context, rs *resolved, gw install.Remote, rf *RecordFile, entry map[string]any, environ []string) {
	name := names[rs.Host]
	c.TokenEnv = gw.TokenEnv
	c.Lines = append(c.Lines, "connects to the gateway "+gw.URL)
	if gw.TokenEnv == "" && adapters[rs.Host].signIn {
		// An init --remote --sign-in entry: the host signs in itself, and
		// doctor, which cannot, checks that the gateway offers sign-in.
		c.Lines = append(c.Lines, name+" signs in to it through your organisation's identity provider (the entry holds no token)")
		if issuer, err := signInIssuer(ctx, gw.URL); err != nil {
			c.Problems = append(c.Problems, "the gateway offers no sign-in ("+err.Error()+"): if it takes member tokens only, run `"+remoteCommand(rs, gw)+"`")
		} else {
			c.Lines = append(c.Lines, "the gateway names the identity provider "+issuer)
		}
		return
	}
	parent := envMap(environ)
	token := parent[gw.TokenEnv]
	switch {
	case gw.TokenEnv == "":
		c.Problems = append(c.Problems, "the entry sends no token from an environment variable: run `"+remoteCommand(rs, gw)+"`")
	case token == "":
		c.Traps = append(c.Traps, fmt.Sprintf("%s is not set in this shell, so %s connects without a token and the gateway refuses it: export the token `serve token add` printed for you", gw.TokenEnv, name))
	default:
		c.Lines = append(c.Lines, gw.TokenEnv+" is set (value not shown)")
	}
	auth := ""
	if token != "" {
		auth = "Bearer " + token
	}
	// A project's entry from a clone could point anywhere: doctor connects
	// only to one init wrote and recorded, as it starts only those.
	if rs.global() || rf != nil && jsonEqual(mustJSON(entry), rf.Entry) {
		c.Probe = probeRemote(ctx, gw.URL, auth, []string{token})
		if c.Probe.Connected() {
			c.Lines = append(c.Lines, c.Probe.String())
			if v := c.Probe.Version; v != "" {
				c.Lines = append(c.Lines, "the gateway's version: "+v)
			}
		} else {
			c.Problems = append(c.Problems, "does not connect: "+c.Probe.String())
		}
	} else {
		c.Traps = append(c.Traps, "not connected: doctor connects to a project's gateway entry only when it is the one init wrote and recorded, so a cloned project cannot send your token elsewhere")
	}
	if gw.TokenEnv == "" {
		return
	}
	wr := *rs
	wr.Remote = &gw
	var want any = map[string]any{"url": gw.URL, "bearer_token_env_var": gw.TokenEnv}
	if t := adapters[rs.Host].targets(&wr)[0]; !t.toml {
		want = t.entry
	}
	if !jsonEqual(mustJSON(entry), mustJSON(want)) {
		c.Problems = append(c.Problems, "the entry differs from what init writes for this gateway (edited by hand?): `"+remoteCommand(rs, gw)+"` shows the difference")
	}
}

// remoteCommand is the init command that writes a gateway entry.
func remoteCommand(rs *resolved, gw install.Remote) string {
	tokenEnv := gw.TokenEnv
	if tokenEnv == "" {
		tokenEnv = install.DefaultTokenEnv
	}
	project := ""
	if !rs.global() {
		project = rs.root
	}
	return install.InitCommand(string(rs.Host), project, []string{"--remote", install.ShellQuote(gw.URL), "--token-env", tokenEnv})
}

// repairCommand is the init command that writes this very entry, so init
// adopts it and keeps a record.
func repairCommand(rs *resolved, entry map[string]any, cmd string) string {
	var args []string
	if filepath.IsAbs(cmd) {
		args = append(args, "--binary", cmd)
	}
	if a := stringList(entry["args"]); len(a) > 0 && a[0] == "mcp" {
		args = append(args, a[1:]...)
	}
	project := ""
	if !rs.global() {
		project = rs.root
	}
	return install.InitCommand(string(rs.Host), project, args)
}

// optionsFromArgs reads the options back from the server's command line
// (the reverse of Args); a flag it does not know is skipped, and the
// comparison with what init writes then shows the entry as edited.
func optionsFromArgs(args []string) install.Options {
	type field struct {
		name string
		typ  reflect.Type
	}
	fields := map[string]field{}
	rt := reflect.TypeFor[install.Options]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		fields[install.FlagName(name)] = field{name, rt.Field(i).Type}
	}
	var o install.Options
	for i := 0; i < len(args); i++ {
		flag, val, hasVal := strings.Cut(args[i], "=")
		f, ok := fields[flag]
		if !ok {
			continue
		}
		if !hasVal && f.typ == reflect.TypeFor[*bool]() {
			val = "true"
		} else if !hasVal {
			if i+1 == len(args) {
				break
			}
			i++
			val = args[i]
		}
		var raw []byte
		switch f.typ.Kind() {
		case reflect.String:
			raw, _ = json.Marshal(val)
		case reflect.Slice:
			raw, _ = json.Marshal(strings.Split(val, ","))
		default:
			raw = []byte(val)
		}
		one, _ := json.Marshal(map[string]json.RawMessage{f.name: raw})
		_ = json.Unmarshal(one, &o) // a value of the wrong type is left out
	}
	return o
}
