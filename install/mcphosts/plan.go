package mcphosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
)

// RecordFormat is the version of the MCP hosts' install record format.
const RecordFormat = 1

// Record is what init keeps so uninstall can reverse exactly what it did
// to a host's files. It lives in the user's state directory (see
// recordPath), mode 0600, and holds no copy of any file: a hash-anchored
// patch of the lines init changed, and what init added, so uninstall can
// remove that structurally when the file changed since.
type Record struct {
	Format  int          `json:"format"`
	Tool    string       `json:"tool"`
	Version string       `json:"version,omitempty"`
	Host    Host         `json:"host"`
	Scope   string       `json:"scope"`
	Files   []RecordFile `json:"files"`
	// CreatedDirs are directories init created, parents first.
	CreatedDirs []string `json:"createdDirs,omitempty"`
	// StateDirs are the directories init created to hold the record,
	// parents first; uninstall removes those left empty.
	StateDirs []string `json:"stateDirs,omitempty"`
}

// RecordFile is one file init changed.
type RecordFile struct {
	// Path is absolute; it must be one of the files the host's adapter
	// owns for this scope, or the record is refused.
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	// WrittenSHA256 is the SHA-256 of what init last left in the file.
	WrittenSHA256 string `json:"writtenSHA256"`
	// Patch restores the content before init while the file is unchanged;
	// nil when unknown or when the replaced lines hold a credential.
	Patch *install.Patch `json:"patch,omitempty"`
	// Server is the entry init wrote (plain JSON), when this file holds it.
	Server json.RawMessage `json:"server,omitempty"`
	// ServerCreated is how many elements of the entry's path init created.
	ServerCreated int `json:"serverCreated,omitempty"`
	// ServerExisted reports that the same entry was there before init (a
	// committed project file): uninstall leaves it.
	ServerExisted bool `json:"serverExisted,omitempty"`
	// ServerOriginal is the text of that entry (JSON files), for
	// uninstall to put back once a later init changed it (a tier
	// changed); empty when it holds a credential.
	ServerOriginal string `json:"serverOriginal,omitempty"`
	// ServerLayout is the whitespace the entry's insertion moved, so that
	// removing it structurally (no patch, or a patch that no longer
	// applies) still gives back the bytes around it.
	ServerLayout *install.Layout `json:"serverLayout,omitempty"`
	// BlankText is the file's text (after any BOM) when it held only
	// whitespace before init: what uninstall puts back once our parts
	// are gone.
	BlankText *string `json:"blankText,omitempty"`
	// Adds are the strings init added to arrays, with how many path
	// elements it created for each.
	Adds []RecordAdd `json:"adds,omitempty"`
	// TopKey is the TOML top-level key line init wrote, with the line it
	// replaced (Prev) or the text it inserted.
	TopKey *RecordTopKey `json:"topKey,omitempty"`
	// TOMLEntry is how init wrote the TOML entry (a table, or a member of
	// an inline table) and the text it put around it, so uninstall takes
	// out exactly that even when the file changed elsewhere since.
	TOMLEntry *install.TOMLEntry `json:"tomlEntry,omitempty"`
}

// RecordAdd is one array edit.
type RecordAdd struct {
	Path    []string `json:"path"`
	Items   []string `json:"items"`
	Created int      `json:"created,omitempty"`
	// Layouts are the whitespace each append moved (see ServerLayout).
	Layouts []install.Layout `json:"layouts,omitempty"`
}

// RecordTopKey is a TOML top-level key edit.
type RecordTopKey struct {
	Key      string `json:"key"`
	Line     string `json:"line"`
	Prev     string `json:"prev,omitempty"`
	Inserted string `json:"inserted,omitempty"`
}

func (r *Record) file(p string) *RecordFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if r.Files[i].Path == p {
			return &r.Files[i]
		}
	}
	return nil
}

func (r *Record) marshal() []byte { return append(install.Marshal(r, "", "  ", false), '\n') }

// readRecord reads and checks the record: every file it names must be one
// of ts, every directory an ancestor of one inside the root.
func readRecord(p string, rs *resolved, ts []target) (*Record, []byte, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("unreadable install record %s: %v", p, err)
	}
	if r.Format != RecordFormat || r.Tool != install.Name || r.Host != rs.Host || r.Scope != string(rs.Scope) {
		return nil, nil, fmt.Errorf("install record %s is not one of %s for %s", p, install.Name, rs.Host)
	}
	for _, f := range r.Files {
		if !slices.ContainsFunc(ts, func(t target) bool { return t.path == f.Path }) {
			return nil, nil, fmt.Errorf("install record %s names %s, a file this installer never writes for %s", p, f.Path, rs.Host)
		}
	}
	for _, d := range r.StateDirs {
		if rel, err := filepath.Rel(d, p); err != nil || strings.HasPrefix(rel, "..") || d == filepath.Dir(d) {
			return nil, nil, fmt.Errorf("install record %s names the directory %s, which this installer never creates", p, d)
		}
	}
	for _, d := range r.CreatedDirs {
		ok := false
		for _, t := range ts {
			if rel, err := filepath.Rel(d, t.path); err == nil && !strings.HasPrefix(rel, "..") && strings.HasPrefix(d, rs.root+string(filepath.Separator)) {
				ok = true
			}
		}
		if !ok {
			return nil, nil, fmt.Errorf("install record %s names the directory %s, which this installer never creates", p, d)
		}
	}
	return &r, data, nil
}

// PlanInit plans installing the MCP server into one host. It only reads.
func PlanInit(req Request) (*install.Plan, error) {
	rs, err := resolve(req)
	if err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(req.Binary) {
		return nil, fmt.Errorf("the binary's path %q is not absolute", req.Binary)
	}
	rs.args = Args(req.Options)
	a := adapters[req.Host]
	ts := a.targets(rs)
	recPath := rs.recordPath(ts[0].path)
	rec, _, err := readRecord(recPath, rs, ts)
	if err != nil {
		return nil, install.Refuse(err.Error(), "move "+recPath+" away, undo the previous install by hand, then run init again")
	}
	p := rs.newPlan("init", ts)
	p.UpToDate = fmt.Sprintf("%s already has the %s MCP server with these options.", p.ConfigFile, install.Name)
	newRecord := &Record{Format: RecordFormat, Tool: install.Name, Version: req.Version, Host: req.Host, Scope: string(rs.Scope)}
	if rec != nil {
		newRecord.CreatedDirs, newRecord.StateDirs = rec.CreatedDirs, rec.StateDirs
	}
	var cfgs []parsed
	var dirChanges []install.Change
	for _, t := range ts {
		cur, mode, err := readTarget(t)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cur)
		if cur.err != nil {
			return nil, install.Refuse(fmt.Sprintf("cannot parse %s: %v", t.path, cur.err), "fix the file, then run init again")
		}
		prev := rec.file(t.path)
		rf, newData, warns, err := editInit(rs, t, cur, prev)
		if err != nil {
			return nil, err
		}
		p.Warnings = append(p.Warnings, warns...)
		if rf == nil {
			continue // nothing of ours in this file, now or before
		}
		newRecord.Files = append(newRecord.Files, *rf)
		if cur.exists && bytes.Equal(newData, cur.data) {
			continue
		}
		op := install.OpUpdate
		if !cur.exists {
			op, mode = install.OpCreate, 0o644
			for _, d := range missingDirs(filepath.Dir(t.path)) {
				dirChanges = append(dirChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rs.rel(d) + "/", Mode: 0o755})
				if strings.HasPrefix(d, rs.root+string(filepath.Separator)) && !slices.Contains(newRecord.CreatedDirs, d) {
					newRecord.CreatedDirs = append(newRecord.CreatedDirs, d)
				}
			}
		}
		p.Add(install.Change{Op: op, Kind: install.KindConfig, Path: t.path, Rel: rs.rel(t.path), Old: cur.data, New: newData, Mode: mode})
	}
	a.traps(rs, p, cfgs)
	p.Warnings = append(p.Warnings, conflictWarnings(rs, ts, cfgs)...)
	p.Warnings = append(p.Warnings, binaryWarnings(rs, ts, cfgs)...)
	if len(p.Changes) > 0 || rec == nil {
		recordChange := install.Change{Op: install.OpCreate, Kind: install.KindRecord, Path: recPath, Rel: rs.rel(recPath), New: newRecord.marshal(), Mode: 0o600}
		if old, _, ok, err := install.ReadFile(recPath); err != nil {
			return nil, err
		} else if ok {
			recordChange.Op, recordChange.Old = install.OpUpdate, old
		} else {
			newRecord.StateDirs = inheritedStateDirs(filepath.Dir(recPath), recPath)
			for _, d := range missingDirs(filepath.Dir(recPath)) {
				dirChanges = append(dirChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rs.rel(d) + "/", Mode: 0o700})
				if !slices.Contains(newRecord.StateDirs, d) {
					newRecord.StateDirs = append(newRecord.StateDirs, d)
				}
			}
			recordChange.New = newRecord.marshal()
		}
		if len(p.Changes) > 0 || recordChange.Op == install.OpCreate {
			p.Changes = append(dirChanges, append(p.Changes, recordChange)...)
		}
	}
	if len(p.Changes) > 0 && rec == nil {
		p.Notes = append(p.Notes, "the install record goes to "+recPath+" (outside the project, mode 0600); uninstall needs it")
	}
	return p, nil
}

// missingDirs returns the directories up to d that do not exist, parents first.
func missingDirs(d string) []string {
	var out []string
	for ; !exists(d); d = filepath.Dir(d) {
		out = append([]string{d}, out...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// editInit computes one file's new content and its record.
func editInit(rs *resolved, t target, cur parsed, prev *RecordFile) (*RecordFile, []byte, []string, error) {
	var warns []string
	mark, _ := install.SplitBOM(cur.data)
	rf := &RecordFile{Path: t.path, Existed: cur.exists}
	if _, body := install.SplitBOM(cur.data); cur.exists && !t.toml && install.IsBlank(body) {
		text := string(body)
		rf.BlankText = &text
	}
	before := cur.data
	known := true
	if prev != nil {
		rf.Existed = prev.Existed
		rf.ServerCreated = prev.ServerCreated
		rf.ServerExisted = prev.ServerExisted
		rf.Adds = prev.Adds
		rf.TopKey = prev.TopKey
		rf.TOMLEntry = prev.TOMLEntry
		rf.ServerLayout = prev.ServerLayout
		rf.BlankText = prev.BlankText
		rf.ServerOriginal = prev.ServerOriginal
		b, ok := []byte(nil), false
		if prev.Patch != nil {
			b, ok = prev.Patch.Reverse(cur.data)
		}
		before, known = b, ok
	}
	// What the check below may see changed: this run's parts and the ones
	// an earlier run added.
	tcheck := t
	if prev != nil {
		tcheck = recordTarget(t, prev)
	}
	var out []byte
	switch {
	case t.toml:
		var err error
		if out, warns, err = editInitTOML(rs, t, cur, prev, rf, mark); err != nil {
			return nil, nil, nil, err
		}
		_, after, err := install.ParseTOML(out[len(mark):])
		if err != nil || !equalExcept(cur.tomlV, after, tcheck) {
			return nil, nil, nil, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
		}
	default:
		c := cur.json
		if t.server {
			existing := c.LookupPlain(t.serverPath...)
			if existing == nil && prev == nil && c.Lookup(t.serverPath...) != nil {
				// "deepseek-web-retrieval": null is the user's, not absent.
				return nil, nil, nil, install.Refuse(fmt.Sprintf("%s already has an entry %q that this installer did not write", t.path, strings.Join(t.serverPath, ".")),
					"remove the entry (or run `deepseek-web-retrieval uninstall` if an earlier install wrote it), then run init again")
			}
			if existing != nil && prev == nil {
				want, _ := install.Normalize(mustJSON(t.entry))
				rf.ServerExisted = true
				if !reflect.DeepEqual(existing, want) {
					return nil, nil, nil, install.Refuse(fmt.Sprintf("%s already has an entry %q that this installer did not write", t.path, strings.Join(t.serverPath, ".")),
						"remove the entry (or run `deepseek-web-retrieval uninstall` if an earlier install wrote it), then run init again")
				}
				if text := string(hujson.Value{Value: c.Lookup(t.serverPath...).Value}.Pack()); !install.HasSecrets(install.Secrets(t.path, cur.data), text) {
					rf.ServerOriginal = text
				}
			}
			if existing == nil || !jsonEqual(mustJSON(existing), mustJSON(t.entry)) {
				n, lay, err := c.Set(t.serverPath, t.entry)
				if err != nil {
					return nil, nil, nil, install.Refuse(fmt.Sprintf("cannot add the entry to %s: %v", t.path, err),
						fmt.Sprintf("make %q an object (or remove it), then run init again", strings.Join(t.serverPath[:len(t.serverPath)-1], ".")))
				}
				if prev == nil {
					rf.ServerCreated, rf.ServerLayout = n, lay
				}
				rf.ServerExisted = false // ours now: uninstall removes it
			}
			rf.Server = json.RawMessage(mustJSON(t.entry))
		}
		var adds []RecordAdd
		for _, ad := range t.adds {
			added, created, lays, err := c.AddStrings(ad.Path, ad.Items)
			if err != nil {
				return nil, nil, nil, install.Refuse(fmt.Sprintf("cannot turn the built-in off in %s: %v", t.path, err), fmt.Sprintf("make %q an array, then run init again", strings.Join(ad.Path, ".")))
			}
			// Keep what an earlier run added.
			for _, old := range rf.Adds {
				if slices.Equal(old.Path, ad.Path) {
					added = append(old.Items, added...)
					created = max(created, old.Created)
					lays = append(old.Layouts, lays...)
				}
			}
			if len(added) > 0 {
				adds = append(adds, RecordAdd{Path: ad.Path, Items: dedupe(added), Created: created, Layouts: lays})
			}
		}
		// Strings an earlier run added that this run does not want (a tier
		// lowered) are removed again.
		for _, old := range rf.Adds {
			if !slices.ContainsFunc(t.adds, func(a addEdit) bool { return slices.Equal(a.Path, old.Path) }) {
				c.RemoveStrings(old.Path, old.Items, old.Created, old.Layouts...)
			}
		}
		rf.Adds = adds
		body := c.Pack()
		out = append(bytes.Clone(mark), body...)
		after, err := install.Normalize(body)
		if err != nil || !equalExcept(cur.plain, after, tcheck) {
			return nil, nil, nil, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
		}
	}
	if !t.server && len(rf.Adds) == 0 && rf.TopKey == nil && prev == nil {
		return nil, out, warns, nil
	}
	rf.WrittenSHA256 = install.SHA(out)
	if known {
		if !cur.exists {
			before = nil
		}
		pt := install.MakePatch(before, out)
		if !install.HasSecrets(install.Secrets(t.path, cur.data), pt.Old()) {
			rf.Patch = pt
		}
	}
	dropSecretLayouts(rf, install.Secrets(t.path, cur.data))
	return rf, out, warns, nil
}

// dropSecretLayouts leaves out of the record any layout whose text (a
// comment beside our entry) holds a credential: the record never copies
// one. Uninstall then removes that item with the generic whitespace rule.
func dropSecretLayouts(rf *RecordFile, secrets [][]byte) {
	bad := func(l install.Layout) bool { return install.HasSecrets(secrets, l.Lead, l.TailBefore, l.TailAfter) }
	if rf.ServerLayout != nil && bad(*rf.ServerLayout) {
		rf.ServerLayout = nil
	}
	for i := range rf.Adds {
		rf.Adds[i].Layouts = slices.DeleteFunc(slices.Clone(rf.Adds[i].Layouts), bad)
	}
}

func layouts(l *install.Layout) []install.Layout {
	if l == nil {
		return nil
	}
	return []install.Layout{*l}
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// tomlShapeRefusal turns a shape the TOML editor cannot edit into a
// refusal naming the file and the line.
func tomlShapeRefusal(path string, err error, how ...string) error {
	var se *install.TOMLShapeError
	if errors.As(err, &se) {
		if se.Fix != "" {
			how = []string{se.Fix}
		}
		return install.Refuse(fmt.Sprintf("%s line %d: %s", path, se.Line, se.Shape), how...)
	}
	return fmt.Errorf("internal error editing %s (nothing was written): %v", path, err)
}

var tomlForms = map[string]string{
	"table":  "as a [%s] table",
	"dotted": "with dotted keys (%s.… = …)",
	"inline": "inside an inline table (%s = { … })",
	"value":  "as an inline table (%s = { … })",
	"mixed":  "with a table and dotted keys (%s)",
}

// editInitTOML adds or updates the entry and the top-level key in a TOML
// target: the entry is added in the form the file's parent table takes
// (see install.TOMLDoc.AddEntry); a shape it cannot take (an array of
// tables, a parent that is not a table) is refused with its line.
func editInitTOML(rs *resolved, t target, cur parsed, prev *RecordFile, rf *RecordFile, mark []byte) ([]byte, []string, error) {
	var warns []string
	doc := cur.toml
	fix := "change that definition by hand, then run init again"
	// A tier lowered: the key an earlier run wrote goes first (the reverse
	// of the order init adds them in).
	if t.topKey == nil && rf.TopKey != nil {
		if _, err := doc.RemoveTopKey(rf.TopKey.Key, rf.TopKey.Line, rf.TopKey.Prev, rf.TopKey.Inserted); err != nil {
			return nil, nil, tomlShapeRefusal(t.path, err, fix)
		}
		rf.TopKey = nil
	}
	if t.server {
		parent, name := t.serverPath[0], t.serverPath[1]
		want := tomlWant(t)
		form, line, err := doc.EntryForm(parent, name)
		if err != nil {
			return nil, nil, tomlShapeRefusal(t.path, err, fix)
		}
		same := form != "" && jsonEqual(mustJSON(lookup(cur.tomlV, t.serverPath...)), mustJSON(want))
		switch {
		case same && prev == nil:
			rf.ServerExisted = true // the same entry, committed: adopted, and left by uninstall
		case same:
		case form != "" && prev == nil:
			what := strings.Join(t.serverPath, ".")
			if form == "inline" {
				what = parent
			}
			return nil, nil, install.Refuse(fmt.Sprintf("%s line %d: %s is already defined "+tomlForms[form]+", and this installer did not write it", t.path, line, strings.Join(t.serverPath, "."), what),
				"remove that entry (or run `deepseek-web-retrieval uninstall` if an earlier install wrote it), then run init again")
		default:
			if form != "" {
				if _, err := doc.RemoveEntry(parent, name, rf.TOMLEntry); err != nil {
					return nil, nil, tomlShapeRefusal(t.path, err, fix)
				}
			}
			e, err := doc.AddEntry(parent, name, t.tomlKVs)
			if err != nil {
				return nil, nil, tomlShapeRefusal(t.path, err, fix)
			}
			rf.TOMLEntry = e
			rf.ServerExisted = false // ours now: uninstall removes it
		}
		rf.Server = mustJSON(want)
	}
	if t.topKey != nil {
		line := doc.TopKeyLine(t.topKey.Key)
		switch {
		case rf.TopKey != nil && line == strings.TrimRight(rf.TopKey.Line, "\r\n"):
		case rf.TopKey != nil:
			warns = append(warns, fmt.Sprintf("%s: the %s line init wrote was changed by hand (%q); init leaves it", rs.rel(t.path), t.topKey.Key, strings.TrimSpace(line)))
		default:
			pl, ins, err := doc.SetTopKey(t.topKey.Key, strings.TrimRight(t.topKey.Line, "\r\n"))
			if err != nil {
				return nil, nil, tomlShapeRefusal(t.path, err, fix)
			}
			rf.TopKey = &RecordTopKey{Key: t.topKey.Key, Line: t.topKey.Line, Prev: pl, Inserted: ins}
		}
	}
	return append(bytes.Clone(mark), doc.Bytes()...), warns, nil
}

// tomlWant is the entry's value as a TOML parser reads it.
func tomlWant(t target) any {
	var b strings.Builder
	b.WriteString("[" + strings.Join(t.serverPath, ".") + "]\n")
	for _, kv := range t.tomlKVs {
		b.WriteString(kv.Key + " = " + kv.Value + "\n")
	}
	_, v, err := install.ParseTOML([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return lookup(v, t.serverPath...)
}

// recordTarget is t with what the record says an earlier run added (the
// parts a check may see changed).
func recordTarget(t target, rf *RecordFile) target {
	for _, old := range rf.Adds {
		t.adds = append(t.adds, addEdit{Path: old.Path, Items: old.Items})
	}
	if rf.TopKey != nil && t.topKey == nil {
		t.topKey = &topKeyEdit{Key: rf.TopKey.Key, Line: rf.TopKey.Line}
	}
	return t
}

// UninstallPlan plans reversing what init did to one host. With no record
// and nothing of ours in the host's files, the plan is empty ("nothing to
// uninstall"); with no record but our entry present, it refuses with the
// manual steps.
func PlanUninstall(req Request) (*install.Plan, error) {
	rs, err := resolve(req)
	if err != nil {
		return nil, err
	}
	a := adapters[req.Host]
	ts := a.targets(rs)
	p := rs.newPlan("uninstall", ts)
	recPath := rs.recordPath(ts[0].path)
	manual := []string{fmt.Sprintf("remove the %q entry from %s", strings.Join(ts[0].serverPath, "."), ts[0].path)}
	for _, t := range ts[1:] {
		for _, ad := range t.adds {
			manual = append(manual, fmt.Sprintf("remove %s from %q in %s if init added them", strings.Join(ad.Items, ", "), strings.Join(ad.Path, "."), t.path))
		}
	}
	if t := ts[0]; t.topKey != nil {
		manual = append(manual, fmt.Sprintf("remove the line %q from %s if init added it", strings.TrimSpace(t.topKey.Line), t.path))
	}
	manual = append(manual, "delete "+recPath)
	rec, recData, err := readRecord(recPath, rs, ts)
	if err != nil {
		return nil, install.Refuse(err.Error(), manual...)
	}
	if rec == nil {
		cur, _, err := readTarget(ts[0])
		if err == nil && cur.err == nil && lookup(cur.plain, ts[0].serverPath...) != nil {
			return nil, install.Refuse(fmt.Sprintf("no install record at %s, but %s has the %s entry: it was not installed by this tool here (or its record was lost), so uninstall cannot reverse it exactly", recPath, ts[0].path, install.Name), manual...)
		}
		p.UpToDate = fmt.Sprintf("Nothing to uninstall: %s has no install by this tool (%s scope).", adapters[req.Host].label, rs.Scope)
		return p, nil
	}
	gone := map[string]bool{}
	for _, t := range ts {
		rf := rec.file(t.path)
		if rf == nil {
			continue
		}
		cur, mode, err := readTarget(t)
		if err != nil {
			return nil, err
		}
		if !cur.exists {
			p.Notes = append(p.Notes, rs.rel(t.path)+" is already gone")
			gone[t.path] = true
			continue
		}
		newData, del, err := editUninstall(rs, t, cur, rf, manual)
		if err != nil {
			return nil, err
		}
		switch {
		case del:
			p.Add(install.Change{Op: install.OpDelete, Kind: install.KindConfig, Path: t.path, Rel: rs.rel(t.path), Old: cur.data})
			gone[t.path] = true
		case !bytes.Equal(newData, cur.data):
			p.Add(install.Change{Op: install.OpUpdate, Kind: install.KindConfig, Path: t.path, Rel: rs.rel(t.path), Old: cur.data, New: newData, Mode: mode})
		}
	}
	p.Add(install.Change{Op: install.OpDelete, Kind: install.KindRecord, Path: recPath, Rel: rs.rel(recPath), Old: recData})
	gone[recPath] = true
	// The directories init created go when they are empty once every plan
	// of the run is applied (another host's record may leave them in use).
	// The state directory's own two are always ours to remove when empty.
	state := filepath.Dir(filepath.Dir(recPath))
	dirs := append(append([]string{}, rec.CreatedDirs...), rec.StateDirs...)
	for _, d := range []string{state, filepath.Dir(recPath)} {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	sort.SliceStable(dirs, func(i, j int) bool { return len(dirs[i]) < len(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if d := dirs[i]; exists(d) {
			p.Add(install.Change{Op: install.OpDelete, Kind: install.KindDir, Path: d, Rel: rs.rel(d) + "/", IfEmpty: true})
		}
	}
	return p, nil
}

// inheritedStateDirs returns the state directories that installs into
// other hosts recorded as created by this tool: a new record keeps them
// too, so whichever install is uninstalled last removes them.
func inheritedStateDirs(recDir, self string) []string {
	ents, err := os.ReadDir(recDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(recDir, e.Name())
		if p == self || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var r Record
		if json.Unmarshal(data, &r) != nil || r.Tool != install.Name {
			continue
		}
		for _, d := range r.StateDirs {
			if rel, err := filepath.Rel(d, recDir); err == nil && !strings.HasPrefix(rel, "..") && d != filepath.Dir(d) && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

// editUninstall computes one file's content after uninstall; del reports
// that the file is to be deleted (init created it and nothing else is in it).
func editUninstall(rs *resolved, t target, cur parsed, rf *RecordFile, manual []string) ([]byte, bool, error) {
	// What init may have changed: this host's parts as the record has them
	// (uninstall's own options do not say which tiers init ran with).
	t = recordTarget(t, rf)
	tcheck := t
	// Unchanged since init: reverse the patch (checked as data).
	if rf.Patch != nil {
		if prev, ok := rf.Patch.Reverse(cur.data); ok {
			if !rf.Existed {
				return nil, true, nil
			}
			if pv, err := plainOf(t, prev); err == nil && cur.err == nil && equalExcept(pv, cur.plain, tcheck) {
				return prev, false, nil
			}
		}
	}
	if cur.err != nil {
		return nil, false, install.Refuse(fmt.Sprintf("cannot parse %s (it became invalid since init): %v", t.path, cur.err), manual...)
	}
	mark, _ := install.SplitBOM(cur.data)
	var out []byte
	if t.toml {
		doc := cur.toml
		// The reverse of init's order: the top-level key, then the entry.
		if k := rf.TopKey; k != nil {
			if _, err := doc.RemoveTopKey(k.Key, k.Line, k.Prev, k.Inserted); err != nil {
				return nil, false, tomlShapeRefusal(t.path, err, manual...)
			}
		}
		if rf.Server != nil && !rf.ServerExisted {
			got := lookup(cur.tomlV, t.serverPath...)
			switch {
			case got == nil:
			case !jsonEqual(mustJSON(got), rf.Server):
				return nil, false, install.Refuse(fmt.Sprintf("the %s entry in %s was changed since init wrote it", strings.Join(t.serverPath, "."), t.path), manual...)
			default:
				if _, err := doc.RemoveEntry(t.serverPath[0], t.serverPath[1], rf.TOMLEntry); err != nil {
					return nil, false, tomlShapeRefusal(t.path, err, manual...)
				}
			}
		}
		out = append(bytes.Clone(mark), doc.Bytes()...)
		_, after, err := install.ParseTOML(out[len(mark):])
		if err != nil || !equalExcept(cur.tomlV, after, t) {
			return nil, false, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
		}
		if !rf.Existed && strings.TrimSpace(string(out)) == "" {
			return nil, true, nil
		}
		return out, false, nil
	}
	c := cur.json
	// Removed in the reverse order of init's appends (the server first,
	// then each array's items), so each layout still matches.
	for i := len(rf.Adds) - 1; i >= 0; i-- {
		ad := rf.Adds[i]
		c.RemoveStrings(ad.Path, ad.Items, ad.Created, ad.Layouts...)
	}
	if rf.Server != nil && !rf.ServerExisted {
		got := c.LookupPlain(t.serverPath...)
		switch {
		case got == nil:
		case !jsonEqual(mustJSON(got), rf.Server):
			return nil, false, install.Refuse(fmt.Sprintf("the %q entry in %s was changed since init wrote it", strings.Join(t.serverPath, "."), t.path), manual...)
		case rf.ServerOriginal != "":
			// The entry was there before init, and a later init changed
			// it: put its text back.
			orig, err := hujson.Parse([]byte(rf.ServerOriginal))
			if _, isObj := orig.Value.(*hujson.Object); err != nil || !isObj {
				return nil, false, install.Refuse(fmt.Sprintf("the install record's original %q entry is not a JSON object", strings.Join(t.serverPath, ".")), manual...)
			}
			c.Lookup(t.serverPath...).Value = orig.Value
		default:
			c.Remove(t.serverPath, rf.ServerCreated, layouts(rf.ServerLayout)...)
		}
	}
	body := c.Pack()
	if !rf.Existed && install.EmptyObject(body) {
		return nil, true, nil
	}
	if rf.BlankText != nil && install.IsBlank([]byte(*rf.BlankText)) && install.EmptyObject(body) {
		body = []byte(*rf.BlankText)
	}
	out = append(bytes.Clone(mark), body...)
	return out, false, nil
}

func plainOf(t target, data []byte) (any, error) {
	_, body := install.SplitBOM(data)
	if t.toml {
		_, v, err := install.ParseTOML(body)
		return v, err
	}
	if strings.TrimSpace(string(body)) == "" {
		return map[string]any{}, nil
	}
	return install.Normalize(body)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
