package mcphosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// planUninstall plans reversing what init did to one host. With no record
// and nothing of ours in the host's files, the plan is empty ("nothing to
// uninstall"); with no record but our entry present, it refuses with the
// manual steps.
func planUninstall(req request) (*install.Plan, error) {
	rs, err := resolve(req)
	if err != nil {
		return nil, err
	}
	a := adapters[req.Host]
	ts := a.targets(rs)
	p := rs.newPlan("uninstall", ts)
	if !rs.global() && a.noProject != "" {
		p.UpToDate = fmt.Sprintf("Nothing to uninstall: %s has no project scope.", a.label)
		return p, nil
	}
	recPath := rs.recordPath(ts[0].path)
	manual := []string{fmt.Sprintf("remove the %q entry from %s", strings.Join(ts[0].serverPath, "."), ts[0].path)}
	if ts[0].yaml == install.YAMLItem {
		manual[0] = fmt.Sprintf("remove %s from %s", ts[0].entryName(), ts[0].path)
	}
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
		if err == nil && cur.err == nil && (lookup(cur.plain, ts[0].serverPath...) != nil || ts[0].entryIn(cur.plain) != nil) {
			if hs, err := holders(rs, ts[0]); err == nil && len(hs) > 0 {
				p.UpToDate = fmt.Sprintf("Nothing to uninstall: %s has no install by this tool (%s scope); the entry in %s is %s's install's (the file is shared).", adapters[req.Host].label, rs.Scope, rs.rel(ts[0].path), holderNames(hs))
				return p, nil
			}
			return nil, install.Refuse(fmt.Sprintf("no install record at %s, but %s has the %s entry: it was not installed by this tool here (or its record was lost), so uninstall cannot reverse it exactly", recPath, ts[0].path, install.Name), manual...)
		}
		p.UpToDate = fmt.Sprintf("Nothing to uninstall: %s has no install by this tool (%s scope).", adapters[req.Host].label, rs.Scope)
		return p, nil
	}
	var entry map[string]any
	if rf := rec.File(ts[0].path); rf != nil && json.Unmarshal(rf.Entry, &entry) == nil {
		if gw, ok := remoteOf(rs.Host, entry); ok {
			p.Reader, p.TokenEnv, p.SignIn = names[rs.Host], gw.TokenEnv, gw.TokenEnv == "" && adapters[rs.Host].signIn
		}
	}
	gone := map[string]bool{}
	for _, t := range ts {
		rf := rec.File(t.path)
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
		if len(t.shared) > 0 {
			hs, err := holders(rs, t)
			if err != nil {
				return nil, install.Refuse(err.Error(), manual...)
			}
			if others := notInRun(hs); len(others) > 0 {
				p.Notes = append(p.Notes, fmt.Sprintf("%s is left as it is: %s's install still uses the entry (the file is shared); uninstalling that too removes it", rs.rel(t.path), holderNames(others)))
				continue
			}
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
	if t.yaml != "" {
		return editUninstallYAML(t, cur, rf, mark, manual)
	}
	if t.toml {
		doc := cur.toml
		// The reverse of init's order: the top-level key, then the entry.
		if k := rf.TopKey; k != nil {
			if _, err := doc.RemoveTopKey(k.Key, k.Line, k.Prev, k.Inserted); err != nil {
				return nil, false, tomlShapeRefusal(t.path, err, manual...)
			}
		}
		if rf.Entry != nil && !rf.EntryExisted {
			got := lookup(cur.tomlV, t.serverPath...)
			switch {
			case got == nil:
			case !jsonEqual(mustJSON(got), rf.Entry):
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
	if rf.Entry != nil && !rf.EntryExisted {
		got := c.LookupPlain(t.serverPath...)
		switch {
		case got == nil:
		case !jsonEqual(mustJSON(got), rf.Entry):
			return nil, false, install.Refuse(fmt.Sprintf("the %q entry in %s was changed since init wrote it", strings.Join(t.serverPath, "."), t.path), manual...)
		case rf.EntryOriginal != "":
			// The entry was there before init, and a later init changed
			// it: put its text back.
			orig, _, err := install.ParseValue([]byte(rf.EntryOriginal))
			if _, isObj := orig.Value.(*hujson.Object); err != nil || !isObj {
				return nil, false, install.Refuse(fmt.Sprintf("the install record's original %q entry is not a JSON object", strings.Join(t.serverPath, ".")), manual...)
			}
			c.Lookup(t.serverPath...).Value = orig.Value
		default:
			c.Remove(t.serverPath, rf.EntryCreated, layouts(rf.EntryLayout)...)
		}
	}
	body := c.Pack()
	if !rf.Existed && (install.EmptyObject(body) || onlyMembers(body, t.hostOwned)) {
		return nil, true, nil
	}
	if rf.BlankText != nil && install.IsBlank([]byte(*rf.BlankText)) && install.EmptyObject(body) {
		body = []byte(*rf.BlankText)
	}
	out = append(bytes.Clone(mark), body...)
	return out, false, nil
}

// editUninstallYAML takes our entry out of a YAML target (see
// install.YAMLDoc.Remove), refusing an entry changed since init; a file
// init created goes when nothing but its skeleton is left.
func editUninstallYAML(t target, cur parsed, rf *RecordFile, mark []byte, manual []string) ([]byte, bool, error) {
	doc := cur.yaml
	if rf.Entry != nil && !rf.EntryExisted {
		got := t.entryIn(cur.plain)
		switch {
		case got == nil:
		case !jsonEqual(mustJSON(got), rf.Entry):
			return nil, false, install.Refuse(fmt.Sprintf("%s in %s was changed since init wrote it", t.entryName(), t.path), manual...)
		default:
			if _, err := doc.Remove(t.yaml, t.serverPath[0], t.serverPath[1], rf.YAMLEntry); err != nil {
				return nil, false, yamlShapeRefusal(t.path, err, manual...)
			}
		}
	}
	out := append(bytes.Clone(mark), doc.Bytes()...)
	_, after, err := install.ParseYAML(out[len(mark):])
	if err != nil || !equalExcept(cur.plain, after, t) {
		return nil, false, fmt.Errorf("internal error editing %s (nothing was written): %v", t.path, err)
	}
	if !rf.Existed && (strings.TrimSpace(string(out)) == "" || string(out) == t.skeleton) {
		return nil, true, nil
	}
	return out, false, nil
}

// onlyMembers reports whether the JSON object body has members, all of
// them named in names (what a host added by itself to a file init made).
func onlyMembers(body []byte, names []string) bool {
	m, ok := plainObject(body)
	if !ok || len(m) == 0 || len(names) == 0 {
		return false
	}
	for k := range m {
		if !slices.Contains(names, k) {
			return false
		}
	}
	return true
}

func plainObject(body []byte) (map[string]any, bool) {
	v, err := install.Normalize(body)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}
