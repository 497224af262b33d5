package mcphosts

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// Files two hosts share. A project's .mcp.json is read by Claude Code and
// by Copilot CLI alike, and the entry Claude Code needs works unchanged in
// Copilot CLI (see copilot.go), so both adapters declare the same target:
// the same file, the same member, the same entry, each naming the other in
// target.shared. The file then holds one entry serving both hosts, and each
// host's install record holds it (the records stay one per host and scope,
// so each host is installed and uninstalled on its own):
//
//   - init into host B while host A's record already holds the entry: B's
//     record takes a copy of A's record of the file (what init added, the
//     patch back to the bytes before A's init), and when the entry is the
//     one B wants, the file is not changed;
//   - init into B that changes the shared entry (other options, a gateway)
//     changes it for A as well: the plan says so, and A's record is
//     updated to match, unless A is in the same run (then A's own plan
//     makes the very same change and writes its own record);
//   - uninstall of B while A's record still holds the entry, and A is not
//     in the same run: the file is left as it is, only B's record goes;
//   - uninstall of the last host holding it gives the file back byte for
//     byte (through the patch both records hold);
//   - uninstall of B without a record of B's own, while A's record holds
//     the entry, has nothing to do (it is A's, not an unknown entry);
//   - in one run with both (init --host auto, uninstall --host auto), both
//     plans make the same change to the file from the same records, and
//     install.Tx applies it once (install's compose accepts two identical
//     changes to one file, and still refuses two different ones).
//
// Which hosts are in the run is install.Request.Run, set by the registry.

// holder is another host whose install record holds a shared target's
// entry.
type holder struct {
	host    Host
	recPath string
	rec     *Record
	data    []byte      // the record's bytes as read
	rf      *RecordFile // its record of the shared file
	inRun   bool        // the host is in this run too
}

// holders returns the hosts t.shared names whose records, in this scope,
// hold t's entry: for each, the target must be the same file with the same
// entry (an adapter's claim checked here), and its record must name the
// file with an entry.
func holders(rs *resolved, t target) ([]holder, error) {
	var out []holder
	for _, h := range t.shared {
		other := &resolved{request: request{Request: rs.Request, Host: h}, root: rs.root, args: rs.args, key: rs.key}
		ts := adapters[h].targets(other)
		i := slices.IndexFunc(ts, func(o target) bool {
			return o.server && o.path == t.path && slices.Equal(o.serverPath, t.serverPath) && jsonEqual(mustJSON(o.entry), mustJSON(t.entry))
		})
		if i < 0 {
			continue
		}
		recPath := other.recordPath(ts[0].path)
		rec, data, err := readRecord(recPath, other, ts)
		if err != nil {
			return nil, fmt.Errorf("%s's install record: %w", names[h], err)
		}
		rf := rec.File(t.path)
		if rf == nil || rf.Entry == nil {
			continue
		}
		out = append(out, holder{host: h, recPath: recPath, rec: rec, data: data, rf: rf, inRun: slices.Contains(rs.Run, string(h))})
	}
	return out, nil
}

// sharedWith names the hosts t is shared with: "Claude Code".
func sharedWith(t target) string {
	var ns []string
	for _, h := range t.shared {
		ns = append(ns, names[h])
	}
	return strings.Join(ns, " and ")
}

// holderNames names the holders: "Claude Code".
func holderNames(hs []holder) string {
	var ns []string
	for _, h := range hs {
		ns = append(ns, names[h.host])
	}
	return strings.Join(ns, " and ")
}

// notInRun returns the holders whose hosts are not in this run.
func notInRun(hs []holder) []holder {
	return slices.DeleteFunc(slices.Clone(hs), func(h holder) bool { return h.inRun })
}

// sharedRecordChanges updates the records of the holders not in this run
// so that their record of the shared file is rf, the one this init writes:
// the entry they hold is the one now in the file.
func sharedRecordChanges(rs *resolved, hs []holder, rf RecordFile) []install.Change {
	var out []install.Change
	for _, h := range notInRun(hs) {
		rec := *h.rec
		rec.Files = slices.Clone(rec.Files)
		for i := range rec.Files {
			if rec.Files[i].Path == rf.Path {
				rec.Files[i] = rf
			}
		}
		data := rec.Marshal()
		if bytes.Equal(data, h.data) {
			continue
		}
		out = append(out, install.Change{Op: install.OpUpdate, Kind: install.KindRecord, Path: h.recPath, Rel: rs.rel(h.recPath), Old: h.data, New: data, Mode: 0o600})
	}
	return out
}
