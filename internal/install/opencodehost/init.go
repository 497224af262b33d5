package opencodehost

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// planInit plans installing the plugin. It reads but never writes. Invalid
// options yield an *OptionError; situations it will not handle yield a
// *RefusedError.
//
// It runs in four phases over one [initPlan]: the request and what is
// already installed (startInit), the config entry (editConfig), the plugin's
// directories and files (planPluginDirs, planPluginFiles), and the record
// (planRecord).
func planInit(req request) (*install.Plan, error) {
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
	// Files of a vendored install that are no longer needed go last, once
	// the config no longer names them.
	ip.plan.Changes = append(append(ip.vendorChanges, ip.plan.Changes...), ip.late...)
	return ip.plan, nil
}

// initPlan is one init being planned, filled in phase by phase.
type initPlan struct {
	req   request
	opts  install.Options // the request's options, tiers filled in
	files []pluginFile    // the plugin's files, the stored plan among them
	dir   string          // the config directory
	key   string          // the config key of the plugin list
	prev  *Record         // the install record found, nil when none
	plan  *install.Plan   // the plan: the config change goes in at once

	cfgName string // the config file's name in dir
	newBody []byte // the config's body after the edit (no BOM)

	record        *Record          // the record this init writes
	vendorChanges []install.Change // directories, plugin files and the record
	late          []install.Change // deletions, after the config change
	name          string           // what the entry names: packagePath or an npm spec
	tree          bool             // the plugin directory is created whole
}

// startInit checks the request, reads the plugin's files and the previous
// install's record, and picks the config file.
func startInit(req request) (*initPlan, error) {
	if req.Scope == "" {
		req.Scope = install.ScopeGlobal
	}
	if req.Host == "" {
		req.Host = HostV2
	}
	if _, err := parseHost(string(req.Host)); err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	ip := &initPlan{req: req, opts: req.Options.WithDefaults(), key: req.Host.Key(), name: packagePath}
	var err error
	if req.Package != "" {
		if v, ok := strings.CutPrefix(req.Package, npmPackage+"@"); !ok || !exactVersion.MatchString(v) {
			return nil, fmt.Errorf("package %q: want %s@<exact version>", req.Package, npmPackage)
		}
		ip.name = req.Package
	} else {
		files, err := pluginFiles(req.Plugin)
		if err != nil {
			return nil, err
		}
		if ip.files, err = withPlan(files, req.Host, ip.opts); err != nil {
			return nil, err
		}
	}
	if ip.dir, err = configDir(req.Env, req.Scope, req.Dir); err != nil {
		return nil, err
	}
	if ip.prev, _, err = readRecord(ip.dir); err != nil {
		return nil, refuse(err.Error(), "move "+filepath.Join(ip.dir, filepath.FromSlash(recordFile))+" away, undo the previous install by hand, then run init again")
	}
	if ip.prev != nil && (Host(ip.prev.Host) != req.Host || ip.prev.Key != ip.key) {
		return nil, refuse(fmt.Sprintf("%s already holds an install for %s in %s", ip.dir, Host(ip.prev.Host).label(), configOf(ip.prev).Path),
			"run `deepseek-web-retrieval uninstall` first, then init with the other --host")
	}
	ip.plan = newPlan("init", req.Scope, req.Host, ip.dir)
	ip.plan.APIKeyEnv = ip.opts.APIKeyVar()
	cfgName, warns := pickConfig(ip.dir, ip.prev)
	ip.cfgName = cfgName
	ip.plan.ConfigFile = cfgName
	ip.plan.UpToDate = fmt.Sprintf("%s already lists %s with these options, and the vendored files are current.", cfgName, packagePath)
	if ip.req.Package != "" {
		ip.plan.UpToDate = fmt.Sprintf("%s already lists %s with these options.", cfgName, ip.name)
	}
	ip.plan.Warnings = append(ip.plan.Warnings, warns...)
	ip.record = install.NewRecord(req.Version, string(req.Host), "", ip.key)
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
	if cf.data, cf.mode, cf.existed, err = install.ReadConfig(cf.path); err != nil {
		return nil, err
	}
	cf.mark, cf.body = install.SplitBOM(cf.data)
	if cf.existed && !utf8.Valid(cf.body) {
		return nil, refuse(fmt.Sprintf("%s is not valid UTF-8 at byte %d; nothing was changed", cf.path, install.InvalidUTF8At(cf.data)),
			"replace the bytes that are not UTF-8, then run init again")
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
	cfg := RecordFile{Path: ip.cfgName, Existed: cf.existed, PatchExact: true}
	if cf.existed && cf.blank {
		text := string(cf.body)
		cfg.BlankText = &text
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
	if cfg.PatchExact {
		if pt := install.MakePatch(before, newData); !install.HasSecrets(secrets, pt.Old()) {
			cfg.Patch = pt
		} else {
			cfg.PatchExact = false
		}
	}
	if !bytes.Equal(newData, cf.data) || !cf.existed {
		op, mode := install.OpUpdate, cf.mode
		if !cf.existed {
			op, mode = install.OpCreate, 0o644
		}
		ip.plan.Add(install.Change{Op: op, Kind: install.KindConfig, Path: cf.path, Rel: ip.cfgName, Old: cf.data, New: newData, Mode: mode})
	}
	ip.record.Files = append([]RecordFile{cfg}, ip.record.Files...)
	return nil
}

// editEntry adds our entry to the config's plugin list, or updates the
// first one there, and returns the edited body. It fills in what cfg
// records of the entry; when the entry is ours from an earlier install,
// cfg is carried over from that record and before becomes the content the
// earlier install started from.
func (ip *initPlan) editEntry(cf *configFile, cfg *RecordFile, before *[]byte, secrets [][]byte) ([]byte, error) {
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
		ip.plan.Warnings = append(ip.plan.Warnings, fmt.Sprintf("%s lists %s %d times in %q: OpenCode would load it more than once; init updates only the first", ip.cfgName, packagePath, len(ours), key))
	}
	if len(ours) == 0 {
		createdKey, lay := addEntry(c, host, ip.name, ip.opts)
		cfg.EntryLayout = &lay
		if createdKey {
			cfg.EntryCreated = 1
		}
		return ip.checked(cf, c.Pack())
	}
	e := ours[0]
	if prev := ip.prev.File(ip.cfgName); prev != nil {
		*cfg = *prev
		cfg.Snapshot = ""
		restored, ok := restore(prev, cf.data)
		cfg.PatchExact = prev.PatchExact && ok
		*before = restored
	} else {
		cfg.EntryExisted = true
		cfg.EntryOriginal = string(trimmedText(arr.Elements[e.index]))
		if install.HasSecrets(secrets, cfg.EntryOriginal) {
			return nil, refuse(fmt.Sprintf("the existing %s entry in %s holds a literal credential, which init will not copy into its record", packagePath, cf.path),
				"move the key into an environment variable (the apiKeyEnv option, or \"apiKey\": \"{env:DEEPSEEK_API_KEY}\"), then run init again")
		}
	}
	if e.form == host.form() && sameName(e.name, ip.name) && reflect.DeepEqual(e.options, install.OptionsValue(ip.opts)) {
		return ip.checked(cf, cf.base)
	}
	setOptions(c, host, arr, e, ip.name, ip.opts)
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
// files there), vendor/ (for the record) and, unless the entry names an npm
// package, the plugin directory, which is created whole when it is missing.
func (ip *initPlan) planPluginDirs() error {
	missing := install.MissingDirs(ip.dir)
	for _, d := range missing {
		ip.vendorChanges = append(ip.vendorChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: d + string(filepath.Separator), Mode: 0o755})
	}
	if ip.prev != nil {
		ip.record.CreatedDirs = slices.Clone(ip.prev.CreatedDirs)
	} else if len(missing) > 0 {
		// The config directory itself (a project's .opencode/, say): "."
		// sorts first, so uninstall removes it last, once it is empty.
		ip.record.CreatedDirs = []string{"."}
	}
	// A vendor/ or plugin directory that is a symlink out of the config
	// directory is refused: init would write (and uninstall delete) there.
	for _, d := range []string{vendorDir, pluginDir} {
		if d == pluginDir && ip.req.Package != "" {
			break
		}
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
			c := install.Change{Op: install.OpCreate, Kind: install.KindTree, Path: abs, Rel: d + "/", Mode: 0o755}
			for _, f := range ip.files {
				c.Files = append(c.Files, install.TreeFile{Name: f.name, Data: f.data})
			}
			ip.vendorChanges = append(ip.vendorChanges, c)
			ip.recordCreatedDir(d)
		case errors.Is(err, fs.ErrNotExist):
			ip.vendorChanges = append(ip.vendorChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: abs, Rel: d + "/", Mode: 0o755})
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
		rf := RecordFile{Path: rel, WrittenSHA256: install.SHA(f.data)}
		if ip.tree {
			ip.record.Files = append(ip.record.Files, rf)
			continue
		}
		cur, _, exists, err := install.ReadFile(abs)
		if err != nil {
			return err
		}
		recorded := ip.prev.File(rel)
		switch {
		case !exists:
			ip.vendorChanges = append(ip.vendorChanges, install.Change{Op: install.OpCreate, Kind: install.KindFile, Path: abs, Rel: rel, New: f.data, Mode: 0o644})
		case bytes.Equal(cur, f.data):
			rf.Existed = recorded == nil || recorded.Existed
		case recorded != nil && recorded.WrittenSHA256 == install.SHA(cur):
			rf.Existed = recorded.Existed
			ip.vendorChanges = append(ip.vendorChanges, install.Change{Op: install.OpUpdate, Kind: install.KindFile, Path: abs, Rel: rel, Old: cur, New: f.data, Mode: 0o644})
		default:
			return refuse(abs+" exists and differs from what this installer wrote (changed by hand, or not from this installer)",
				"move "+filepath.Join(ip.dir, filepath.FromSlash(pluginDir))+" away (or restore the file), then run init again")
		}
		ip.record.Files = append(ip.record.Files, rf)
	}
	if ip.prev == nil {
		return nil
	}
	for _, old := range vendoredFiles(ip.prev) {
		if ip.record.File(old.Path) != nil || old.Existed {
			continue
		}
		abs := filepath.Join(ip.dir, filepath.FromSlash(old.Path))
		cur, _, exists, err := install.ReadFile(abs)
		switch {
		case err != nil:
			return err
		case !exists:
		case install.SHA(cur) == old.WrittenSHA256:
			// Switching to the npm package: deleted once the config no
			// longer names the vendored path.
			del := install.Change{Op: install.OpDelete, Kind: install.KindFile, Path: abs, Rel: old.Path, Old: cur}
			if ip.req.Package != "" {
				ip.late = append(ip.late, del)
			} else {
				ip.vendorChanges = append(ip.vendorChanges, del)
			}
		default:
			ip.plan.Notes = append(ip.plan.Notes, old.Path+" is no longer part of the plugin but was changed by hand; left in place")
		}
	}
	if ip.req.Package != "" {
		return ip.removePluginDir()
	}
	return nil
}

// removePluginDir plans deleting the plugin directory an earlier vendored
// install created, once the entry names the npm package instead: when
// every file left in it is one being deleted. Otherwise it stays, and the
// record keeps it for uninstall.
func (ip *initPlan) removePluginDir() error {
	if !slices.Contains(ip.record.CreatedDirs, pluginDir) {
		return nil
	}
	abs := filepath.Join(ip.dir, filepath.FromSlash(pluginDir))
	ents, err := os.ReadDir(abs)
	if errors.Is(err, fs.ErrNotExist) {
		ip.record.CreatedDirs = slices.DeleteFunc(ip.record.CreatedDirs, func(d string) bool { return d == pluginDir })
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		gone := slices.ContainsFunc(ip.late, func(c install.Change) bool { return c.Rel == pluginDir+"/"+e.Name() })
		if !gone {
			ip.plan.Notes = append(ip.plan.Notes, pluginDir+"/ holds files init did not write ("+e.Name()+"); left in place")
			return nil
		}
	}
	ip.late = append(ip.late, install.Change{Op: install.OpDelete, Kind: install.KindDir, Path: abs, Rel: pluginDir + "/"})
	ip.record.CreatedDirs = slices.DeleteFunc(ip.record.CreatedDirs, func(d string) bool { return d == pluginDir })
	return nil
}

// planRecord plans the record: rewritten whenever anything else changes,
// or when missing.
func (ip *initPlan) planRecord() error {
	configOf(ip.record).Entry = entryText(ip.newBody, ip.key)
	if len(ip.vendorChanges) == 0 && len(ip.plan.Changes) == 0 && len(ip.late) == 0 && ip.prev != nil {
		return nil
	}
	recPath := filepath.Join(ip.dir, filepath.FromSlash(recordFile))
	recordChange := install.Change{Op: install.OpCreate, Kind: install.KindRecord, Path: recPath, Rel: recordFile, New: ip.record.Marshal(), Mode: 0o600}
	old, _, exists, err := install.ReadFile(recPath)
	if err != nil {
		return err
	}
	if exists {
		recordChange.Op, recordChange.Old = install.OpUpdate, old
	}
	ip.vendorChanges = append(ip.vendorChanges, recordChange)
	return nil
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
	case rec != nil:
		return configOf(rec).Path, warns
	case jsonc || !json:
		return "opencode.jsonc", warns
	}
	return "opencode.json", warns
}

type pluginFile struct {
	name string
	data []byte
}

// errNoPlugin is returned when the plugin files given to init are
// incomplete (typically a binary built before plugin/core.wasm existed).
var errNoPlugin = errors.New("the plugin files are incomplete")

func pluginFiles(fsys fs.FS) ([]pluginFile, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: none given", errNoPlugin)
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
		return nil, fmt.Errorf("%w: core.wasm is missing or not WebAssembly (build it into plugin/ before building this binary)", errNoPlugin)
	}
	if have("package.json") == nil {
		return nil, fmt.Errorf("%w: package.json is missing", errNoPlugin)
	}
	return out, nil
}
