package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Request describes an init.
type Request struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
	// Host selects the config shape. Zero means HostOpenCode (2.x).
	Host Host
	// Options are written into the entry; see [Options].
	Options Options
	// Plugin holds the plugin directory's files; its top-level regular
	// files are copied. It must contain package.json and core.wasm.
	Plugin fs.FS
	// Version is this installer's version, kept in the record.
	Version string
}

// UninstallRequest describes an uninstall.
type UninstallRequest struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
}

// Op is what a Change does.
type Op int

const (
	// OpCreate creates a file or directory that does not exist.
	OpCreate Op = iota + 1
	// OpUpdate replaces a file's content.
	OpUpdate
	// OpDelete deletes a file or an empty directory.
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return "?"
}

// Kind says what a Change's path is.
type Kind int

const (
	// KindConfig is the OpenCode config file.
	KindConfig Kind = iota + 1
	// KindPlugin is a vendored plugin file.
	KindPlugin
	// KindRecord is the install record.
	KindRecord
	// KindDir is a directory.
	KindDir
)

// Change is one file-system step of a Plan.
type Change struct {
	Op   Op
	Kind Kind
	// Path is absolute; Rel is relative to the config directory, slash-separated.
	Path, Rel string
	// Old is the current content (OpUpdate, OpDelete of a file); New is the
	// content to write (OpCreate, OpUpdate of a file).
	Old, New []byte
	// Mode is the file mode to write with.
	Mode fs.FileMode
}

// Plan is everything one init or uninstall would do. Rendering it changes
// nothing; Apply performs it.
type Plan struct {
	// Command is "init" or "uninstall".
	Command string
	// Scope and Host are those of the install (for uninstall, the recorded host).
	Scope Scope
	Host  Host
	// ConfigDir is the absolute directory holding the config file.
	ConfigDir string
	// ConfigFile is the config file's name in ConfigDir.
	ConfigFile string
	// APIKeyEnv is the variable the plugin reads the key from.
	APIKeyEnv string
	// Changes are applied in order.
	Changes []Change
	// Warnings are things a user would want to know before applying.
	Warnings []string
	// Notes are informational lines (files left alone, and why).
	Notes []string
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 }

func (p *Plan) add(c Change) {
	if c.Rel == "" {
		c.Rel = c.Path
	}
	p.Changes = append(p.Changes, c)
}

// PlanInit plans installing the plugin. It reads but never writes. Invalid
// options yield an *OptionError; situations it will not handle yield a
// *RefusedError.
func PlanInit(req Request) (*Plan, error) {
	if req.Scope == "" {
		req.Scope = ScopeGlobal
	}
	if req.Host == "" {
		req.Host = HostOpenCode
	}
	if _, err := ParseHost(string(req.Host)); err != nil {
		return nil, err
	}
	if err := Validate(req.Options); err != nil {
		return nil, err
	}
	opts := req.Options.withDefaults()
	files, err := pluginFiles(req.Plugin)
	if err != nil {
		return nil, err
	}
	dir, err := ConfigDir(req.Env, req.Scope, req.Dir)
	if err != nil {
		return nil, err
	}
	rec, _, err := readRecord(dir)
	if err != nil {
		return nil, refuse(err.Error(), "move "+filepath.Join(dir, filepath.FromSlash(recordFile))+" away, undo the previous install by hand, then run init again")
	}
	key := req.Host.key()
	p := &Plan{Command: "init", Scope: req.Scope, Host: req.Host, ConfigDir: dir, APIKeyEnv: opts.APIKeyVar()}
	if rec != nil && (rec.Host != req.Host || rec.Key != key) {
		return nil, refuse(fmt.Sprintf("%s already holds an install for %s in %s", dir, rec.Host.label(), rec.Config.File),
			"run `deepseek-web-retrieval uninstall` first, then init with the other --host")
	}
	cfgName, warns := pickConfig(dir, rec)
	p.ConfigFile = cfgName
	p.Warnings = append(p.Warnings, warns...)
	cfgPath := filepath.Join(dir, cfgName)

	data, mode, existed, err := readFile(cfgPath)
	if err != nil {
		return nil, err
	}
	if existed && !utf8.Valid(data) {
		return nil, refuse(cfgPath + " is not valid UTF-8")
	}
	blank := len(bytes.TrimSpace(data)) == 0
	base := data
	if blank {
		base = []byte("{\n}\n")
	}
	c, err := parseConfig(base)
	if err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s: %v", cfgPath, err), "fix the file so it is valid JSONC, then run init again")
	}
	p.Warnings = append(p.Warnings, configWarnings(c, req.Host, opts)...)
	p.Warnings = append(p.Warnings, dirWarnings(dir)...)

	// The config edit.
	// The snapshot is omitted when the config holds a credential: the
	// record must not become a second copy of it. Uninstall then relies on
	// the structural removal alone.
	hasSecrets := len(secrets(data)) > 0
	rc := RecordConfig{File: cfgName, Existed: existed, SnapshotExact: !hasSecrets}
	if existed && !hasSecrets {
		rc.Snapshot = string(data)
	}
	var arr *hujson.Array
	if mi := c.member(key); mi >= 0 {
		a, ok := c.obj.Members[mi].Value.Value.(*hujson.Array)
		if !ok {
			return nil, refuse(fmt.Sprintf("%q in %s is not an array", key, cfgPath), fmt.Sprintf("make %q an array, then run init again", key))
		}
		arr = a
	}
	var ours []entry
	if arr != nil {
		for _, e := range entries(arr) {
			if isOurPath(e.name) {
				ours = append(ours, e)
			}
		}
	}
	if len(ours) > 1 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s lists %s %d times in %q: OpenCode would load it more than once; init updates only the first", cfgName, PackagePath, len(ours), key))
	}
	want := optionsValue(opts)
	newData := data
	if len(ours) > 0 {
		e := ours[0]
		if rec != nil && rec.Config.File == cfgName {
			rc = rec.Config
			rc.SnapshotExact = rec.Config.SnapshotExact && sha(data) == rec.Config.WrittenSHA256 && !hasSecrets
		} else {
			rc.EntryExisted = true
			rc.OriginalEntry = string(trimmedText(arr.Elements[e.index]))
			if len(secrets([]byte(rc.OriginalEntry))) > 0 {
				return nil, refuse(fmt.Sprintf("the existing %s entry in %s holds a literal API key, which init will not copy into its record", PackagePath, cfgPath),
					"move the key into an environment variable (the apiKeyEnv option, or \"apiKey\": \"{env:DEEPSEEK_API_KEY}\"), then run init again")
			}
		}
		if e.form != req.Host.form() || !reflect.DeepEqual(e.options, want) {
			c.setOptions(req.Host, arr, e, opts)
			newData = c.pack()
		}
	} else {
		createdKey, lay := c.addEntry(req.Host, opts)
		rc.CreatedKey, rc.Layout = createdKey, &lay
		newData = c.pack()
	}
	if err := checkEdit(base, newData, key, true); err != nil {
		return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cfgPath, err)
	}
	rc.WrittenSHA256 = sha(newData)
	if !bytes.Equal(newData, data) || !existed {
		op := OpUpdate
		if !existed {
			op, mode = OpCreate, 0o644
		}
		p.add(Change{Op: op, Kind: KindConfig, Path: cfgPath, Rel: cfgName, Old: data, New: newData, Mode: mode})
	}

	// The plugin files and directories.
	nr := &Record{Format: RecordFormat, Tool: Name, Version: req.Version, Host: req.Host, Key: key, Config: rc}
	var pre []Change
	// A config directory that does not exist yet is created (parents
	// first). Uninstall leaves it: OpenCode keeps other files there.
	var missing []string
	for d := dir; !exists(d); d = filepath.Dir(d) {
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range missing {
		pre = append(pre, Change{Op: OpCreate, Kind: KindDir, Path: d, Rel: d + string(filepath.Separator), Mode: 0o755})
	}
	if rec != nil {
		nr.CreatedDirs = rec.CreatedDirs
	} else if len(missing) > 0 {
		// The config directory itself (a project's .opencode/, say): "."
		// sorts first, so uninstall removes it last, once it is empty.
		nr.CreatedDirs = []string{"."}
	}
	for _, d := range []string{vendorDir, pluginDir} {
		abs := filepath.Join(dir, filepath.FromSlash(d))
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			pre = append(pre, Change{Op: OpCreate, Kind: KindDir, Path: abs, Rel: d + "/", Mode: 0o755})
			if !slices.Contains(nr.CreatedDirs, d) {
				nr.CreatedDirs = append(nr.CreatedDirs, d)
			}
		case err != nil:
			return nil, err
		case !fi.IsDir():
			return nil, refuse(abs+" exists and is not a directory", "move it away, then run init again")
		}
	}
	for _, f := range files {
		rel := pluginDir + "/" + f.name
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		cur, _, exists, err := readFile(abs)
		if err != nil {
			return nil, err
		}
		prev := rec.file(rel)
		rf := RecordFile{Path: rel, SHA256: sha(f.data)}
		switch {
		case !exists:
			pre = append(pre, Change{Op: OpCreate, Kind: KindPlugin, Path: abs, Rel: rel, New: f.data, Mode: 0o644})
		case bytes.Equal(cur, f.data):
			rf.Existed = prev == nil || prev.Existed
		case prev != nil && prev.SHA256 == sha(cur):
			rf.Existed = prev.Existed
			pre = append(pre, Change{Op: OpUpdate, Kind: KindPlugin, Path: abs, Rel: rel, Old: cur, New: f.data, Mode: 0o644})
		default:
			return nil, refuse(abs+" exists and differs from what this installer wrote (changed by hand, or not from this installer)",
				"move "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" away (or restore the file), then run init again")
		}
		nr.Files = append(nr.Files, rf)
	}
	if rec != nil {
		for _, old := range rec.Files {
			if nr.file(old.Path) != nil || old.Existed {
				continue
			}
			abs := filepath.Join(dir, filepath.FromSlash(old.Path))
			cur, _, exists, err := readFile(abs)
			switch {
			case err != nil:
				return nil, err
			case !exists:
			case sha(cur) == old.SHA256:
				pre = append(pre, Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: old.Path, Old: cur})
			default:
				p.Notes = append(p.Notes, old.Path+" is no longer part of the plugin but was changed by hand; left in place")
			}
		}
	}

	// The record: rewritten whenever anything else changes, or when missing.
	nr.Entry = entryText(newData, key)
	if len(pre) > 0 || len(p.Changes) > 0 || rec == nil {
		recPath := filepath.Join(dir, filepath.FromSlash(recordFile))
		rc := Change{Op: OpCreate, Kind: KindRecord, Path: recPath, Rel: recordFile, New: nr.marshal(), Mode: 0o644}
		if old, _, exists, err := readFile(recPath); err != nil {
			return nil, err
		} else if exists {
			rc.Op, rc.Old = OpUpdate, old
		}
		pre = append(pre, rc)
	}
	// Order: directories and plugin files, the record, then the config, so
	// the config never names a plugin that is not there yet.
	p.Changes = append(pre, p.Changes...)
	return p, nil
}

// PlanUninstall plans reversing what init applied. It refuses (with a
// *RefusedError saying how to undo by hand) when an exact reversal is not
// possible: no record, the entry changed or removed, a vendored file changed.
func PlanUninstall(req UninstallRequest) (*Plan, error) {
	if req.Scope == "" {
		req.Scope = ScopeGlobal
	}
	dir, err := ConfigDir(req.Env, req.Scope, req.Dir)
	if err != nil {
		return nil, err
	}
	recPath := filepath.Join(dir, filepath.FromSlash(recordFile))
	rec, recData, err := readRecord(dir)
	if err != nil {
		return nil, refuse(err.Error(), manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins")...)
	}
	if rec == nil {
		return nil, refuse("no install record at "+recPath+": there is no install by this tool to reverse in "+dir,
			manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins")...)
	}
	p := &Plan{Command: "uninstall", Scope: req.Scope, Host: rec.Host, ConfigDir: dir, ConfigFile: rec.Config.File, APIKeyEnv: DefaultAPIKeyEnv}
	cfgPath := filepath.Join(dir, rec.Config.File)
	manual := manualUninstall(dir, rec.Config.File, rec.Key)
	data, mode, existed, err := readFile(cfgPath)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, refuse(cfgPath+" no longer exists, so the entry init added cannot be removed from it", manual[1:]...)
	}
	c, err := parseConfig(data)
	if err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s: %v", cfgPath, err), manual...)
	}
	var recEntry any
	_ = json.Unmarshal(rec.Entry, &recEntry)
	mi := c.member(rec.Key)
	var arr *hujson.Array
	if mi >= 0 {
		arr, _ = c.obj.Members[mi].Value.Value.(*hujson.Array)
	}
	idx, found := -1, false
	if arr != nil {
		for _, e := range entries(arr) {
			if !isOurPath(e.name) {
				continue
			}
			found = true
			if reflect.DeepEqual(plain(arr.Elements[e.index]), recEntry) {
				idx = e.index
				break
			}
		}
	}
	switch {
	case idx < 0 && !found:
		return nil, refuse(fmt.Sprintf("the %s entry init added is no longer in %q in %s (removed by hand?)", PackagePath, rec.Key, cfgPath), manual[1:]...)
	case idx < 0:
		return nil, refuse(fmt.Sprintf("the %s entry in %s was changed since init wrote it (init wrote %s)", PackagePath, cfgPath, rec.Entry), manual...)
	}
	if opts, ok := recEntryOptions(recEntry); ok {
		if s, _ := opts["apiKeyEnv"].(string); s != "" {
			p.APIKeyEnv = s
		}
	}

	var newData []byte
	deleteConfig := false
	if rec.Config.SnapshotExact && sha(data) == rec.Config.WrittenSHA256 {
		// Nothing but init touched the file: put the snapshot back.
		if rec.Config.Existed {
			newData = []byte(rec.Config.Snapshot)
		} else {
			deleteConfig = true
		}
	} else {
		if rec.Config.EntryExisted {
			arr.Elements[idx].Value = parseTrimmed([]byte(rec.Config.OriginalEntry))
		} else {
			var elemLayout, keyLayout *layout
			if rec.Config.CreatedKey {
				keyLayout = rec.Config.Layout
			} else {
				elemLayout = rec.Config.Layout
			}
			removeItem(arrItems{arr}, idx, elemLayout)
			if rec.Config.CreatedKey && len(arr.Elements) == 0 {
				removeItem(objItems{c.obj}, mi, keyLayout)
			}
		}
		newData = c.pack()
		if err := checkEdit(data, newData, rec.Key, rec.Config.EntryExisted); err != nil {
			return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cfgPath, err)
		}
		// What is left of a file that was absent or blank before init is
		// an empty object: go back to that.
		if !rec.Config.EntryExisted && emptyObject(newData) {
			switch {
			case !rec.Config.Existed:
				deleteConfig = true
			case isBlank([]byte(rec.Config.Snapshot)):
				newData = []byte(rec.Config.Snapshot)
			}
		}
	}
	switch {
	case deleteConfig:
		p.add(Change{Op: OpDelete, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data})
	case !bytes.Equal(newData, data):
		p.add(Change{Op: OpUpdate, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data, New: newData, Mode: mode})
	}

	gone := map[string]bool{recordFile: true, rec.Config.File: deleteConfig}
	for _, f := range rec.Files {
		if f.Existed {
			p.Notes = append(p.Notes, f.Path+" was there before init; left in place")
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(f.Path))
		cur, _, exists, err := readFile(abs)
		switch {
		case err != nil:
			return nil, err
		case !exists:
			p.Notes = append(p.Notes, f.Path+" is already gone")
		case sha(cur) != f.SHA256:
			return nil, refuse(abs+" was changed since init wrote it, so uninstall will not delete it",
				"restore or save the file, delete "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" and "+recPath+" yourself, and remove the entry from "+cfgPath+" (or undo your change and run uninstall again)")
		default:
			p.add(Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: f.Path, Old: cur})
			gone[f.Path] = true
		}
	}
	p.add(Change{Op: OpDelete, Kind: KindRecord, Path: recPath, Rel: recordFile, Old: recData})
	for i := len(rec.CreatedDirs) - 1; i >= 0; i-- {
		d := rec.CreatedDirs[i]
		abs := filepath.Join(dir, filepath.FromSlash(d))
		ents, err := os.ReadDir(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var left []string
		for _, e := range ents {
			if !gone[path.Join(d, e.Name())] {
				left = append(left, e.Name())
			}
		}
		if len(left) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s/ holds files init did not write (%s); left in place", d, strings.Join(left, ", ")))
			continue
		}
		rel := d + "/"
		if d == "." {
			rel = abs + string(filepath.Separator) // the config directory, named as init named it
		}
		p.add(Change{Op: OpDelete, Kind: KindDir, Path: abs, Rel: rel})
		gone[d] = true
	}
	return p, nil
}

func manualUninstall(dir, cfgFile, key string) []string {
	return []string{
		fmt.Sprintf("remove the %s entry from the %q array in %s", PackagePath, key, filepath.Join(dir, cfgFile)),
		"delete the directory " + filepath.Join(dir, filepath.FromSlash(pluginDir)),
		"delete " + filepath.Join(dir, filepath.FromSlash(recordFile)) + " (its \"snapshot\" field holds the config as it was before init)",
	}
}

func recEntryOptions(v any) (map[string]any, bool) {
	switch e := v.(type) {
	case map[string]any:
		m, ok := e["options"].(map[string]any)
		return m, ok
	case []any:
		if len(e) > 1 {
			m, ok := e[1].(map[string]any)
			return m, ok
		}
	}
	return nil, false
}

// form is the entry form h writes.
func (h Host) form() string {
	if h == HostOpenCode1 {
		return "tuple"
	}
	return "object"
}

// pickConfig chooses the config file: the recorded one, else opencode.jsonc
// or opencode.json, whichever exists (.jsonc when both do), else a new
// opencode.jsonc.
func pickConfig(dir string, rec *Record) (string, []string) {
	jsonc := exists(filepath.Join(dir, "opencode.jsonc"))
	json := exists(filepath.Join(dir, "opencode.json"))
	var warns []string
	if jsonc && json {
		warns = append(warns, "both opencode.jsonc and opencode.json exist in "+dir+"; OpenCode reads both, and init edits only one")
	}
	switch {
	case rec != nil && rec.Config.File != "":
		return rec.Config.File, warns
	case jsonc || !json:
		return "opencode.jsonc", warns
	}
	return "opencode.json", warns
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// readFile returns a file's content and mode; exists is false when it is absent.
func readFile(p string) (data []byte, mode fs.FileMode, exists bool, err error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, refuse(p + " is not a regular file")
	}
	data, err = os.ReadFile(p)
	return data, fi.Mode().Perm(), true, err
}

type pluginFile struct {
	name string
	data []byte
}

// ErrNoPlugin is returned when the plugin files given to init are
// incomplete (typically a binary built before plugin/core.wasm existed).
var ErrNoPlugin = errors.New("the plugin files are incomplete")

func pluginFiles(fsys fs.FS) ([]pluginFile, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: none given", ErrNoPlugin)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read plugin files: %w", err)
	}
	var out []pluginFile
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read plugin files: %w", err)
		}
		out = append(out, pluginFile{e.Name(), b})
	}
	have := func(name string) []byte {
		for _, f := range out {
			if f.name == name {
				return f.data
			}
		}
		return nil
	}
	if w := have("core.wasm"); !bytes.HasPrefix(w, []byte("\x00asm")) {
		return nil, fmt.Errorf("%w: core.wasm is missing or not WebAssembly (build it into plugin/ before building this binary)", ErrNoPlugin)
	}
	if have("package.json") == nil {
		return nil, fmt.Errorf("%w: package.json is missing", ErrNoPlugin)
	}
	return out, nil
}

// trimmedText is a value's text without the whitespace and comments around it.
func trimmedText(v hujson.Value) []byte {
	v.BeforeExtra, v.AfterExtra = nil, nil
	return v.Pack()
}

// entryText returns our entry in data's key array as compact standard JSON.
func entryText(data []byte, key string) json.RawMessage {
	c, err := parseConfig(data)
	if err != nil {
		return nil
	}
	if mi := c.member(key); mi >= 0 {
		if arr, ok := c.obj.Members[mi].Value.Value.(*hujson.Array); ok {
			for _, e := range entries(arr) {
				if isOurPath(e.name) {
					var out bytes.Buffer
					if json.Compact(&out, plainBytes(hujson.Value{Value: arr.Elements[e.index].Value})) != nil {
						return nil
					}
					return out.Bytes()
				}
			}
		}
	}
	return nil
}

// checkEdit verifies that an edit kept everything but our entries: both
// sides, with our entries (and a then-empty key) removed, must be equal as
// JSON, and after must (or must not) hold our entry.
func checkEdit(before, after []byte, key string, wantOurs bool) error {
	nb, _, err := normalized(before, key)
	if err != nil {
		return fmt.Errorf("before: %w", err)
	}
	na, ours, err := normalized(after, key)
	if err != nil {
		return fmt.Errorf("after: %w", err)
	}
	if !reflect.DeepEqual(nb, na) {
		return errors.New("the edit changed more than the plugin entry")
	}
	if wantOurs != (ours > 0) {
		return fmt.Errorf("the edit left %d plugin entries", ours)
	}
	return nil
}

func normalized(data []byte, key string) (any, int, error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, 0, err
	}
	var m map[string]any
	if err := json.Unmarshal(plainBytes(v), &m); err != nil {
		return nil, 0, err
	}
	ours := 0
	if arr, ok := m[key].([]any); ok {
		var keep []any
		for _, el := range arr {
			if isOurPath(entryName(el)) {
				ours++
				continue
			}
			keep = append(keep, el)
		}
		if len(keep) == 0 {
			delete(m, key)
		} else {
			m[key] = keep
		}
	}
	return m, ours, nil
}

func plainBytes(v hujson.Value) []byte {
	v = v.Clone()
	v.Standardize()
	return v.Pack()
}

func entryName(v any) string {
	switch e := v.(type) {
	case string:
		return e
	case map[string]any:
		s, _ := e["package"].(string)
		return s
	case []any:
		if len(e) > 0 {
			s, _ := e[0].(string)
			return s
		}
	}
	return ""
}

// addEntry appends the entry for h to the config, creating the key when
// needed. It returns whether it created the key and the layout to restore.
func (c *config) addEntry(h Host, o Options) (createdKey bool, lay layout) {
	key := h.key()
	root := objItems{c.obj}
	if mi := c.member(key); mi >= 0 {
		m := &c.obj.Members[mi]
		arr := m.Value.Value.(*hujson.Array)
		it := arrItems{arr}
		outer, _ := lineIndent(m.Name.BeforeExtra)
		multi := isMultiline(it, c.multiline)
		ind := itemIndent(it, outer, c.unit)
		text := entryJSON(h, o, ind, c.unit, !multi)
		old := string(arr.AfterExtra)
		lead, trail, tail := appendLayout(it, multi, ind, outer)
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: lead, Value: parseTrimmed(text), AfterExtra: trail})
		arr.AfterExtra = tail
		return false, layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
	}
	multi := isMultiline(root, true) && c.multiline
	memberInd := itemIndent(root, "", c.unit)
	var arrText string
	if multi {
		elemInd := memberInd + c.unit
		arrText = "[\n" + elemInd + string(entryJSON(h, o, elemInd, c.unit, false)) + "\n" + memberInd + "]"
	} else {
		arrText = "[" + string(entryJSON(h, o, "", "", true)) + "]"
	}
	keyJSON, _ := json.Marshal(key)
	wrap, err := hujson.Parse([]byte("{" + string(keyJSON) + ": " + arrText + "}"))
	if err != nil {
		panic(err)
	}
	m := wrap.Value.(*hujson.Object).Members[0]
	old := string(c.obj.AfterExtra)
	lead, trail, tail := appendLayout(root, multi, memberInd, "")
	m.Name.BeforeExtra, m.Value.AfterExtra = lead, trail
	c.obj.Members = append(c.obj.Members, m)
	c.obj.AfterExtra = tail
	return true, layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
}

// setOptions rewrites entry e of arr so it carries options o, in h's form,
// touching as little text as possible.
func (c *config) setOptions(h Host, arr *hujson.Array, e entry, o Options) {
	el := &arr.Elements[e.index]
	ind, ok := lineIndent(el.BeforeExtra)
	compact := !ok
	if e.form != h.form() {
		el.Value = parseTrimmed(entryJSON(h, o, ind, c.unit, compact))
		return
	}
	switch v := el.Value.(type) {
	case *hujson.Object:
		for i := len(v.Members) - 1; i >= 0; i-- {
			m := &v.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "options" {
				oi, ok := lineIndent(m.Name.BeforeExtra)
				m.Value.Value = parseTrimmed(marshal(o, oi, c.unit, !ok))
				return
			}
		}
		it := objItems{v}
		multi := isMultiline(it, !compact)
		mi := itemIndent(it, ind, c.unit)
		lead, trail, tail := appendLayout(it, multi, mi, ind)
		m := hujson.ObjectMember{
			Name:  hujson.Value{BeforeExtra: lead, Value: hujson.String("options")},
			Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: parseTrimmed(marshal(o, mi, c.unit, !multi)), AfterExtra: trail},
		}
		v.Members = append(v.Members, m)
		v.AfterExtra = tail
	case *hujson.Array:
		if len(v.Elements) >= 2 {
			oi, ok := lineIndent(v.Elements[1].BeforeExtra)
			if !ok {
				oi = ind
			}
			v.Elements[1].Value = parseTrimmed(marshal(o, oi, c.unit, compact))
			return
		}
		it := arrItems{v}
		multi := isMultiline(it, false)
		ei := itemIndent(it, ind, c.unit)
		lead, trail, tail := appendLayout(it, multi, ei, ind)
		v.Elements = append(v.Elements, hujson.Value{BeforeExtra: lead, Value: parseTrimmed(marshal(o, ind, c.unit, compact)), AfterExtra: trail})
		v.AfterExtra = tail
	}
}
