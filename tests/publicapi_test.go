package tests

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The public API is what a Go user embeds: the core, the net/http driver
// and the host-neutral tool surface, plus the plugin directory's embedded
// files for the binary. Every other package with an API lives under an
// internal/ directory, so `go doc` shows only these; a new one fails here.
func TestPublicPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{len .GoFiles}}", "../...").Output()
	require.NoError(t, err)
	const module = "github.com/deepseek-web-retrieval/deepseek-web-retrieval/"
	var public []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		path, name, files := strings.TrimPrefix(f[0], module), f[1], f[2]
		// A main package, a test-only one (tests/, docs/) or an internal one
		// has no API a user can import.
		if name == "main" || files == "0" || strings.Contains("/"+path+"/", "/internal/") {
			continue
		}
		public = append(public, path)
	}
	require.Equal(t, []string{"core", "httpdriver", "plugin", "tool"}, public)
}
