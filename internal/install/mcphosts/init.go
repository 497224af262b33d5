package mcphosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// planInit plans installing the MCP server into one host. It only reads.
func planInit(req request) (*install.Plan, error) {
	rs, err := resolve(req)
	if err != nil {
		return nil, err
	}
	if err := install.Validate(req.Options); err != nil {
		return nil, err
	}
	switch {
	case !rs.global() && adapters[req.Host].noProject != "":
		return nil, fmt.Errorf("%s cannot be installed into a project (--scope project): %s", adapters[req.Host].label, adapters[req.Host].noProject)
	case req.Host == OpenCode && req.Remote == nil:
		// Without --remote OpenCode gets the plugin (internal/install/opencodehost).
		return nil, errors.New("OpenCode's MCP entry is for a team gateway only (--remote); without --remote init installs the OpenCode plugin")
	case req.Remote != nil && !adapters[req.Host].remote:
		return nil, fmt.Errorf("%s cannot connect to a team gateway (--remote): %s", adapters[req.Host].label, noRemoteReason(req.Host))
	case req.Remote != nil:
		if err := install.RemoteOptions(req.Options); err != nil {
			return nil, err
		}
	case !filepath.IsAbs(req.Binary):
		return nil, fmt.Errorf("the binary's path %q is not absolute", req.Binary)
	}
	rs.args = serverArgs(req.Options)
	a := adapters[req.Host]
	if a.refuse != nil {
		if err := a.refuse(rs); err != nil {
			return nil, err
		}
	}
	ts := a.targets(rs)
	recPath := rs.recordPath(ts[0].path)
	rec, _, err := readRecord(recPath, rs, ts)
	if err != nil {
		return nil, install.Refuse(err.Error(), "move "+recPath+" away, undo the previous install by hand, then run init again")
	}
	p := rs.newPlan("init", ts)
	p.UpToDate = fmt.Sprintf("%s already has the %s MCP server with these options.", p.ConfigFile, install.Name)
	newRecord := install.NewRecord(req.Version, string(req.Host), string(rs.Scope), "")
	if rec != nil {
		newRecord.CreatedDirs, newRecord.StateDirs = rec.CreatedDirs, rec.StateDirs
	}
	var cfgs []parsed
	var dirChanges, sharedRecords []install.Change
	for _, t := range ts {
		cur, mode, err := readTarget(t)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cur)
		if se := (*install.YAMLShapeError)(nil); errors.As(cur.err, &se) {
			return nil, yamlShapeRefusal(t.path, cur.err)
		}
		if cur.err != nil {
			return nil, install.Refuse(fmt.Sprintf("cannot parse %s: %v", t.path, cur.err), "fix the file, then run init again")
		}
		prev := rec.File(t.path)
		var hs []holder
		if len(t.shared) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s is shared with %s, which reads the same entry: one entry serves both, and uninstall leaves it while the other's install still uses it", rs.rel(t.path), sharedWith(t)))
			if hs, err = holders(rs, t); err != nil {
				return nil, install.Refuse(err.Error(), "move that record away, undo that install by hand, then run init again")
			}
			if prev == nil && len(hs) > 0 {
				// Another host's install holds the entry: this one takes a
				// copy of its record of the file (see shared.go).
				prev = hs[0].rf
				p.Notes = append(p.Notes, fmt.Sprintf("%s's install already has the entry in %s: this install records it too", holderNames(hs), rs.rel(t.path)))
			}
		}
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
		if others := notInRun(hs); len(others) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s's install uses this entry too (the file is shared): this changes the server %s starts as well, and updates its install record to match", holderNames(others), holderNames(others)))
			sharedRecords = append(sharedRecords, sharedRecordChanges(rs, others, *rf)...)
		}
		op := install.OpUpdate
		if !cur.exists {
			op, mode = install.OpCreate, 0o644
			for _, d := range install.MissingDirs(filepath.Dir(t.path)) {
				dirChanges = append(dirChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rs.rel(d) + "/", Mode: 0o755})
				if strings.HasPrefix(d, rs.root+string(filepath.Separator)) && !slices.Contains(newRecord.CreatedDirs, d) {
					newRecord.CreatedDirs = append(newRecord.CreatedDirs, d)
				}
			}
		}
		p.Add(install.Change{Op: op, Kind: install.KindConfig, Path: t.path, Rel: rs.rel(t.path), Old: cur.data, New: newData, Mode: mode})
	}
	p.Changes = append(p.Changes, sharedRecords...)
	a.traps(rs, p, cfgs)
	p.Warnings = append(p.Warnings, conflictWarnings(rs, ts, cfgs)...)
	p.Warnings = append(p.Warnings, binaryWarnings(rs, ts, cfgs)...)
	if len(p.Changes) > 0 || rec == nil {
		recordChange := install.Change{Op: install.OpCreate, Kind: install.KindRecord, Path: recPath, Rel: rs.rel(recPath), New: newRecord.Marshal(), Mode: 0o600}
		if old, _, ok, err := install.ReadFile(recPath); err != nil {
			return nil, err
		} else if ok {
			recordChange.Op, recordChange.Old = install.OpUpdate, old
		} else {
			newRecord.StateDirs = inheritedStateDirs(filepath.Dir(recPath), recPath)
			for _, d := range install.MissingDirs(filepath.Dir(recPath)) {
				dirChanges = append(dirChanges, install.Change{Op: install.OpCreate, Kind: install.KindDir, Path: d, Rel: rs.rel(d) + "/", Mode: 0o700})
				if !slices.Contains(newRecord.StateDirs, d) {
					newRecord.StateDirs = append(newRecord.StateDirs, d)
				}
			}
			recordChange.New = newRecord.Marshal()
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

// noRemoteReason says why host h cannot connect to a team gateway.
func noRemoteReason(h Host) string {
	if why := adapters[h].noRemote; why != "" {
		return why
	}
	return "it starts MCP servers only as commands"
}

// editInit computes one file's new content and its record: the entry and
// the built-in edits put in (editJSON or editInitTOML), checked to change
// nothing else, and the patch that undoes them.
func editInit(rs *resolved, t target, cur parsed, prev *RecordFile) (*RecordFile, []byte, []string, error) {
	var warns []string
	mark, body := install.SplitBOM(cur.data)
	rf := &RecordFile{Path: t.path, Existed: cur.exists}
	if cur.exists && !t.toml && t.yaml == "" && install.IsBlank(body) {
		text := string(body)
		rf.BlankText = &text
	}
	before, known := cur.data, true
	// What the check below may see changed: this run's parts and the ones
	// an earlier run added.
	tcheck := t
	if prev != nil {
		rf = carried(prev)
		before, known = nil, false
		if prev.Patch != nil {
			before, known = prev.Patch.Reverse(cur.data)
		}
		tcheck = recordTarget(t, prev)
	}
	var out []byte
	var err error
	if t.toml {
		if out, warns, err = editInitTOML(rs, t, cur, prev, rf, mark); err != nil {
			return nil, nil, nil, err
		}
		_, after, err := install.ParseTOML(out[len(mark):])
		if err != nil || !equalExcept(cur.tomlV, after, tcheck) {
			return nil, nil, nil, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
		}
	} else if t.yaml != "" {
		base := cur.plain
		if out, base, err = editInitYAML(t, cur, prev, rf, mark); err != nil {
			return nil, nil, nil, err
		}
		_, after, err := install.ParseYAML(out[len(mark):])
		if err != nil || !equalExcept(base, after, tcheck) {
			return nil, nil, nil, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
		}
	} else {
		if err := editJSON(t, cur, prev, rf); err != nil {
			return nil, nil, nil, err
		}
		body := cur.json.Pack()
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

// carried is a new record entry for a file an earlier init changed: what
// that init added stays recorded, so uninstall still takes it out.
func carried(prev *RecordFile) *RecordFile {
	return &RecordFile{
		Path: prev.Path, Existed: prev.Existed, BlankText: prev.BlankText,
		EntryCreated: prev.EntryCreated, EntryExisted: prev.EntryExisted, EntryOriginal: prev.EntryOriginal, EntryLayout: prev.EntryLayout,
		Adds: prev.Adds, TopKey: prev.TopKey, TOMLEntry: prev.TOMLEntry, YAMLEntry: prev.YAMLEntry,
	}
}

// editJSON puts the entry (when t has one) and t's array edits into the
// JSON config cur.json, and records them in rf.
func editJSON(t target, cur parsed, prev *RecordFile, rf *RecordFile) error {
	if t.server {
		if err := setEntryJSON(t, cur, prev, rf); err != nil {
			return err
		}
	}
	c := cur.json
	var adds []RecordAdd
	for _, ad := range t.adds {
		added, created, lays, err := c.AddStrings(ad.Path, ad.Items)
		if err != nil {
			return install.Refuse(fmt.Sprintf("cannot turn the built-in off in %s: %v", t.path, err), fmt.Sprintf("make %q an array, then run init again", strings.Join(ad.Path, ".")))
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
	return nil
}

// setEntryJSON sets our entry at t.serverPath. An entry already there that
// no record of ours explains is refused unless it is exactly ours (a
// committed project file): then it is adopted, and uninstall leaves it.
func setEntryJSON(t target, cur parsed, prev *RecordFile, rf *RecordFile) error {
	c := cur.json
	refused := func() error {
		return install.Refuse(fmt.Sprintf("%s already has an entry %q that this installer did not write", t.path, strings.Join(t.serverPath, ".")),
			"remove the entry (or run `deepseek-web-retrieval uninstall` if an earlier install wrote it), then run init again")
	}
	existing := c.LookupPlain(t.serverPath...)
	if existing == nil && prev == nil && c.Lookup(t.serverPath...) != nil {
		return refused() // "deepseek-web-retrieval": null is the user's, not absent
	}
	if existing != nil && prev == nil {
		want, _ := install.Normalize(mustJSON(t.entry))
		text := string(hujson.Value{Value: c.Lookup(t.serverPath...).Value}.Pack())
		if !reflect.DeepEqual(existing, want) || !utf8.ValidString(text) {
			return refused() // bytes that are not UTF-8 are not what init writes
		}
		rf.EntryExisted = true
		if !install.HasSecrets(install.Secrets(t.path, cur.data), text) {
			rf.EntryOriginal = text
		}
	}
	if existing == nil || !jsonEqual(mustJSON(existing), mustJSON(t.entry)) {
		n, lay, err := c.Set(t.serverPath, t.entry)
		if err != nil {
			return install.Refuse(fmt.Sprintf("cannot add the entry to %s: %v", t.path, err),
				fmt.Sprintf("make %q an object (or remove it), then run init again", strings.Join(t.serverPath[:len(t.serverPath)-1], ".")))
		}
		if prev == nil {
			rf.EntryCreated, rf.EntryLayout = n, lay
		}
		rf.EntryExisted = false // ours now: uninstall removes it
	}
	rf.Entry = json.RawMessage(mustJSON(t.entry))
	return nil
}

// dropSecretLayouts leaves out of the record any layout whose text (a
// comment beside our entry) holds a credential: the record never copies
// one. Uninstall then removes that item with the generic whitespace rule
// (a YAML entry's lines, leaving its parent an empty "{}" or "[]").
func dropSecretLayouts(rf *RecordFile, secrets [][]byte) {
	bad := func(l install.Layout) bool { return install.HasSecrets(secrets, l.Lead, l.TailBefore, l.TailAfter) }
	if rf.EntryLayout != nil && bad(*rf.EntryLayout) {
		rf.EntryLayout = nil
	}
	for i := range rf.Adds {
		rf.Adds[i].Layouts = slices.DeleteFunc(slices.Clone(rf.Adds[i].Layouts), bad)
	}
	if e := rf.YAMLEntry; e != nil && install.HasSecrets(secrets, e.Head, e.Prev) {
		rf.YAMLEntry = &install.YAMLEntry{Form: e.Form, Text: e.Text}
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
			rf.EntryExisted = true // the same entry, committed: adopted, and left by uninstall
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
			rf.EntryExisted = false // ours now: uninstall removes it
		}
		rf.Entry = mustJSON(want)
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

// yamlShapeRefusal turns a shape the YAML editor cannot edit into a
// refusal naming the file and the line.
func yamlShapeRefusal(path string, err error, how ...string) error {
	var se *install.YAMLShapeError
	if errors.As(err, &se) {
		if se.Fix != "" {
			how = []string{se.Fix}
		}
		return install.Refuse(fmt.Sprintf("%s line %d: %s", path, se.Line, se.Shape), how...)
	}
	return fmt.Errorf("internal error editing %s (nothing was written): %v", path, err)
}

// editInitYAML adds or updates the entry in a YAML target (see
// install.YAMLDoc.Set): a missing file starts as t.skeleton. It returns the
// file's new content and the plain document it was made from, which the
// caller's check compares it with.
func editInitYAML(t target, cur parsed, prev *RecordFile, rf *RecordFile, mark []byte) ([]byte, any, error) {
	doc, base := cur.yaml, cur.plain
	if !cur.exists && t.skeleton != "" {
		var err error
		if doc, base, err = install.ParseYAML([]byte(t.skeleton)); err != nil {
			return nil, nil, err
		}
	}
	parent, name := t.serverPath[0], t.serverPath[1]
	line, err := doc.Entry(t.yaml, parent, name)
	if err != nil {
		return nil, nil, yamlShapeRefusal(t.path, err)
	}
	existing := t.entryIn(base)
	same := existing != nil && jsonEqual(mustJSON(existing), mustJSON(t.entry))
	switch {
	case same && prev == nil:
		rf.EntryExisted = true // the same entry, committed: adopted, and left by uninstall
	case same:
	case line > 0 && prev == nil:
		return nil, nil, install.Refuse(fmt.Sprintf("%s line %d: %s is already there, and this installer did not write it", t.path, line, t.entryName()),
			"remove that entry (or run `deepseek-web-retrieval uninstall` if an earlier install wrote it), then run init again")
	default:
		var old *install.YAMLEntry
		if prev != nil {
			old = rf.YAMLEntry
		}
		e, err := doc.Set(t.yaml, parent, name, json.RawMessage(mustJSON(t.entry)), old)
		if err != nil {
			return nil, nil, yamlShapeRefusal(t.path, err, "change that part of the file by hand, then run init again")
		}
		rf.YAMLEntry = e
		rf.EntryExisted = false // ours now: uninstall removes it
	}
	rf.Entry = json.RawMessage(mustJSON(t.entry))
	return append(bytes.Clone(mark), doc.Bytes()...), base, nil
}
