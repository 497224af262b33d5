package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/atomicfile"
)

// JournalFormat is the version of the journal's format.
const JournalFormat = 1

// journalName is the journal's file name inside the state directory.
const journalName = "journal.json"

// StateDir returns the installer's state directory: $XDG_STATE_HOME (or
// ~/.local/state) /deepseek-web-retrieval. It holds the MCP hosts' install
// records and, while a run applies its plans, the journal.
func StateDir(home, xdgStateHome string) string {
	state := xdgStateHome
	if state == "" {
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, Name)
}

// Tx applies the plans of one run, for every host it touches, as one unit.
//
// Before the first byte of any file changes, the journal (every step, with
// what it takes to reverse it) is written to StateDir and synced with its
// directory. Then the steps run in order. If one fails, every step done is
// undone, on every host, each only while its path still holds what this
// run wrote. If the process dies instead, the journal stays behind, and the
// next run that takes the lock ([Recover]) reverses what it finds of the
// interrupted run. A journal is removed once its run has ended either way.
//
// Plans compose: a directory that two plans create is created once, and
// directories a plan removes only when empty ([Change.IfEmpty]) are removed
// last, deepest first, once every plan's files are gone.
type Tx struct {
	// StateDir is where the journal goes; empty means no journal (tests of
	// a single plan).
	StateDir string
	// Command is "init" or "uninstall", as the journal names the run.
	Command string
	// Plans are applied in order.
	Plans []*Plan
}

// journal is the durable form of a run's steps.
type journal struct {
	Format  int           `json:"format"`
	Tool    string        `json:"tool"`
	Command string        `json:"command"`
	PID     int           `json:"pid"`
	Started string        `json:"started"`
	Steps   []journalStep `json:"steps"`
	// Dirs are the directories this run created to hold the journal,
	// parents first.
	Dirs []string `json:"dirs,omitempty"`
}

// journalStep is one change with what undoing it needs: the hash of what
// the run writes, and the way back (a config's reverse patch, so a
// journal never holds a copy of a config; a record's or owned file's old
// content; a deleted file's content).
type journalStep struct {
	Op      string       `json:"op"`
	Kind    string       `json:"kind"`
	Path    string       `json:"path"`
	NewSHA  string       `json:"newSHA256,omitempty"`
	OldSHA  string       `json:"oldSHA256,omitempty"`
	Patch   *Patch       `json:"patch,omitempty"`
	Old     []byte       `json:"old,omitempty"`
	Mode    fs.FileMode  `json:"mode,omitempty"`
	Files   []TreeFileID `json:"files,omitempty"`
	IfEmpty bool         `json:"ifEmpty,omitempty"`
}

// TreeFileID names a file of a KindTree change by its content's hash.
type TreeFileID struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

func (k PathKind) String() string {
	switch k {
	case KindConfig:
		return "config"
	case KindFile:
		return "file"
	case KindRecord:
		return "record"
	case KindDir:
		return "dir"
	case KindTree:
		return "tree"
	}
	return "?"
}

func parseKind(s string) PathKind {
	for k := KindConfig; k <= KindTree; k++ {
		if k.String() == s {
			return k
		}
	}
	return 0
}

// compose turns the plans into one list of changes: a directory created
// by an earlier plan (or already there) is not created again, directories
// to remove when empty go last (deepest first, once each), and two plans
// may not change the same file, unless both make the very same change
// (one file two hosts read with one entry, such as a project's .mcp.json
// for Claude Code and Copilot CLI): that change is made once.
func compose(plans []*Plan) ([]Change, error) {
	var out, sweep []Change
	seen := map[string]int{} // path → index in out, or -1 for a directory created
	for _, p := range plans {
		for _, c := range p.Changes {
			i, dup := seen[c.Path]
			switch {
			case c.Kind == KindDir && c.Op == OpCreate:
				if dup {
					continue
				}
				if fi, err := os.Lstat(c.Path); err == nil && fi.IsDir() {
					continue // there already: nothing to do, nothing to undo
				}
			case c.Kind == KindDir && c.Op == OpDelete && c.IfEmpty:
				if !slices.ContainsFunc(sweep, func(s Change) bool { return s.Path == c.Path }) {
					sweep = append(sweep, c)
				}
				continue
			case dup && i >= 0 && sameChange(out[i], c):
				continue
			case dup:
				return nil, fmt.Errorf("two plans of this run change %s: run the command for one host at a time (--host)", c.Path)
			}
			seen[c.Path] = len(out)
			if c.Kind == KindDir {
				seen[c.Path] = -1
			}
			out = append(out, c)
		}
	}
	slices.SortStableFunc(sweep, func(a, b Change) int {
		return strings.Count(b.Path, string(filepath.Separator)) - strings.Count(a.Path, string(filepath.Separator))
	})
	for _, c := range sweep {
		if Exists(c.Path) {
			out = append(out, c)
		}
	}
	return out, nil
}

// sameChange reports whether two plans' changes to one file are the very
// same: the same file kind and operation from the same bytes to the same
// bytes (and mode, for a file created).
func sameChange(a, b Change) bool {
	return a.Kind == b.Kind && a.Kind != KindDir && a.Kind != KindTree && a.Op == b.Op && a.Mode == b.Mode &&
		bytes.Equal(a.Old, b.Old) && bytes.Equal(a.New, b.New)
}

// Apply performs every plan as one unit (see [Tx]). The caller holds the
// lock of StateDir ([Lock]) and of every config directory, and has run
// [Recover] under it.
func (tx Tx) Apply() (err error) {
	changes, err := compose(tx.Plans)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := check(c); err != nil {
			return err
		}
		if err := writable(c); err != nil {
			return err
		}
	}
	if len(changes) == 0 {
		return nil
	}
	var j *journal
	if tx.StateDir != "" {
		// The directories that will hold the journal are the run's own:
		// created with it, not as steps of a plan.
		missing := MissingDirs(tx.StateDir)
		changes = slices.DeleteFunc(changes, func(c Change) bool {
			return c.Kind == KindDir && c.Op == OpCreate && slices.Contains(missing, c.Path)
		})
		j, err = tx.begin(changes, missing)
		if err != nil {
			return fmt.Errorf("writing the journal: %w (nothing was changed)", err)
		}
	}
	var undo []func() error
	var held []string // empty-when-done directories the journal kept in use
	defer func() {
		if err == nil {
			if j != nil {
				err = tx.end(j, held)
			}
			return
		}
		var failed []error
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				failed = append(failed, uerr)
			}
		}
		switch {
		case len(failed) > 0 && j != nil:
			err = fmt.Errorf("%w; rolling back also failed: %w; the journal %s is kept: the next init, uninstall or doctor finishes the rollback", err, errors.Join(failed...), filepath.Join(tx.StateDir, journalName))
		case len(failed) > 0:
			err = fmt.Errorf("%w; rolling back also failed: %w", err, errors.Join(failed...))
		default:
			if j != nil {
				if eerr := tx.end(j, nil); eerr != nil {
					err = fmt.Errorf("%w; %w", err, eerr)
				}
			}
			if len(undo) > 0 {
				err = fmt.Errorf("%w (everything this run wrote was rolled back)", err)
			}
		}
	}()
	for _, c := range changes {
		if c.IfEmpty && j != nil && isDir(c.Path) && strings.HasPrefix(filepath.Join(tx.StateDir, journalName), c.Path+string(filepath.Separator)) {
			held = append(held, c.Path)
			continue
		}
		u, err := applyChange(c)
		if err != nil {
			return err
		}
		if u != nil {
			undo = append(undo, u)
		}
	}
	return nil
}

// Apply performs one plan alone, without a journal (see [Tx.Apply]).
func (p *Plan) Apply() error { return Tx{Plans: []*Plan{p}}.Apply() }

// applyChange performs one change and returns what undoes it (nil: nothing
// to undo).
func applyChange(c Change) (func() error, error) {
	switch {
	case c.Kind == KindTree:
		if err := writeTree(c.Path, c.Files); err != nil {
			return nil, err
		}
		return func() error { return removeTree(c.Path, treeIDs(c.Files)) }, nil
	case c.Kind == KindDir && c.Op == OpCreate:
		err := os.Mkdir(c.Path, dirMode(c.Mode))
		if errors.Is(err, fs.ErrExist) && isDir(c.Path) {
			return nil, nil // another writer made it meanwhile: theirs
		}
		if err != nil {
			return nil, err
		}
		return func() error { return removeEmptyDir(c.Path) }, atomicfile.SyncDir(filepath.Dir(c.Path))
	case c.Kind == KindDir && c.Op == OpDelete:
		if c.IfEmpty {
			if ents, err := os.ReadDir(c.Path); err != nil || len(ents) > 0 {
				return nil, nil
			}
		}
		mode := dirMode(0)
		if fi, err := os.Stat(c.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := os.Remove(c.Path); err != nil {
			return nil, err
		}
		return func() error {
			if err := os.Mkdir(c.Path, mode); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			return nil
		}, atomicfile.SyncDir(filepath.Dir(c.Path))
	case c.Op == OpCreate:
		if err := WriteAtomic(c.Path, c.New, c.Mode); err != nil {
			return nil, err
		}
		return func() error { return removeIfSame(c.Path, c.New) }, nil
	case c.Op == OpUpdate:
		target := resolve(c.Path)
		fi, err := os.Stat(target)
		if err != nil {
			return nil, err
		}
		mode := fi.Mode().Perm()
		if c.Kind == KindRecord {
			mode = 0o600
		}
		if err := WriteAtomic(target, c.New, mode); err != nil {
			return nil, err
		}
		return func() error { return restoreIfSame(target, c.New, c.Old, mode) }, nil
	case c.Op == OpDelete:
		target := resolve(c.Path)
		fi, err := os.Stat(target)
		if err != nil {
			return nil, err
		}
		if err := os.Remove(c.Path); err != nil {
			return nil, err
		}
		mode := fi.Mode().Perm()
		return func() error {
			if Exists(c.Path) {
				return nil // someone else wrote it since: leave theirs
			}
			return WriteAtomic(c.Path, c.Old, mode)
		}, atomicfile.SyncDir(filepath.Dir(c.Path))
	}
	return nil, fmt.Errorf("%s: unknown change", c.Path)
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

func removeEmptyDir(p string) error {
	if ents, err := os.ReadDir(p); err != nil || len(ents) > 0 {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func treeIDs(files []TreeFile) []TreeFileID {
	ids := make([]TreeFileID, len(files))
	for i, f := range files {
		ids[i] = TreeFileID{Name: f.Name, SHA256: SHA(f.Data)}
	}
	return ids
}

// stepOf is a change's journal step.
func stepOf(c Change) journalStep {
	s := journalStep{Op: c.Op.String(), Kind: c.Kind.String(), Path: c.Path, Mode: c.Mode, IfEmpty: c.IfEmpty}
	switch {
	case c.Kind == KindTree:
		s.Files = treeIDs(c.Files)
	case c.Kind == KindDir:
	case c.Op == OpCreate:
		s.NewSHA = SHA(c.New)
	case c.Op == OpUpdate:
		s.NewSHA, s.OldSHA = SHA(c.New), SHA(c.Old)
		if c.Kind == KindConfig {
			s.Patch = MakePatch(c.Old, c.New)
		} else {
			s.Old = c.Old
		}
		if fi, err := os.Stat(resolve(c.Path)); err == nil {
			s.Mode = fi.Mode().Perm()
		}
	case c.Op == OpDelete:
		s.OldSHA, s.Old = SHA(c.Old), c.Old
		if fi, err := os.Stat(resolve(c.Path)); err == nil {
			s.Mode = fi.Mode().Perm()
		}
	}
	return s
}

// begin makes the run's steps durable before any of them is taken. When
// the state directory is missing, its missing part is built under a
// temporary name (with [TempMarker]) holding the journal, and renamed into
// place: a crash leaves either no trace the next run cannot remove, or a
// complete journal that lists those directories as the run's own.
func (tx Tx) begin(changes []Change, missing []string) (*journal, error) {
	j := &journal{Format: JournalFormat, Tool: Name, Command: tx.Command, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339), Dirs: missing}
	for _, c := range changes {
		j.Steps = append(j.Steps, stepOf(c))
	}
	data, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 {
		return j, WriteAtomic(filepath.Join(tx.StateDir, journalName), data, 0o600)
	}
	top := missing[0]
	tmp, err := os.MkdirTemp(filepath.Dir(top), "."+filepath.Base(top)+TempMarker+"*")
	if err != nil {
		return nil, err
	}
	err = func() error {
		for i, d := range missing {
			at := tmp
			if i > 0 {
				rel, _ := filepath.Rel(top, d)
				at = filepath.Join(tmp, rel)
				if err := os.Mkdir(at, 0o755); err != nil {
					return err
				}
			}
			mode := fs.FileMode(0o755)
			if d == tx.StateDir {
				mode = 0o700
			}
			if err := os.Chmod(at, mode); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(top, tx.StateDir)
		if err := WriteAtomic(filepath.Join(tmp, rel, journalName), data, 0o600); err != nil {
			return err
		}
		for d := filepath.Join(tmp, rel); d != filepath.Dir(tmp); d = filepath.Dir(d) {
			if err := atomicfile.SyncDir(d); err != nil {
				return err
			}
		}
		if err := os.Rename(tmp, top); err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(top))
	}()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return j, nil
}

// MissingDirs returns dir and those of its parents that do not exist,
// parents first: what a plan creates to put a file in dir.
func MissingDirs(dir string) []string {
	var missing []string
	for d := dir; !Exists(d); d = filepath.Dir(d) {
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	return missing
}

// cleanupName is the file that stands in for a journal while the
// directories that held it are removed. It lives beside the shallowest of
// them, so it outlives them; the next run finishes the removal if a crash
// stopped it.
const cleanupName = "." + Name + ".cleanup.json"

// cleanup is the content of a cleanupName file.
type cleanup struct {
	Format int    `json:"format"`
	Tool   string `json:"tool"`
	// Dirs are removed when empty, in order (deepest first).
	Dirs []string `json:"dirs"`
}

// end removes the journal of a run that has ended, then removes the
// directories in held that are empty (deepest first): those made to hold
// the journal, and those an uninstall removes that held it.
func (tx Tx) end(j *journal, held []string) error {
	dirs := slices.Clone(held)
	for i := len(j.Dirs) - 1; i >= 0; i-- {
		if !slices.Contains(dirs, j.Dirs[i]) {
			dirs = append(dirs, j.Dirs[i])
		}
	}
	slices.SortStableFunc(dirs, func(a, b string) int {
		return strings.Count(b, string(filepath.Separator)) - strings.Count(a, string(filepath.Separator))
	})
	var note string
	if len(dirs) > 0 {
		note = filepath.Join(filepath.Dir(dirs[len(dirs)-1]), cleanupName)
		data, _ := json.Marshal(cleanup{Format: JournalFormat, Tool: Name, Dirs: dirs})
		if err := WriteAtomic(note, data, 0o600); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(tx.StateDir, journalName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := atomicfile.SyncDir(tx.StateDir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if note == "" {
		return nil
	}
	return finishCleanup(note, dirs)
}

// finishCleanup removes the empty directories of a cleanup, then its note.
func finishCleanup(note string, dirs []string) error {
	for _, d := range dirs {
		if err := removeEmptyDir(d); err != nil {
			return err
		}
	}
	if err := os.Remove(note); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(note))
}

// resumeCleanup finishes a cleanup that a crash interrupted: its note is
// in one of stateDir's ancestors.
func resumeCleanup(stateDir string) (bool, error) {
	for d := filepath.Dir(stateDir); ; d = filepath.Dir(d) {
		note := filepath.Join(d, cleanupName)
		if data, err := os.ReadFile(note); err == nil {
			var c cleanup
			if json.Unmarshal(data, &c) != nil || c.Tool != Name {
				return false, fmt.Errorf("%s is not a note of this installer (move it away to go on)", note)
			}
			for _, dir := range c.Dirs {
				if rel, err := filepath.Rel(d, dir); err != nil || strings.HasPrefix(rel, "..") || rel == "." {
					return false, fmt.Errorf("%s names %s, outside %s (move it away to go on)", note, dir, d)
				}
			}
			return true, finishCleanup(note, c.Dirs)
		}
		if filepath.Dir(d) == d {
			return false, nil
		}
	}
}

// Recovery is what [Recover] found of an interrupted run and did about it.
type Recovery struct {
	// Command and Started describe the interrupted run.
	Command, Started string
	// PID is the process that was running it.
	PID int
	// Done lists, per path, what was done to reverse it.
	Done []string
	// Left lists paths left as they are because they changed after the
	// run (neither what it wrote nor what was there before).
	Left []string
}

// Pending reports the interrupted run whose journal is in stateDir, if
// any, without changing anything (for doctor). found is false when there
// is none.
func Pending(stateDir string) (r Recovery, found bool, err error) {
	j, err := readJournal(stateDir)
	if err != nil || j == nil {
		return Recovery{}, false, err
	}
	return Recovery{Command: j.Command, Started: j.Started, PID: j.PID}, true, nil
}

func readJournal(stateDir string) (*journal, error) {
	data, err := os.ReadFile(filepath.Join(stateDir, journalName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	err = json.Unmarshal(data, &j)
	if err == nil && (j.Tool != Name || j.Format != JournalFormat) {
		err = fmt.Errorf("tool %q, format %d (want %q, %d)", j.Tool, j.Format, Name, JournalFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a journal of this installer (move it away to go on): %v", filepath.Join(stateDir, journalName), err)
	}
	return &j, nil
}

// Recover finds the journal of a run that was interrupted (the process
// died between its first and last step) and reverses it: each step is
// undone while its path holds what the run wrote, paths the run had not
// reached yet are left as they are, and temporary files of the run are
// removed. It also removes temporary files a run left in stateDir before
// its journal existed. The caller holds the lock of stateDir, so a
// journal found here belongs to a process that has ended. found is false
// when there was nothing to recover.
func Recover(stateDir string) (r Recovery, found bool, err error) {
	for d := stateDir; ; d = filepath.Dir(d) {
		removeTemps(d) // the journal's, and a cleanup note's beside its directories
		if filepath.Dir(d) == d {
			break
		}
	}
	if _, err := resumeCleanup(stateDir); err != nil {
		return Recovery{}, false, err
	}
	j, err := readJournal(stateDir)
	if err != nil || j == nil {
		return Recovery{}, false, err
	}
	r = Recovery{Command: j.Command, Started: j.Started, PID: j.PID}
	dirs := map[string]bool{stateDir: true}
	for i := len(j.Steps) - 1; i >= 0; i-- {
		s := j.Steps[i]
		dirs[filepath.Dir(s.Path)] = true
		if slices.Contains(j.Dirs, s.Path) {
			continue // holds the journal: end removes it when empty
		}
		done, left, err := reverseStep(s)
		if err != nil {
			return r, true, fmt.Errorf("reversing the interrupted %s (journal %s): %s: %w", j.Command, filepath.Join(stateDir, journalName), s.Path, err)
		}
		if done != "" {
			r.Done = append(r.Done, done)
		}
		if left {
			r.Left = append(r.Left, s.Path)
		}
	}
	for d := range dirs {
		removeTemps(d)
	}
	if err := (Tx{StateDir: stateDir}).end(j, nil); err != nil {
		return r, true, err
	}
	return r, true, nil
}

// reverseStep undoes one journal step as far as the disk shows it was
// done. done describes what it did ("" when there was nothing to undo);
// left reports a path that changed after the run, which is left alone.
func reverseStep(s journalStep) (done string, left bool, err error) {
	kind := parseKind(s.Kind)
	sha := func(p string) (string, bool) {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", false
		}
		return SHA(b), true
	}
	switch {
	case kind == KindTree && s.Op == "create":
		if !Exists(s.Path) {
			return "", false, nil
		}
		if err := removeTree(s.Path, s.Files); err != nil {
			return "", false, err
		}
		if Exists(s.Path) {
			return "", true, nil
		}
		return "removed " + s.Path + "/", false, nil
	case kind == KindDir && s.Op == "create":
		if !isDir(s.Path) {
			return "", false, nil
		}
		removeTemps(s.Path)
		if ents, _ := os.ReadDir(s.Path); len(ents) > 0 {
			return "", true, nil
		}
		return "removed " + s.Path + "/", false, os.Remove(s.Path)
	case kind == KindDir && s.Op == "delete":
		if Exists(s.Path) {
			return "", false, nil
		}
		return "recreated " + s.Path + "/", false, os.Mkdir(s.Path, dirMode(s.Mode))
	case s.Op == "create":
		cur, ok := sha(s.Path)
		switch {
		case !ok:
			return "", false, nil
		case cur != s.NewSHA:
			return "", true, nil
		}
		if err := os.Remove(s.Path); err != nil {
			return "", false, err
		}
		return "removed " + s.Path, false, atomicfile.SyncDir(filepath.Dir(s.Path))
	case s.Op == "update":
		target := resolve(s.Path)
		data, err := os.ReadFile(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", true, nil
		case err != nil:
			return "", false, err
		case SHA(data) == s.OldSHA:
			return "", false, nil
		case SHA(data) != s.NewSHA:
			return "", true, nil
		}
		old := s.Old
		if s.Patch != nil {
			b, ok := s.Patch.Reverse(data)
			if !ok || SHA(b) != s.OldSHA {
				return "", false, errors.New("the journal's reverse patch does not apply")
			}
			old = b
		}
		if err := WriteAtomic(target, old, s.Mode); err != nil {
			return "", false, err
		}
		return "restored " + s.Path, false, nil
	case s.Op == "delete":
		if Exists(s.Path) {
			if cur, _ := sha(s.Path); cur != s.OldSHA {
				return "", true, nil
			}
			return "", false, nil
		}
		mode := s.Mode
		if mode == 0 {
			mode = 0o600
		}
		if err := WriteAtomic(s.Path, s.Old, mode); err != nil {
			return "", false, err
		}
		return "restored " + s.Path, false, nil
	}
	return "", false, fmt.Errorf("unknown journal step %q %q", s.Op, s.Kind)
}

// writable refuses a change to a file the user has made read-only or that
// belongs to someone else: the installer never changes permissions or
// ownership around the user.
func writable(c Change) error {
	if c.Kind == KindDir || c.Kind == KindTree || c.Op == OpCreate {
		return nil
	}
	target := resolve(c.Path)
	fi, err := os.Stat(target)
	if err != nil {
		return nil // check reports a missing file
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return Refuse(fmt.Sprintf("%s is read-only (mode %04o); init does not change a file's permissions", target, fi.Mode().Perm()),
			fmt.Sprintf("make it writable (chmod u+w %s) and run the command again", target),
			"or make the change by hand: run the command without --yes to see the diff")
	}
	if owner, ok := foreignOwner(fi); ok {
		return Refuse(fmt.Sprintf("%s belongs to %s, not to you; init does not change another user's file", target, owner),
			"run the command as the file's owner, or make the change by hand: run the command without --yes to see the diff")
	}
	return nil
}

// TempMarker is in the name of every temporary file or directory the
// installer creates, so a later run can find and remove those that a
// killed run left behind.
const TempMarker = "." + Name + ".tmp-"

// removeTemps removes the temporary files and directories a run left in dir.
func removeTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), TempMarker) {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
