package plugin

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFilesListsOnlyInstallableFiles(t *testing.T) {
	ents, err := fs.ReadDir(Files(), ".")
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		require.True(t, Installable(e.Name()), e.Name())
	}
	require.Contains(t, names, "package.json")
	require.Contains(t, names, "server.js")
	require.NotContains(t, names, "embed.go")

	_, err = fs.ReadFile(Files(), "embed.go")
	require.ErrorIs(t, err, fs.ErrNotExist)
	b, err := fs.ReadFile(Files(), "package.json")
	require.NoError(t, err)
	require.Contains(t, string(b), `"name"`)
}

func TestInstallable(t *testing.T) {
	for name, want := range map[string]bool{
		"package.json": true, "server.js": true, "wasi.js": true, "core.wasm": true, "README.md": true,
		"embed.go": false, "embed_test.go": false, ".gitignore": false, "other.wasm": false, "sub/x.js": false,
	} {
		require.Equal(t, want, Installable(name), name)
	}
}
