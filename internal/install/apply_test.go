package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A rollback undoes a step only while the path still holds what this run
// wrote: another writer's content is never removed or
// overwritten.
func TestRollbackTouchesOnlyOwnWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("theirs"), 0o644))
	require.NoError(t, removeIfSame(p, []byte("ours")))
	require.FileExists(t, p)
	require.NoError(t, restoreIfSame(p, []byte("ours"), []byte("old"), 0o644))
	b, _ := os.ReadFile(p)
	require.Equal(t, "theirs", string(b))
	require.NoError(t, os.WriteFile(p, []byte("ours"), 0o644))
	require.NoError(t, restoreIfSame(p, []byte("ours"), []byte("old"), 0o644))
	b, _ = os.ReadFile(p)
	require.Equal(t, "old", string(b))
	require.NoError(t, removeIfSame(p, []byte("old")))
	require.NoFileExists(t, p)
}

// A plan whose last step finds the file changed fails before anything is
// written: every step is checked first.
func TestApplyChecksEveryStepFirst(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(b, []byte("before"), 0o644))
	p := &Plan{Changes: []Change{
		{Op: OpCreate, Kind: KindConfig, Path: a, New: []byte("A"), Mode: 0o644},
		{Op: OpUpdate, Kind: KindConfig, Path: b, Old: []byte("planned"), New: []byte("B")},
	}}
	err := p.Apply()
	require.ErrorIs(t, err, ErrStale)
	require.NoFileExists(t, a)
	got, _ := os.ReadFile(b)
	require.Equal(t, "before", string(got))
}

// A step that fails while applying rolls back the steps before it, in
// every plan of the run, and leaves no journal behind.
func TestApplyRollsBackEveryPlan(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state", Name)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(b, []byte("before"), 0o644))
	tx := Tx{StateDir: state, Command: "init", Plans: []*Plan{
		{Changes: []Change{
			{Op: OpCreate, Kind: KindConfig, Path: a, New: []byte("A"), Mode: 0o644},
			{Op: OpUpdate, Kind: KindConfig, Path: b, Old: []byte("before"), New: []byte("B")},
		}},
		// A tree with a file name that climbs out fails while it is written.
		{Changes: []Change{{Op: OpCreate, Kind: KindTree, Path: filepath.Join(dir, "tree"), Files: []TreeFile{{Name: "../x", Data: []byte("X")}}}}},
	}}
	err := tx.Apply()
	require.Error(t, err)
	require.Contains(t, err.Error(), "rolled back")
	require.NoFileExists(t, a)
	got, _ := os.ReadFile(b)
	require.Equal(t, "before", string(got))
	require.NoDirExists(t, filepath.Join(dir, "tree"))
	require.NoDirExists(t, filepath.Join(dir, "state"), "the journal's directories go with it")
	ents, _ := os.ReadDir(dir)
	require.Len(t, ents, 1, "no temporary file is left")
}
