package opencode

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

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// Request describes an init.
type Request struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
	// Host selects the config shape. Zero means HostOpenCode (2.x).
	Host Host
	// Options are written into the entry; see [Options].
	Options install.Options
	// Plugin holds the plugin directory's files; its top-level regular
	// files are copied. It must contain package.json and core.wasm.
	Plugin fs.FS
	// Version is this installer's version, kept in the record.
	Version string
	// Found is the version of the OpenCode found on PATH, empty when none
	// was read; the plan warns when Host's shape does not match it.
	Found string
}

// UninstallRequest describes an uninstall.
type UninstallRequest struct {
	// Env locates the config directories.
	Env Env
	// Scope selects the global or a project config. Zero means ScopeGlobal.
	Scope install.Scope
	// Dir is the project directory for ScopeProject; empty means Env.WorkDir.
	Dir string
}

// The change kinds this adapter uses.
const (
	// KindConfig is the OpenCode config file.
	KindConfig = install.KindConfig
	// KindPlugin is a vendored plugin file.
	KindPlugin = install.KindFile
	// KindRecord is the install record.
	KindRecord = install.KindRecord
	// KindDir is a directory.
	KindDir = install.KindDir
)

// Change is one file-system step of a Plan; see [install.Change].
type Change = install.Change

// The operations of a Change.
const (
	OpCreate = install.OpCreate // create a file or directory
	OpUpdate = install.OpUpdate // replace a file's content
	OpDelete = install.OpDelete // delete a file or an empty directory
)

func newPlan(command string, scope install.Scope, host Host, dir string) *Plan {
	return &Plan{Command: command, Scope: string(scope), Host: host.label(), ConfigDir: dir, APIKeyEnv: DefaultAPIKeyEnv}
}

// PlanInit plans installing the plugin. It reads but never writes. Invalid
// options yield an *OptionError; situations it will not handle yield a
// *RefusedError.
//
// It runs in four phases over one [initPlan]: the request and what is
// already installed (startInit), the config entry (editConfig), the plugin's
// directories and files (planPluginDirs, planPluginFiles), and the record
// (planRecord).
func PlanInit(req Request) (*Plan, error) {
	ip, err := startInit(req)
	if err != nil {
		return nil, err
	}
	for _, phase := range []func() error{ip.editConfig, ip.planPluginDirs, ip.planPluginFiles, ip.planRecord} {
		if err := phase(); err != nil {
			return nil, err
		}
	}
	// Order: directories and plugin files, the record, then the config, so
	// the config never names a plugin that is not there yet.
	ip.plan.Changes = append(ip.vendorChanges, ip.plan.Changes...)
	return ip.plan, nil
}

// initPlan is one init being planned, filled in phase by phase.
type initPlan struct {
	req   Request
	opts  install.Options // the request's options, tiers filled in
	files []pluginFile    // the plugin's files, the stored plan among them
	dir   string          // the config directory
	key   string          // the config key of the plugin list
	prev  *Record         // the install record found, nil when none
	plan  *Plan           // the plan: the config change goes in at once

	cfgName string // the config file's name in dir
	newBody []byte // the config's body after the edit (no BOM)

	record        *Record  // the record this init writes
	vendorChanges []Change // directories, plugin files and the record
	tree          bool     // the plugin directory is created whole
}

// startInit checks the request, reads the plugin's files and the previous
// install's record, and picks the config file.
func startInit(req Request) (*initPlan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	if req.Host == "" {
		req.Host = HostOpenCode
	}
	if _, err := ParseHost(string(req.Host)); err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	ip := &initPlan{req: req, opts: req.Options.WithDefaults(), key: req.Host.Key()}
	files, err := pluginFiles(req.Plugin)
	if err != nil {
		return nil, err
	}
	if ip.files, err = withPlan(files, req.Host, ip.opts); err != nil {
		return nil, err
	}
	if ip.dir, err = ConfigDir(req.Env, req.Scope, req.Dir); err != nil {
		return nil, err
	}
	if ip.prev, _, err = readRecord(ip.dir); err != nil {
		return nil, refuse(err.Error(), "move "+filepath.Join(ip.dir, filepath.FromSlash(recordFile))+" away, undo the previous install by hand, then run init again")
	}
	if ip.prev != nil && (ip.prev.Host != req.Host || ip.prev.Key != ip.key) {
		return nil, refuse(fmt.Sprintf("%s already holds an install for %s in %s", ip.dir, ip.prev.Host.label(), ip.prev.Config.File),
			"run `deepseek-web-retrieval uninstall` first, then init with the other --host")
	}
	ip.plan = newPlan("init", req.Scope, req.Host, ip.dir)
	ip.plan.APIKeyEnv = ip.opts.APIKeyVar()
	cfgName, warns := pickConfig(ip.dir, ip.prev)
	ip.cfgName = cfgName
	ip.plan.ConfigFile = cfgName
	ip.plan.UpToDate = fmt.Sprintf("%s already lists %s with these options, and the vendored files are current.", cfgName, PackagePath)
	ip.plan.Warnings = append(ip.plan.Warnings, warns...)
	ip.record = &Record{Format: RecordFormat, Tool: Name, Version: req.Version, Host: req.Host, Key: ip.key}
	return ip, nil
}

// configFile is the OpenCode config as init read it.
type configFile struct {
	path    string
	data    []byte // as read, byte order mark included
	mode    fs.FileMode
	existed bool
	mark    []byte // the UTF-8 byte order mark, kept: the edit works on the body
	body    []byte // data without the mark
	blank   bool   // the body is empty or white space
	base    []byte // what the edit starts from: the body, or "{}" when blank
	doc     *install.JSONC
}

// readConfig reads and parses the config file, and adds the plan's
// warnings about what it holds.
func (ip *initPlan) readConfig() (*configFile, error) {
	cf := &configFile{path: filepath.Join(ip.dir, ip.cfgName)}
	var err error
	if cf.data, cf.mode, cf.existed, err = install.ReadFile(cf.path); err != nil {
		return nil, err
	}
	cf.mark, cf.body = install.SplitBOM(cf.data)
	if cf.existed && !utf8.Valid(cf.body) {
		return nil, refuse(cf.path + " is not valid UTF-8")
	}
	cf.blank = len(bytes.TrimSpace(cf.body)) == 0
	cf.base = cf.body
	if cf.blank {
		eol := install.DetectEOL(cf.body)
		cf.base = []byte("{" + eol + "}" + eol)
	}
	if cf.doc, err = install.ParseJSONC(cf.base); err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s: %v", cf.path, err), "fix the file so it is valid JSONC, then run init again")
	}
	p := ip.plan
	p.Warnings = append(p.Warnings, configWarnings(cf.doc, ip.req.Host, ip.opts)...)
	p.Warnings = append(p.Warnings, shapeWarnings(cf.doc, ip.req.Host, ip.req.Found)...)
	p.Warnings = append(p.Warnings, dirWarnings(ip.dir)...)
	return cf, nil
}

// editConfig plans the config edit: our entry added, or brought up to date.
// The record never holds a copy of the config: it keeps a hash-anchored
// patch of the lines init changed, and none at all when one of those lines
// holds a credential (uninstall then relies on the structural removal
// alone).
func (ip *initPlan) editConfig() error {
	cf, err := ip.readConfig()
	if err != nil {
		return err
	}
	secrets := install.Secrets(cf.path, cf.data)
	cfg := RecordConfig{File: ip.cfgName, Existed: cf.existed, SnapshotExact: true}
	if cf.existed && cf.blank {
		cfg.WasBlank, cfg.BlankText = true, string(cf.body)
	}
	before := cf.data // the content uninstall should restore
	if ip.newBody, err = ip.editEntry(cf, &cfg, &before, secrets); err != nil {
		return err
	}
	newData := cf.data
	if !bytes.Equal(ip.newBody, cf.base) || !cf.existed || cf.blank {
		newData = append(bytes.Clone(cf.mark), ip.newBody...)
	}
	cfg.WrittenSHA256 = install.SHA(newData)
	cfg.Patch = nil
	if cfg.SnapshotExact {
		if pt := install.MakePatch(before, newData); !install.HasSecrets(secrets, pt.Old()) {
			cfg.Patch = pt
		} else {
			cfg.SnapshotExact = false
		}
	}
	if !bytes.Equal(newData, cf.data) || !cf.existed {
		op, mode := OpUpdate, cf.mode
		if !cf.existed {
			op, mode = OpCreate, 0o644
		}
		ip.plan.Add(Change{Op: op, Kind: KindConfig, Path: cf.path, Rel: ip.cfgName, Old: cf.data, New: newData, Mode: mode})
	}
	ip.record.Config = cfg
	return nil
}

// editEntry adds our entry to the config's plugin list, or updates the
// first one there, and returns the edited body. It fills in what cfg
// records of the entry; when the entry is ours from an earlier install,
// cfg is carried over from that record and before becomes the content the
// earlier install started from.
func (ip *initPlan) editEntry(cf *configFile, cfg *RecordConfig, before *[]byte, secrets [][]byte) ([]byte, error) {
	c, key, host := cf.doc, ip.key, ip.req.Host
	var arr *hujson.Array
	if mi := c.Member(key); mi >= 0 {
		v := &c.Obj.Members[mi].Value
		a, ok := v.Value.(*hujson.Array)
		if !ok {
			return nil, refuse(fmt.Sprintf("cannot add the plugin to %s: %v", cf.path, &install.ShapeError{Path: key, Line: c.Line(v), Shape: install.Shape(v.Value), Want: "an array"}),
				fmt.Sprintf("make %q an array (or remove it), then run init again", key))
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
		ip.plan.Warnings = append(ip.plan.Warnings, fmt.Sprintf("%s lists %s %d times in %q: OpenCode would load it more than once; init updates only the first", ip.cfgName, PackagePath, len(ours), key))
	}
	if len(ours) == 0 {
		createdKey, lay := addEntry(c, host, ip.opts)
		cfg.CreatedKey, cfg.Layout = createdKey, &lay
		return ip.checked(cf, c.Pack())
	}
	e := ours[0]
	if ip.prev != nil && ip.prev.Config.File == ip.cfgName {
		*cfg = ip.prev.Config
		cfg.Snapshot = ""
		restored, ok := ip.prev.Config.restore(cf.data)
		cfg.SnapshotExact = ip.prev.Config.SnapshotExact && ok
		*before = restored
	} else {
		cfg.EntryExisted = true
		cfg.OriginalEntry = string(trimmedText(arr.Elements[e.index]))
		if install.HasSecrets(secrets, cfg.OriginalEntry) {
			return nil, refuse(fmt.Sprintf("the existing %s entry in %s holds a literal credential, which init will not copy into its record", PackagePath, cf.path),
				"move the key into an environment variable (the apiKeyEnv option, or \"apiKey\": \"{env:DEEPSEEK_API_KEY}\"), then run init again")
		}
	}
	if e.form == host.form() && reflect.DeepEqual(e.options, install.OptionsValue(ip.opts)) {
		return ip.checked(cf, cf.base)
	}
	setOptions(c, host, arr, e, ip.opts)
	return ip.checked(cf, c.Pack())
}

// checked returns newBody once it differs from the config's body by our
// entry alone.
func (ip *initPlan) checked(cf *configFile, newBody []byte) ([]byte, error) {
	if err := checkEdit(cf.base, newBody, ip.key, true); err != nil {
		return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cf.path, err)
	}
	return newBody, nil
}

// planPluginDirs plans the directories: the config directory when it does
// not exist yet (parents first; uninstall leaves it, OpenCode keeps other
// files there), vendor/ and the plugin directory, which is created whole
// when it is missing.
func (ip *initPlan) planPluginDirs() error {
	var missing []string
	for d := ip.dir; !exists(d); d = filepath.Dir(d) {
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range missing {
		ip.vendorChanges = append(ip.vendorChanges, Change{Op: OpCreate, Kind: KindDir, Path: d, Rel: d + string(filepath.Separator), Mode: 0o755})
	}
	if ip.prev != nil {
		ip.record.CreatedDirs = ip.prev.CreatedDirs
	} else if len(missing) > 0 {
		// The config directory itself (a project's .opencode/, say): "."
		// sorts first, so uninstall removes it last, once it is empty.
		ip.record.CreatedDirs = []string{"."}
	}
	// A vendor/ or plugin directory that is a symlink out of the config
	// directory is refused: init would write (and uninstall delete) there.
	for _, d := range []string{vendorDir, pluginDir} {
		abs, err := install.Confine(ip.dir, d)
		if err != nil {
			return refuse(err.Error(), "move "+filepath.Join(ip.dir, filepath.FromSlash(d))+" away, then run init again")
		}
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist) && d == pluginDir:
			// Built under a temporary name and renamed into place, so a
			// concurrent reader never sees it half written.
			ip.tree = true
			c := Change{Op: OpCreate, Kind: install.KindTree, Path: abs, Rel: d + "/", Mode: 0o755}
			for _, f := range ip.files {
				c.Files = append(c.Files, install.TreeFile{Name: f.name, Data: f.data})
			}
			ip.vendorChanges = append(ip.vendorChanges, c)
			ip.recordCreatedDir(d)
		case errors.Is(err, fs.ErrNotExist):
			ip.vendorChanges = append(ip.vendorChanges, Change{Op: OpCreate, Kind: KindDir, Path: abs, Rel: d + "/", Mode: 0o755})
			ip.recordCreatedDir(d)
		case err != nil:
			return err
		case !fi.IsDir():
			return refuse(abs+" exists and is not a directory", "move it away, then run init again")
		}
	}
	return nil
}

// recordCreatedDir notes in the record that init created directory d.
func (ip *initPlan) recordCreatedDir(d string) {
	if !slices.Contains(ip.record.CreatedDirs, d) {
		ip.record.CreatedDirs = append(ip.record.CreatedDirs, d)
	}
}

// planPluginFiles plans the vendored files: each written, updated when it
// is still what this installer wrote, or refused when changed by hand; and
// a file of an earlier version that is no longer part of the plugin
// deleted.
func (ip *initPlan) planPluginFiles() error {
	for _, f := range ip.files {
		rel := pluginDir + "/" + f.name
		abs := filepath.Join(ip.dir, filepath.FromSlash(rel))
		rf := RecordFile{Path: rel, SHA256: install.SHA(f.data)}
		if ip.tree {
			ip.record.Files = append(ip.record.Files, rf)
			continue
		}
		cur, _, exists, err := install.ReadFile(abs)
		if err != nil {
			return err
		}
		recorded := ip.prev.file(rel)
		switch {
		case !exists:
			ip.vendorChanges = append(ip.vendorChanges, Change{Op: OpCreate, Kind: KindPlugin, Path: abs, Rel: rel, New: f.data, Mode: 0o644})
		case bytes.Equal(cur, f.data):
			rf.Existed = recorded == nil || recorded.Existed
		case recorded != nil && recorded.SHA256 == install.SHA(cur):
			rf.Existed = recorded.Existed
			ip.vendorChanges = append(ip.vendorChanges, Change{Op: OpUpdate, Kind: KindPlugin, Path: abs, Rel: rel, Old: cur, New: f.data, Mode: 0o644})
		default:
			return refuse(abs+" exists and differs from what this installer wrote (changed by hand, or not from this installer)",
				"move "+filepath.Join(ip.dir, filepath.FromSlash(pluginDir))+" away (or restore the file), then run init again")
		}
		ip.record.Files = append(ip.record.Files, rf)
	}
	if ip.prev == nil {
		return nil
	}
	for _, old := range ip.prev.Files {
		if ip.record.file(old.Path) != nil || old.Existed {
			continue
		}
		abs := filepath.Join(ip.dir, filepath.FromSlash(old.Path))
		cur, _, exists, err := install.ReadFile(abs)
		switch {
		case err != nil:
			return err
		case !exists:
		case install.SHA(cur) == old.SHA256:
			ip.vendorChanges = append(ip.vendorChanges, Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: old.Path, Old: cur})
		default:
			ip.plan.Notes = append(ip.plan.Notes, old.Path+" is no longer part of the plugin but was changed by hand; left in place")
		}
	}
	return nil
}

// planRecord plans the record: rewritten whenever anything else changes,
// or when missing.
func (ip *initPlan) planRecord() error {
	ip.record.Entry = entryText(ip.newBody, ip.key)
	if len(ip.vendorChanges) == 0 && len(ip.plan.Changes) == 0 && ip.prev != nil {
		return nil
	}
	recPath := filepath.Join(ip.dir, filepath.FromSlash(recordFile))
	recordChange := Change{Op: OpCreate, Kind: KindRecord, Path: recPath, Rel: recordFile, New: ip.record.marshal(), Mode: 0o600}
	old, _, exists, err := install.ReadFile(recPath)
	if err != nil {
		return err
	}
	if exists {
		recordChange.Op, recordChange.Old = OpUpdate, old
	}
	ip.vendorChanges = append(ip.vendorChanges, recordChange)
	return nil
}

// PlanUninstall plans reversing what init applied. It refuses (with a
// *RefusedError saying how to undo by hand) when an exact reversal is not
// possible: no record, the entry changed or removed, a vendored file changed.
func PlanUninstall(req UninstallRequest) (*Plan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
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
		return planNothing(dir, req.Scope, recPath)
	}
	p := newPlan("uninstall", req.Scope, rec.Host, dir)
	p.ConfigFile = rec.Config.File
	cfgPath := filepath.Join(dir, rec.Config.File)
	manual := manualUninstall(dir, rec.Config.File, rec.Key)
	data, mode, existed, err := install.ReadFile(cfgPath)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, refuse(cfgPath+" no longer exists, so the entry init added cannot be removed from it", manual[1:]...)
	}
	mark, body := install.SplitBOM(data)
	c, err := install.ParseJSONC(body)
	if err != nil {
		return nil, refuse(fmt.Sprintf("cannot parse %s (it became invalid since init): %v", cfgPath, err), manual...)
	}
	var recEntry any
	_ = json.Unmarshal(rec.Entry, &recEntry)
	mi := c.Member(rec.Key)
	var arr *hujson.Array
	if mi >= 0 {
		arr, _ = c.Obj.Members[mi].Value.Value.(*hujson.Array)
	}
	idx, found := -1, false
	if arr != nil {
		for _, e := range entries(arr) {
			if !isOurPath(e.name) {
				continue
			}
			found = true
			if reflect.DeepEqual(install.Plain(arr.Elements[e.index]), recEntry) {
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
	deleteConfig, restored := false, false
	if prev, ok := rec.Config.restore(data); ok && rec.Config.SnapshotExact {
		// Nothing but init touched the file: put back what was there, once
		// it is checked to differ from the file only by our entry (the
		// record may be crafted).
		if err := safeRestore(prev, data, rec.Key); err == nil {
			restored = true
			if rec.Config.Existed {
				newData = prev
			} else {
				deleteConfig = true
			}
		}
	}
	if !restored {
		if rec.Config.EntryExisted {
			v, err := allowedEntryText(rec.Config.OriginalEntry)
			if err != nil {
				return nil, refuse(fmt.Sprintf("the install record's original %s entry is not one this installer would restore: %v", PackagePath, err), manual...)
			}
			arr.Elements[idx].Value = v
		} else {
			removeEntry(c, mi, idx, rec.Config.CreatedKey, rec.Config.Layout)
		}
		newBody := c.Pack()
		if err := checkEdit(body, newBody, rec.Key, rec.Config.EntryExisted); err != nil {
			return nil, fmt.Errorf("internal error editing %s (nothing was written): %w", cfgPath, err)
		}
		newData = append(bytes.Clone(mark), newBody...)
		// What is left of a file that was absent or blank before init is
		// an empty object: go back to that.
		if !rec.Config.EntryExisted && install.EmptyObject(newBody) {
			switch {
			case !rec.Config.Existed:
				deleteConfig = true
			case rec.Config.WasBlank:
				newData = append(bytes.Clone(mark), rec.Config.BlankText...)
			case rec.Config.Snapshot != "" && install.IsBlank([]byte(rec.Config.Snapshot)):
				newData = []byte(rec.Config.Snapshot)
			}
		}
	}
	switch {
	case deleteConfig:
		p.Add(Change{Op: OpDelete, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data})
	case !bytes.Equal(newData, data):
		p.Add(Change{Op: OpUpdate, Kind: KindConfig, Path: cfgPath, Rel: rec.Config.File, Old: data, New: newData, Mode: mode})
	}

	gone := map[string]bool{recordFile: true, rec.Config.File: deleteConfig}
	for _, f := range rec.Files {
		if f.Existed {
			p.Notes = append(p.Notes, f.Path+" was there before init; left in place")
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(f.Path))
		cur, _, exists, err := install.ReadFile(abs)
		switch {
		case err != nil:
			return nil, err
		case !exists:
			p.Notes = append(p.Notes, f.Path+" is already gone")
		case install.SHA(cur) != f.SHA256:
			return nil, refuse(abs+" was changed since init wrote it, so uninstall will not delete it",
				"restore or save the file, delete "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" and "+recPath+" yourself, and remove the entry from "+cfgPath+" (or undo your change and run uninstall again)")
		default:
			p.Add(Change{Op: OpDelete, Kind: KindPlugin, Path: abs, Rel: f.Path, Old: cur})
			gone[f.Path] = true
		}
	}
	p.Add(Change{Op: OpDelete, Kind: KindRecord, Path: recPath, Rel: recordFile, Old: recData})
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
		p.Add(Change{Op: OpDelete, Kind: KindDir, Path: abs, Rel: rel})
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
	c, err := install.ParseJSONC(data)
	if err != nil {
		return nil
	}
	if mi := c.Member(key); mi >= 0 {
		if arr, ok := c.Obj.Members[mi].Value.Value.(*hujson.Array); ok {
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
	v, _, err := install.ParseValue(data)
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
func addEntry(c *install.JSONC, h Host, o install.Options) (createdKey bool, lay install.Layout) {
	key := h.Key()
	root := install.ObjItems{O: c.Obj}
	if mi := c.Member(key); mi >= 0 {
		m := &c.Obj.Members[mi]
		arr := m.Value.Value.(*hujson.Array)
		it := install.ArrItems{A: arr}
		outer, _ := install.LineIndent(m.Name.BeforeExtra)
		multi := install.IsMultiline(it, c.Multiline)
		ind := install.ItemIndent(it, outer, c.Unit)
		text := c.Lines(entryJSON(h, o, ind, c.Unit, !multi))
		old := string(arr.AfterExtra)
		lead, trail, tail := c.AppendLayout(it, multi, ind, outer)
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(text), AfterExtra: trail})
		arr.AfterExtra = tail
		return false, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
	}
	multi := install.IsMultiline(root, true) && c.Multiline
	memberInd := install.ItemIndent(root, "", c.Unit)
	var arrText string
	if multi {
		elemInd := memberInd + c.Unit
		arrText = "[\n" + elemInd + string(entryJSON(h, o, elemInd, c.Unit, false)) + "\n" + memberInd + "]"
	} else {
		arrText = "[" + string(entryJSON(h, o, "", "", true)) + "]"
	}
	keyJSON, _ := json.Marshal(key)
	wrap, err := hujson.Parse(c.Lines([]byte("{" + string(keyJSON) + ": " + arrText + "}")))
	if err != nil {
		panic(err)
	}
	m := wrap.Value.(*hujson.Object).Members[0]
	old := string(c.Obj.AfterExtra)
	lead, trail, tail := c.AppendLayout(root, multi, memberInd, "")
	m.Name.BeforeExtra, m.Value.AfterExtra = lead, trail
	c.Obj.Members = append(c.Obj.Members, m)
	c.Obj.AfterExtra = tail
	return true, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
}

// removeEntry removes element idx of the plugin list (member mi of the
// root), and the list with it when init created it and it is now empty.
// lay is what addEntry returned: the element's layout, or the list's when
// createdKey.
func removeEntry(c *install.JSONC, mi, idx int, createdKey bool, lay *install.Layout) {
	arr := c.Obj.Members[mi].Value.Value.(*hujson.Array)
	var elemLayout, keyLayout *install.Layout
	if createdKey {
		keyLayout = lay
	} else {
		elemLayout = lay
	}
	install.RemoveItem(install.ArrItems{A: arr}, idx, elemLayout)
	if createdKey && len(arr.Elements) == 0 {
		install.RemoveItem(install.ObjItems{O: c.Obj}, mi, keyLayout)
	}
}

// setOptions rewrites entry e of arr so it carries options o, in h's form,
// touching as little text as possible.
func setOptions(c *install.JSONC, h Host, arr *hujson.Array, e entry, o install.Options) {
	el := &arr.Elements[e.index]
	ind, ok := install.LineIndent(el.BeforeExtra)
	compact := !ok
	if e.form != h.form() {
		el.Value = install.ParseTrimmed(c.Lines(entryJSON(h, o, ind, c.Unit, compact)))
		return
	}
	switch v := el.Value.(type) {
	case *hujson.Object:
		for i := len(v.Members) - 1; i >= 0; i-- {
			m := &v.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "options" {
				oi, ok := install.LineIndent(m.Name.BeforeExtra)
				m.Value.Value = install.ParseTrimmed(c.Marshal(o, oi, !ok))
				return
			}
		}
		it := install.ObjItems{O: v}
		multi := install.IsMultiline(it, !compact)
		mi := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, mi, ind)
		m := hujson.ObjectMember{
			Name:  hujson.Value{BeforeExtra: lead, Value: hujson.String("options")},
			Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: install.ParseTrimmed(c.Marshal(o, mi, !multi)), AfterExtra: trail},
		}
		v.Members = append(v.Members, m)
		v.AfterExtra = tail
	case *hujson.Array:
		if len(v.Elements) >= 2 {
			oi, ok := install.LineIndent(v.Elements[1].BeforeExtra)
			if !ok {
				oi = ind
			}
			v.Elements[1].Value = install.ParseTrimmed(c.Marshal(o, oi, compact))
			return
		}
		it := install.ArrItems{A: v}
		multi := install.IsMultiline(it, false)
		ei := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, ei, ind)
		v.Elements = append(v.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(c.Marshal(o, ind, compact)), AfterExtra: trail})
		v.AfterExtra = tail
	}
}

// restore returns the content before init from the record, when cur is
// exactly what init last wrote.
func (cfg RecordConfig) restore(cur []byte) ([]byte, bool) {
	if install.SHA(cur) != cfg.WrittenSHA256 {
		return nil, false
	}
	if cfg.Patch != nil {
		return cfg.Patch.Reverse(cur)
	}
	if !cfg.Existed || cfg.Snapshot != "" {
		return []byte(cfg.Snapshot), true // a record of an earlier version
	}
	return nil, false
}

// safeRestore checks content uninstall would put back (from a record, so
// possibly crafted) against the current file: as data, the two must differ
// only by our entries, and any entry of ours in prev must be one this
// installer would write (see allowedEntry).
func safeRestore(prev, cur []byte, key string) error {
	_, pb := install.SplitBOM(prev)
	_, cb := install.SplitBOM(cur)
	if len(bytes.TrimSpace(pb)) == 0 {
		pb = []byte("{}")
	}
	np, _, err := normalized(pb, key)
	if err != nil {
		return err
	}
	nc, _, err := normalized(cb, key)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(np, nc) {
		return errors.New("the recorded content differs from the config by more than the plugin entry")
	}
	var m map[string]any
	if v, err := install.Normalize(pb); err == nil {
		m, _ = v.(map[string]any)
	}
	if arr, ok := m[key].([]any); ok {
		for _, el := range arr {
			if isOurPath(entryName(el)) {
				if err := allowedEntry(el); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// allowedEntryText parses a recorded entry and checks it with allowedEntry.
func allowedEntryText(text string) (hujson.ValueTrimmed, error) {
	v, err := hujson.Parse([]byte(text))
	if err != nil {
		return nil, err
	}
	if err := allowedEntry(install.Plain(v)); err != nil {
		return nil, err
	}
	return v.Value, nil
}

// allowedEntry accepts an entry of ours only in a shape this version
// writes, with options it would write: known options with valid values,
// and no baseURL (where the key is sent is never taken from a record).
func allowedEntry(v any) error {
	var opts any
	switch e := v.(type) {
	case string:
		if !isOurPath(e) {
			return fmt.Errorf("names %q", e)
		}
		return nil
	case map[string]any:
		for k := range e {
			if k != "package" && k != "options" {
				return fmt.Errorf("has the member %q", k)
			}
		}
		opts = e["options"]
	case []any:
		if len(e) > 2 {
			return errors.New("has more than two elements")
		}
		if len(e) == 2 {
			opts = e[1]
		}
	default:
		return errors.New("is not a plugin entry")
	}
	if !isOurPath(entryName(v)) {
		return errors.New("does not name " + PackagePath)
	}
	if opts == nil {
		return nil
	}
	raw, _ := json.Marshal(opts)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var o install.Options
	if err := dec.Decode(&o); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	if o.BaseURL != "" {
		return errors.New("sets baseURL")
	}
	return install.Validate(o)
}

// planNothing is the uninstall plan when there is no record: nothing to do
// when nothing of ours is there, a refusal with the manual steps when a
// config still lists the plugin or its directory exists (installed by hand,
// or the record was lost).
func planNothing(dir string, scope install.Scope, recPath string) (*Plan, error) {
	for _, name := range configNames {
		data, _, ok, err := install.ReadFile(filepath.Join(dir, name))
		if err != nil || !ok {
			continue
		}
		_, body := install.SplitBOM(data)
		for _, key := range []string{"plugins", "plugin"} {
			if _, n, err := normalized(body, key); err == nil && n > 0 {
				return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, name)+" lists "+PackagePath+": it was not installed by this tool (or its record was lost), so uninstall cannot reverse it exactly",
					manualUninstall(dir, name, key)...)
			}
		}
	}
	if exists(filepath.Join(dir, filepath.FromSlash(pluginDir))) {
		return nil, refuse("no install record at "+recPath+", but "+filepath.Join(dir, filepath.FromSlash(pluginDir))+" exists",
			manualUninstall(dir, "opencode.jsonc (or opencode.json)", "plugins")...)
	}
	p := newPlan("uninstall", scope, HostOpenCode, dir)
	p.Host = "OpenCode"
	p.ConfigFile, _ = pickConfig(dir, nil)
	p.UpToDate = "Nothing to uninstall: there is no install by this tool in " + dir + "."
	return p, nil
}
