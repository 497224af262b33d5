// Package shapetest is what the installer's shape corpora share: config
// text written in every style an editor may leave (indentation, line
// ending, final newline, byte order mark), an independent JSONC reader,
// and the check that an edit kept the file's style.
package shapetest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

// Style is how a template is written out.
type Style struct {
	// Unit is the indentation unit: two or four spaces, or a tab.
	Unit string
	// EOL is the line ending: "\n" or "\r\n".
	EOL string
	// Final is how the file ends: "one" line break, "none", or "blank"
	// (two blank lines after the last).
	Final string
	// BOM puts a UTF-8 byte order mark first.
	BOM bool
}

// Styles returns every combination, 36 in all.
func Styles() []Style {
	var out []Style
	for _, unit := range []string{"  ", "    ", "\t"} {
		for _, eol := range []string{"\n", "\r\n"} {
			for _, final := range []string{"one", "none", "blank"} {
				for _, bom := range []bool{false, true} {
					out = append(out, Style{unit, eol, final, bom})
				}
			}
		}
	}
	return out
}

func (s Style) String() string {
	u := map[string]string{"  ": "2sp", "    ": "4sp", "\t": "tab"}[s.Unit]
	e := map[string]string{"\n": "lf", "\r\n": "crlf"}[s.EOL]
	b := ""
	if s.BOM {
		b = "+bom"
	}
	return u + "/" + e + "/" + s.Final + b
}

var (
	tabIndented   = regexp.MustCompile(`(?m)^\t+[^\s]`)
	leadingSpaces = regexp.MustCompile(`(?m)^( +)`)
)

// Render writes text, indented by two spaces a level with "\n" line
// endings, in style s.
func (s Style) Render(text string) string {
	text = leadingSpaces.ReplaceAllStringFunc(text, func(sp string) string { return strings.Repeat(s.Unit, len(sp)/2) })
	if strings.TrimSpace(text) != "" {
		switch s.Final {
		case "none":
			text = strings.TrimRight(text, "\n")
		case "blank":
			text = strings.TrimRight(text, "\n") + "\n\n\n"
		}
	}
	text = strings.ReplaceAll(text, "\n", s.EOL)
	if s.BOM {
		text = "\ufeff" + text
	}
	return text
}

// ReadJSON is the independent reader: hujson to strip comments and
// trailing commas, then encoding/json. A blank file is an empty object.
func ReadJSON(t testing.TB, data []byte) map[string]any {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	// A final line comment needs its line break to be read.
	std, err := hujson.Standardize(append(bytes.Clone(data), '\n'))
	require.NoError(t, err, "%q", data)
	var m map[string]any
	require.NoError(t, json.Unmarshal(std, &m), "%q", std)
	return m
}

// CheckStyle checks that got, an edit of orig (written in style s), kept
// its style: no bare LF in a CRLF file, no CR in an LF file, and new lines
// indented with the file's unit.
func CheckStyle(t testing.TB, s Style, orig, got, name string) {
	t.Helper()
	if s.EOL == "\r\n" && strings.Contains(orig, "\r\n") {
		require.NotRegexp(t, `[^\r]\n|^\n`, got, "%s: a bare LF in a CRLF file:\n%q", name, got)
	}
	if s.EOL == "\n" {
		require.NotContains(t, got, "\r", "%s: a CR in an LF file", name)
	}
	switch {
	case s.Unit == "\t" && tabIndented.MatchString(orig):
		require.NotRegexp(t, `(?m)^ `, got, "%s: a space-indented line in a tab-indented file:\n%s", name, got)
	case s.Unit != "\t":
		require.NotRegexp(t, `(?m)^\t`, got, "%s: a tab-indented line in a space-indented file:\n%s", name, got)
		if strings.Contains(orig, "\n"+s.Unit+"\"") {
			for _, ind := range leadingSpaces.FindAllString(got, -1) {
				require.Zero(t, len(ind)%len(s.Unit), "%s: an indentation of %d spaces in a file indented by %d:\n%s", name, len(ind), len(s.Unit), got)
			}
		}
	}
}

// Object returns the object at path in m, creating every missing (or
// non-object) member on the way as an empty object: where a test's
// expected document gets what an edit adds.
func Object(m map[string]any, path []string) map[string]any {
	for _, k := range path {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	return m
}
