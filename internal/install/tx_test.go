package install

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// snapshot returns every file and directory under root with its content
// ("" for a directory, which ends in "/").
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

// txFixture is a home with a config, a record and a vendored file, and a
// run that creates, updates and deletes across two plans.
func txFixture(t *testing.T) (home string, tx Tx, changes []Change) {
	home = t.TempDir()
	w := func(rel, data string) string {
		p := filepath.Join(home, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	cfg := w("cfg/config.toml", "model = \"x\"\r\n\r\n")
	rec := w("vendor/old.install.json", `{"old":true}`)
	vendored := w("vendor/plugin.js", "export {}\n")
	tx = Tx{StateDir: filepath.Join(home, ".local", "state", Name), Command: "init", Plans: []*Plan{
		{Changes: []Change{
			{Op: OpCreate, Kind: KindDir, Path: filepath.Join(home, "newdir"), Mode: 0o755},
			{Op: OpCreate, Kind: KindConfig, Path: filepath.Join(home, "newdir", "mcp.json"), New: []byte("{\n}\n"), Mode: 0o644},
			{Op: OpUpdate, Kind: KindConfig, Path: cfg, Old: []byte("model = \"x\"\r\n\r\n"), New: []byte("model = \"x\"\r\n\r\n[mcp_servers.a]\r\ncommand = \"b\"\r\n")},
		}},
		{Changes: []Change{
			{Op: OpCreate, Kind: KindDir, Path: filepath.Join(home, "newdir"), Mode: 0o755},
			{Op: OpCreate, Kind: KindTree, Path: filepath.Join(home, "tree"), Files: []TreeFile{{Name: "a", Data: []byte("A")}, {Name: "b", Data: []byte("B")}}},
			{Op: OpUpdate, Kind: KindRecord, Path: rec, Old: []byte(`{"old":true}`), New: []byte(`{"new":true}`)},
			{Op: OpDelete, Kind: KindFile, Path: vendored, Old: []byte("export {}\n")},
		}},
	}}
	changes, err := compose(tx.Plans)
	require.NoError(t, err)
	return home, tx, changes
}

// A run killed after any number of its steps is reversed by the next
// run's Recover: every file and directory is as it was, no journal and no
// temporary file is left, and Recover says what it did.
func TestRecoverReversesAnInterruptedRun(t *testing.T) {
	_, _, all := txFixture(t)
	require.Len(t, all, 6, "the shared directory is created once")
	for done := 0; done <= len(all); done++ {
		home, tx, changes := txFixture(t)
		before := snapshot(t, home)
		_, err := tx.begin(changes, MissingDirs(tx.StateDir))
		require.NoError(t, err)
		for _, c := range changes[:done] {
			_, err := applyChange(c)
			require.NoError(t, err)
		}
		// A temporary file a killed write left behind.
		require.NoError(t, os.WriteFile(filepath.Join(home, "cfg", ".config.toml"+TempMarker+"123"), []byte("half"), 0o600))
		rec, found, err := Recover(tx.StateDir)
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, "init", rec.Command)
		require.Len(t, rec.Done, done, "one line per step reversed")
		require.Empty(t, rec.Left)
		require.Equal(t, before, snapshot(t, home), "after %d steps", done)
		_, found, err = Recover(tx.StateDir)
		require.NoError(t, err)
		require.False(t, found, "the journal is gone")
	}
}

// A path changed after the interrupted run wrote it is left alone and
// reported.
func TestRecoverLeavesLaterEdits(t *testing.T) {
	home, tx, changes := txFixture(t)
	_, err := tx.begin(changes, MissingDirs(tx.StateDir))
	require.NoError(t, err)
	for _, c := range changes {
		_, err := applyChange(c)
		require.NoError(t, err)
	}
	cfg := filepath.Join(home, "cfg", "config.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("edited by hand\n"), 0o644))
	rec, found, err := Recover(tx.StateDir)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []string{cfg}, rec.Left)
	b, _ := os.ReadFile(cfg)
	require.Equal(t, "edited by hand\n", string(b))
}

// A completed run leaves no journal and removes the state directories it
// made only to hold it.
func TestTxLeavesNoJournal(t *testing.T) {
	home, tx, _ := txFixture(t)
	require.NoError(t, tx.Apply())
	require.NoDirExists(t, filepath.Join(home, ".local"))
	b, _ := os.ReadFile(filepath.Join(home, "vendor", "old.install.json"))
	require.Equal(t, `{"new":true}`, string(b))
}

// A read-only config is refused with a message saying how to go on, and
// nothing is written.
func TestTxRefusesReadOnlyConfig(t *testing.T) {
	home, tx, _ := txFixture(t)
	cfg := filepath.Join(home, "cfg", "config.toml")
	require.NoError(t, os.Chmod(cfg, 0o444))
	before := snapshot(t, home)
	err := tx.Apply()
	var re *RefusedError
	require.ErrorAs(t, err, &re)
	require.Contains(t, re.Reason, cfg+" is read-only (mode 0444)")
	require.Contains(t, err.Error(), "chmod u+w "+cfg)
	require.Equal(t, before, snapshot(t, home))
	fi, _ := os.Stat(cfg)
	require.Equal(t, fs.FileMode(0o444), fi.Mode().Perm(), "the mode is left alone")
}

// Plans that change the same file differently cannot be composed; two
// plans making the very same change to one file (a file two hosts read
// with one entry) make it once.
func TestComposeOneFileTwoPlans(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	update := Change{Op: OpUpdate, Kind: KindConfig, Path: p, Old: []byte("{}\n"), New: []byte("{\"a\": 1}\n")}
	tests := []struct {
		name   string
		a, b   Change
		refuse bool
	}{
		{name: "two creates of other bytes", a: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("a"), Mode: 0o644}, b: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("b"), Mode: 0o644}, refuse: true},
		{name: "the same create", a: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("a"), Mode: 0o644}, b: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("a"), Mode: 0o644}},
		{name: "the same create, another mode", a: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("a"), Mode: 0o644}, b: Change{Op: OpCreate, Kind: KindConfig, Path: p, New: []byte("a"), Mode: 0o600}, refuse: true},
		{name: "the same update", a: update, b: update},
		{name: "updates to other bytes", a: update, b: Change{Op: OpUpdate, Kind: KindConfig, Path: p, Old: []byte("{}\n"), New: []byte("{\"b\": 1}\n")}, refuse: true},
		{name: "updates from other bytes", a: update, b: Change{Op: OpUpdate, Kind: KindConfig, Path: p, Old: []byte("{ }\n"), New: []byte("{\"a\": 1}\n")}, refuse: true},
		{name: "an update and a delete", a: update, b: Change{Op: OpDelete, Kind: KindConfig, Path: p, Old: []byte("{}\n")}, refuse: true},
		{name: "the same delete", a: Change{Op: OpDelete, Kind: KindConfig, Path: p, Old: []byte("{}\n")}, b: Change{Op: OpDelete, Kind: KindConfig, Path: p, Old: []byte("{}\n")}},
		{name: "a config and a record change of the same bytes", a: update, b: Change{Op: OpUpdate, Kind: KindRecord, Path: p, Old: update.Old, New: update.New}, refuse: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := compose([]*Plan{{Changes: []Change{tc.a}}, {Changes: []Change{tc.b}}})
			if tc.refuse {
				require.EqualError(t, err, "two plans of this run change "+p+": run the command for one host at a time (--host)")
				return
			}
			require.NoError(t, err)
			require.Equal(t, []Change{tc.a}, got)
		})
	}
}
