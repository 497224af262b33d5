package install

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var (
	yamlMemberValue = json.RawMessage(`{"cmd":"/bin/x","args":["mcp","--search","off"]}`)
	yamlItemValue   = json.RawMessage(`{"name":"dwr","command":"/bin/x","args":["mcp"]}`)
)

// yamlCase is one document, what Set makes of it, or the shape it refuses.
type yamlCase struct {
	name, in, want string
	refuse         string // "line N: shape"
}

func runYAMLCases(t *testing.T, form, parent string, value json.RawMessage, cases []yamlCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, before, err := ParseYAML([]byte(c.in))
			if c.refuse != "" && err != nil {
				var se *YAMLShapeError
				require.ErrorAs(t, err, &se)
				require.Equal(t, c.refuse, se.Error())
				return
			}
			require.NoError(t, err)
			e, err := d.Set(form, parent, "dwr", value, nil)
			if c.refuse != "" {
				var se *YAMLShapeError
				require.ErrorAs(t, err, &se)
				require.Equal(t, c.refuse, se.Error())
				require.NotEmpty(t, se.Fix)
				require.Equal(t, c.in, string(d.Bytes()), "a refused shape is left as it was")
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, string(d.Bytes()))

			// A strict reader sees the entry and everything else as it was.
			var got map[string]any
			require.NoError(t, yaml.Unmarshal(d.Bytes(), &got))
			var entry any
			require.NoError(t, json.Unmarshal(value, &entry))
			want, _ := cloneYAMLPlain(before).(map[string]any)
			if want == nil {
				want = map[string]any{}
			}
			setPlain(want, form, parent, "dwr", entry)
			require.Equal(t, want, yamlPlain(got))

			// The same Set again changes nothing; Remove with the record
			// gives back every byte.
			again, err := d.Set(form, parent, "dwr", value, e)
			require.NoError(t, err)
			require.Equal(t, c.want, string(d.Bytes()))
			require.Equal(t, e, again)
			ok, err := d.Remove(form, parent, "dwr", e)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, c.in, string(d.Bytes()))

			// Without the record, the entry's lines go and the document
			// is the same data (an emptied parent left as "{}" or "[]").
			d, _, err = ParseYAML([]byte(c.want))
			require.NoError(t, err)
			ok, err = d.Remove(form, parent, "dwr", nil)
			require.NoError(t, err)
			require.True(t, ok)
			_, after, err := ParseYAML(d.Bytes())
			require.NoError(t, err)
			for _, m := range []any{before, after} {
				if x, ok := m.(map[string]any); ok && EmptyValue(x[parent]) {
					delete(x, parent)
				}
			}
			if before == nil {
				before = map[string]any{}
			}
			if after == nil {
				after = map[string]any{}
			}
			require.Equal(t, before, after, "%q", d.Bytes())
		})
	}
}

const yamlMemberEntry = "  dwr:\n    cmd: /bin/x\n    args:\n      - mcp\n      - --search\n      - \"off\"\n"

// TestYAMLSetMember: Set writes extensions.dwr into every shape Goose's
// config.yaml can have, keeping every other byte, and Remove takes it out
// again; the shapes it cannot edit are refused with their line.
func TestYAMLSetMember(t *testing.T) {
	e := yamlMemberEntry
	runYAMLCases(t, YAMLMember, "extensions", yamlMemberValue, []yamlCase{
		{name: "empty file", in: "", want: "extensions:\n" + e},
		{name: "blank lines", in: "\n\n", want: "\n\nextensions:\n" + e},
		{name: "comments only", in: "# goose\n# config\n", want: "# goose\n# config\nextensions:\n" + e},
		{name: "document start only", in: "---\n", want: "---\nextensions:\n" + e},
		{name: "no final newline", in: "GOOSE_MODE: auto", want: "GOOSE_MODE: auto\nextensions:\n" + e[:len(e)-1]},
		{name: "other keys, parent absent", in: "# head\nGOOSE_MODE: auto # mode\n\nGOOSE_PROVIDER: openai\n", want: "# head\nGOOSE_MODE: auto # mode\n\nGOOSE_PROVIDER: openai\nextensions:\n" + e},
		{name: "parent null", in: "extensions:\nGOOSE_MODE: auto\n", want: "extensions:\n" + e + "GOOSE_MODE: auto\n"},
		{name: "parent null with a comment, last line without newline", in: "extensions: # none yet", want: "extensions: # none yet\n" + e[:len(e)-1]},
		{name: "parent ~", in: "extensions: ~\nb: 1\n", want: "extensions:\n" + e + "b: 1\n"},
		{name: "parent {} with a comment", in: "a: 1\nextensions: {}  # none\nb: 2\n", want: "a: 1\nextensions:  # none\n" + e + "b: 2\n"},
		{name: "parent { } at the end without newline", in: "extensions: { }", want: "extensions:\n" + e[:len(e)-1]},
		{name: "top level {}", in: "{}\n", want: "extensions:\n" + e},
		{name: "quoted parent key", in: "\"extensions\": {}\n", want: "\"extensions\":\n" + e},
		{name: "after the last entry, before comments", in: "extensions:\n  developer:\n    enabled: true\n    # deeper comment\n  # old: x\n\n# tail\nGOOSE_MODE: auto\n",
			want: "extensions:\n  developer:\n    enabled: true\n    # deeper comment\n" + e + "  # old: x\n\n# tail\nGOOSE_MODE: auto\n"},
		{name: "four-space indents", in: "extensions:\n    developer:\n        enabled: true\n", want: "extensions:\n    developer:\n        enabled: true\n    dwr:\n        cmd: /bin/x\n        args:\n            - mcp\n            - --search\n            - \"off\"\n"},
		{name: "sequences at the key's column, as Goose writes them", in: "extensions:\n  github:\n    args:\n    - -y\n    cmd: npx\n", want: "extensions:\n  github:\n    args:\n    - -y\n    cmd: npx\n  dwr:\n    cmd: /bin/x\n    args:\n    - mcp\n    - --search\n    - \"off\"\n"},
		{name: "CRLF", in: "a: 1\r\nextensions:\r\n  b: {}\r\n", want: "a: 1\r\nextensions:\r\n  b: {}\r\n  dwr:\r\n    cmd: /bin/x\r\n    args:\r\n      - mcp\r\n      - --search\r\n      - \"off\"\r\n"},
		{name: "indented top level", in: "  a: 1\n", want: "  a: 1\n  extensions:\n    dwr:\n      cmd: /bin/x\n      args:\n        - mcp\n        - --search\n        - \"off\"\n"},
		{name: "a block scalar last", in: "extensions:\n  a:\n    s: |\n      x\n      # not a comment\n", want: "extensions:\n  a:\n    s: |\n      x\n      # not a comment\n" + e},
		{name: "non-ASCII keys before", in: "\"é\": {\"ü\": 1}\nextensions:\n  b: 1\n", want: "\"é\": {\"ü\": 1}\nextensions:\n  b: 1\n" + e},
		{name: "flow parent with entries", in: "extensions: {a: 1}\n", refuse: "line 1: extensions is written in flow style with entries in it"},
		{name: "parent anchored", in: "extensions: &x\n  a: 1\nother: *x\n", refuse: "line 1: extensions has an anchor (&x), so aliases elsewhere repeat it"},
		{name: "parent an alias", in: "base: &b\n  a: 1\nextensions: *b\n", refuse: "line 3: extensions is an alias (*b) of another part of the file"},
		{name: "merge key in the parent", in: "base: &b\n  a: 1\nextensions:\n  <<: *b\n  c: 2\n", refuse: "line 4: a merge key (<<) in extensions"},
		{name: "merge key at the top", in: "base: &b\n  extensions: {}\n<<: *b\n", refuse: "line 3: a merge key (<<) at the top level"},
		{name: "our entry anchored", in: "extensions:\n  dwr: &a {cmd: y}\n", refuse: "line 2: extensions.dwr has an anchor or is an alias"},
		{name: "parent a sequence", in: "extensions:\n  - a\n", refuse: "line 2: extensions is a sequence, not a mapping"},
		{name: "parent a string", in: "extensions: none\n", refuse: "line 1: extensions is a scalar (str), not a mapping"},
		{name: "empty value on its own line", in: "extensions:\n  {}\n", refuse: "line 2: extensions is empty, written in a way init cannot add to"},
		{name: "top level a sequence", in: "- a\n", refuse: "line 1: the top level is a sequence, not a mapping"},
		{name: "top level null", in: "~\n", refuse: "line 1: the top level is null, not a mapping"},
		{name: "top level in flow style", in: "{a: 1}\n", refuse: "line 1: the top level is written in flow style ({ … })"},
		{name: "two documents", in: "a: 1\n---\nb: 2\n", refuse: "line 2: a second YAML document starts here (---), and the host reads one"},
		{name: "document end marker", in: "a: 1\n...\n", refuse: "line 2: a document end marker (...), after which nothing can be added"},
		{name: "a tab in the indentation", in: "extensions:\n\tb: 1\n", refuse: "line 2: indented with a tab, which YAML does not allow"},
	})
}

// TestYAMLSetItem: the same for a sequence item named dwr (Continue's
// mcpServers), in indented and non-indented sequences.
func TestYAMLSetItem(t *testing.T) {
	const item = "  - name: dwr\n    command: /bin/x\n    args:\n      - mcp\n"
	runYAMLCases(t, YAMLItem, "mcpServers", yamlItemValue, []yamlCase{
		{name: "empty file", in: "", want: "mcpServers:\n" + item},
		{name: "Continue's default config", in: "name: Local Config\nversion: 1.0.0\nschema: v1\nmodels: []\n", want: "name: Local Config\nversion: 1.0.0\nschema: v1\nmodels: []\nmcpServers:\n" + item},
		{name: "indented sequence with a server", in: "mcpServers:\n  - name: a\n    command: b # mine\n\n# tail\n", want: "mcpServers:\n  - name: a\n    command: b # mine\n" + item + "\n# tail\n"},
		{name: "non-indented sequence", in: "models:\n- name: m\nmcpServers:\n- name: a\n  command: b\nrules: []\n", want: "models:\n- name: m\nmcpServers:\n- name: a\n  command: b\n- name: dwr\n  command: /bin/x\n  args:\n  - mcp\nrules: []\n"},
		{name: "parent absent, sequences at the key's column elsewhere", in: "models:\n- name: m\n", want: "models:\n- name: m\nmcpServers:\n- name: dwr\n  command: /bin/x\n  args:\n  - mcp\n"},
		{name: "four-space indents", in: "models:\n    - name: m\n      roles:\n          - chat\n", want: "models:\n    - name: m\n      roles:\n          - chat\nmcpServers:\n    - name: dwr\n      command: /bin/x\n      args:\n        - mcp\n"},
		{name: "parent []", in: "mcpServers: []\n", want: "mcpServers:\n" + item},
		{name: "parent null, no final newline", in: "mcpServers:", want: "mcpServers:\n" + item[:len(item)-1]},
		{name: "an item in flow style before", in: "mcpServers:\n  - {name: a, command: b}\n", want: "mcpServers:\n  - {name: a, command: b}\n" + item},
		{name: "CRLF and a BOM-less file", in: "mcpServers:\r\n  - name: a\r\n    command: b\r\n", want: "mcpServers:\r\n  - name: a\r\n    command: b\r\n  - name: dwr\r\n    command: /bin/x\r\n    args:\r\n      - mcp\r\n"},
		{name: "flow sequence with items", in: "mcpServers: [{name: a}]\n", refuse: "line 1: mcpServers is written in flow style with entries in it"},
		{name: "parent a mapping", in: "mcpServers:\n  a: 1\n", refuse: "line 2: mcpServers is a mapping, not a sequence"},
		{name: "two items of ours", in: "mcpServers:\n  - name: dwr\n    command: a\n  - name: dwr\n    command: b\n", refuse: "line 4: mcpServers has two items named dwr"},
		{name: "our item an alias", in: "x: &s\n  name: dwr\n  command: a\nmcpServers:\n  - *s\n", refuse: "line 5: the mcpServers item named dwr is an alias (*s)"},
		{name: "our item anchored", in: "mcpServers:\n  - &s\n    name: dwr\n    command: a\nx: *s\n", refuse: "line 2: the mcpServers item named dwr has an anchor (&s)"},
		{name: "merge key in an item", in: "x: &s {command: a}\nmcpServers:\n  - <<: *s\n    name: b\n", refuse: "line 3: a merge key (<<) in an item of mcpServers"},
	})
}

// TestYAMLReplace: an entry already there is replaced where it stands, at
// its own indentation, and the record of the first Set is kept.
func TestYAMLReplace(t *testing.T) {
	in := "mcpServers:\n    - name: a\n      command: a\n    - name: dwr\n      command: old\n    # note\n    - name: z\n      command: z\n"
	d, _, err := ParseYAML([]byte(in))
	require.NoError(t, err)
	prev := &YAMLEntry{Form: YAMLItem, Head: "h", Prev: "p", Text: "old"}
	e, err := d.Set(YAMLItem, "mcpServers", "dwr", yamlItemValue, prev)
	require.NoError(t, err)
	require.Equal(t, "mcpServers:\n    - name: a\n      command: a\n    - name: dwr\n      command: /bin/x\n      args:\n        - mcp\n    # note\n    - name: z\n      command: z\n", string(d.Bytes()))
	require.Equal(t, &YAMLEntry{Form: YAMLItem, Head: "h", Prev: "p", Text: "    - name: dwr\n      command: /bin/x\n      args:\n        - mcp\n"}, e)

	// Rewritten by the host (other key order, other indentation), the
	// entry is still removed by its place, and nothing else.
	in = "extensions:\n  a: {x: 1}\n  dwr:\n    args: [mcp, --search, \"off\"]\n    cmd: /bin/x\n  z: 1\n"
	d, _, err = ParseYAML([]byte(in))
	require.NoError(t, err)
	ok, err := d.Remove(YAMLMember, "extensions", "dwr", &YAMLEntry{Form: YAMLMember, Text: yamlMemberEntry})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "extensions:\n  a: {x: 1}\n  z: 1\n", string(d.Bytes()))
}

// TestYAMLNeverWritesHalf: an edit whose result would differ anywhere but
// in the entry is refused and leaves the document as it was. A block
// scalar keeping its trailing blank lines ("|+") ends the last entry
// where the insertion goes, so the insertion would shorten it.
func TestYAMLNeverWritesHalf(t *testing.T) {
	in := "extensions:\n  a:\n    s: |+\n      x\n\n\nb: 1\n"
	d, _, err := ParseYAML([]byte(in))
	require.NoError(t, err)
	_, err = d.Set(YAMLMember, "extensions", "dwr", yamlMemberValue, nil)
	require.ErrorIs(t, err, ErrYAMLCheck)
	require.ErrorContains(t, err, `the edit of the extensions entry "dwr" would change more than that entry`)
	var se *YAMLShapeError
	require.False(t, errors.As(err, &se))
	require.Equal(t, in, string(d.Bytes()))
}

// TestYAMLEntry finds the entry's line, and nothing in a document without
// one.
func TestYAMLEntry(t *testing.T) {
	for _, c := range []struct {
		form, in string
		line     int
	}{
		{YAMLMember, "", 0},
		{YAMLMember, "extensions:\n", 0},
		{YAMLMember, "a: 1\nextensions:\n  b: 1\n  dwr:\n    cmd: x\n", 4},
		{YAMLItem, "mcpServers:\n- name: a\n-\n  name: dwr\n", 3},
		{YAMLItem, "mcpServers: []\n", 0},
	} {
		d, _, err := ParseYAML([]byte(c.in))
		require.NoError(t, err)
		parent := map[string]string{YAMLMember: "extensions", YAMLItem: "mcpServers"}[c.form]
		line, err := d.Entry(c.form, parent, "dwr")
		require.NoError(t, err)
		require.Equal(t, c.line, line, c.in)
	}
}

// TestParseYAML: the plain value is what a YAML reader gives, as values
// JSON can hold; keys defined twice, text that is not UTF-8 and a tree
// nested deeper than the bound are errors.
func TestParseYAML(t *testing.T) {
	_, v, err := ParseYAML([]byte("a: 1\nb: [x, .nan]\n3: t\nc: 2001-12-14t21:59:43.10-05:00\n"))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": 1, "b": []any{"x", "\x00float:NaN"}, "\x00int:3": "t", "c": "\x00time:2001-12-14T21:59:43.1-05:00"}, v)
	_, err = json.Marshal(v)
	require.NoError(t, err)

	_, _, err = ParseYAML([]byte("a: 1\na: 2\n"))
	require.ErrorContains(t, err, `line 2: mapping key "a" already defined at line 1`)
	_, _, err = ParseYAML([]byte("a: \"\xff\"\n"))
	require.EqualError(t, err, "byte 4 is not valid UTF-8")
	deep := "a: " + strings.Repeat("[", 70) + "1" + strings.Repeat("]", 70)
	_, _, err = ParseYAML([]byte(deep))
	var le *limitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, maxYAMLDepth, int(le.Limit))
}

// TestYAMLSecrets: a YAML config's credentials are found as values (Secrets
// reads YAML for .yaml and .yml), and references to variables are not.
func TestYAMLSecrets(t *testing.T) {
	cfg := []byte("extensions:\n  gh:\n    envs:\n      GITHUB_TOKEN: ghp_0123456789abcdefghijABCDEFGHIJ012345\n    env_keys: [DEEPSEEK_API_KEY]\nmcpServers:\n  - name: x\n    env:\n      K: ${{ secrets.K }}\n    requestOptions:\n      headers:\n        Authorization: Bearer ${{ secrets.T }}\n")
	for _, name := range []string{"config.yaml", "c.yml"} {
		require.Equal(t, [][]byte{[]byte("ghp_0123456789abcdefghijABCDEFGHIJ012345")}, Secrets(name, cfg))
	}
}
