package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// A surgical TOML editor for the one entry and the one top-level key the
// installer owns in a Codex config.toml. No maintained Go TOML library
// re-encodes a document with its comments and layout (go-toml/v2 and
// BurntSushi/toml both drop comments on encode), and a Codex config is
// hand-written, so the document is kept as its exact text: BurntSushi/toml
// validates it, a small scanner splits it into statements (table headers
// and key/value pairs, each a run of whole lines) and finds the values'
// extents (strings, arrays, inline tables), and an edit splices text in or
// out. Everything else stays byte for byte. New lines take the document's
// line ending. Callers parse the result and compare it as data with the
// original (see mcphosts' equalExcept), so an edit this scanner got wrong
// is never written. See RATIONALE.md, "Why a hand-written TOML editor for
// Codex?".

// TOMLDoc is a TOML document, kept as its exact text.
type TOMLDoc struct {
	text string
	nl   string // the line ending new lines take: the document's first one
}

// ParseTOML validates data with a TOML parser (TOML 1.1) and keeps its text.
// Text nested deeper than a config may be (see checkConfig) is an error,
// unparsed.
func ParseTOML(data []byte) (*TOMLDoc, map[string]any, error) {
	if err := checkDepth(data, true); err != nil {
		return nil, nil, err
	}
	if !utf8.Valid(data) {
		return nil, nil, fmt.Errorf("byte %d is not valid UTF-8, which TOML requires", InvalidUTF8At(data))
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	d := &TOMLDoc{text: string(data), nl: "\n"}
	if i := strings.IndexByte(d.text, '\n'); i > 0 && d.text[i-1] == '\r' {
		d.nl = "\r\n"
	}
	return d, m, nil
}

// Bytes returns the document.
func (d *TOMLDoc) Bytes() []byte { return []byte(d.text) }

// TOMLKV is one key/value pair of an entry: a bare key and its value as
// TOML text (see TOMLString, TOMLStrings).
type TOMLKV struct{ Key, Value string }

// TOMLEntry is how an entry was written into a document, so that it can be
// taken out again exactly: Text was spliced in with Before just before it
// and After just after it.
type TOMLEntry struct {
	// Form is "table" ([parent.name] appended as a table) or "inline" (a
	// member added to the inline table parent = { … }).
	Form   string `json:"form"`
	Before string `json:"before,omitempty"`
	Text   string `json:"text"`
	After  string `json:"after,omitempty"`
}

// TOMLShapeError is a document whose shape the editor cannot add to or
// take from: Line (1-based) holds the definition Shape describes; Fix
// says how to rewrite it.
type TOMLShapeError struct {
	Line  int
	Shape string
	Fix   string
}

func (e *TOMLShapeError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Shape) }

// ---- the scanner ----

type stmtKind int

const (
	stmtTable      stmtKind = iota + 1 // [a.b]
	stmtArrayTable                     // [[a.b]]
	stmtKeyVal                         // a.b = v
)

// tomlStmt is one statement: whole lines from start to end (after the last
// line's ending, or the end of the text).
type tomlStmt struct {
	kind       stmtKind
	start, end int
	line       int      // 1-based line number of start
	table      []string // the table a key/value pair is in; a header's own path
	keys       []string // a key/value pair's (dotted) key
	val, vend  int      // a key/value pair's value
}

// path is the full key path a statement defines.
func (s tomlStmt) path() []string {
	if s.kind != stmtKeyVal {
		return s.table
	}
	return append(append([]string{}, s.table...), s.keys...)
}

var errScan = errors.New("the TOML scanner lost its way")

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipWSNL skips whitespace, newlines and comments (inside arrays and
// TOML 1.1 inline tables).
func skipWSNL(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
			i++
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// restOfLine skips whitespace and a comment after a statement and returns
// the index after the line ending (or the end of the text).
func restOfLine(s string, i int) (int, error) {
	i = skipWS(s, i)
	if i < len(s) && s[i] == '#' {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	switch {
	case i == len(s):
		return i, nil
	case s[i] == '\n':
		return i + 1, nil
	case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return i + 2, nil
	}
	return 0, errScan
}

func isBare(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// parseKey reads a (dotted) key at i.
func parseKey(s string, i int) ([]string, int, error) {
	var keys []string
	for {
		i = skipWS(s, i)
		if i >= len(s) {
			return nil, 0, errScan
		}
		switch s[i] {
		case '"':
			end, err := scanValue(s, i)
			if err != nil {
				return nil, 0, err
			}
			var v struct{ K string }
			if _, err := toml.Decode("K = "+s[i:end], &v); err != nil {
				return nil, 0, errScan
			}
			keys, i = append(keys, v.K), end
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, 0, errScan
			}
			keys, i = append(keys, s[i+1:i+1+end]), i+end+2
		default:
			n := i
			for n < len(s) && isBare(s[n]) {
				n++
			}
			if n == i {
				return nil, 0, errScan
			}
			keys, i = append(keys, s[i:n]), n
		}
		i = skipWS(s, i)
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return keys, i, nil
	}
}

// scanValue returns the end of the value starting at i.
func scanValue(s string, i int) (int, error) {
	if i >= len(s) {
		return 0, errScan
	}
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, `"""`), strings.HasPrefix(rest, `'''`):
		q := rest[0]
		for j := i + 3; j < len(s); j++ {
			if q == '"' && s[j] == '\\' {
				j++
				continue
			}
			if strings.HasPrefix(s[j:], rest[:3]) {
				j += 3
				for n := 0; n < 2 && j < len(s) && s[j] == q; n++ {
					j++
				}
				return j, nil
			}
		}
	case rest[0] == '"':
		for j := i + 1; j < len(s) && s[j] != '\n'; j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == '"' {
				return j + 1, nil
			}
		}
	case rest[0] == '\'':
		if end := strings.IndexByte(rest[1:], '\''); end >= 0 {
			return i + end + 2, nil
		}
	case rest[0] == '[':
		j := i + 1
		for {
			j = skipWSNL(s, j)
			if j < len(s) && s[j] == ']' {
				return j + 1, nil
			}
			e, err := scanValue(s, j)
			if err != nil {
				return 0, err
			}
			j = skipWSNL(s, e)
			if j < len(s) && s[j] == ',' {
				j++
				continue
			}
			if j < len(s) && s[j] == ']' {
				return j + 1, nil
			}
			return 0, errScan
		}
	case rest[0] == '{':
		_, end, err := inlineMembers(s, i)
		return end, err
	default:
		j := i
		for j < len(s) && !strings.ContainsRune(",]}#\r\n", rune(s[j])) {
			j++
		}
		for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j > i {
			return j, nil
		}
	}
	return 0, errScan
}

// member is one key/value pair of an inline table.
type member struct {
	keys       []string
	start      int // the key's first byte
	val, vend  int
	nextStart  int // where the next member (or the closing brace) starts
	commaAfter bool
}

// inlineMembers reads the inline table at open ('{') and returns its
// members and the index after its closing brace.
func inlineMembers(s string, open int) ([]member, int, error) {
	var ms []member
	j := open + 1
	for {
		j = skipWSNL(s, j)
		if len(ms) > 0 {
			ms[len(ms)-1].nextStart = j
		}
		if j < len(s) && s[j] == '}' {
			return ms, j + 1, nil
		}
		start := j
		keys, k, err := parseKey(s, j)
		if err != nil {
			return nil, 0, err
		}
		if k >= len(s) || s[k] != '=' {
			return nil, 0, errScan
		}
		v := skipWS(s, k+1)
		e, err := scanValue(s, v)
		if err != nil {
			return nil, 0, err
		}
		m := member{keys: keys, start: start, val: v, vend: e}
		j = skipWSNL(s, e)
		if j < len(s) && s[j] == ',' {
			m.commaAfter = true
			j++
		} else if j >= len(s) || s[j] != '}' {
			return nil, 0, errScan
		}
		ms = append(ms, m)
	}
}

// stmts splits the document into statements.
func (d *TOMLDoc) stmts() ([]tomlStmt, error) {
	s := d.text
	var out []tomlStmt
	var table []string
	line, counted := 1, 0
	for i := 0; i < len(s); {
		j := skipWS(s, i)
		switch {
		case j == len(s):
			return out, nil
		case s[j] == '\n':
			i = j + 1
			continue
		case s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n':
			i = j + 2
			continue
		case s[j] == '#':
			e, err := restOfLine(s, j)
			if err != nil {
				return nil, err
			}
			i = e
			continue
		}
		line += strings.Count(s[counted:i], "\n")
		counted = i
		st := tomlStmt{start: i, line: line}
		if s[j] == '[' {
			st.kind, j = stmtTable, j+1
			closing := "]"
			if j < len(s) && s[j] == '[' {
				st.kind, j, closing = stmtArrayTable, j+1, "]]"
			}
			keys, k, err := parseKey(s, j)
			if err != nil {
				return nil, err
			}
			if !strings.HasPrefix(s[k:], closing) {
				return nil, errScan
			}
			if st.end, err = restOfLine(s, k+len(closing)); err != nil {
				return nil, err
			}
			table, st.table = keys, keys
		} else {
			keys, k, err := parseKey(s, j)
			if err != nil {
				return nil, err
			}
			if k >= len(s) || s[k] != '=' {
				return nil, errScan
			}
			st.kind, st.table, st.keys = stmtKeyVal, table, keys
			st.val = skipWS(s, k+1)
			if st.vend, err = scanValue(s, st.val); err != nil {
				return nil, err
			}
			if st.end, err = restOfLine(s, st.vend); err != nil {
				return nil, err
			}
		}
		out = append(out, st)
		i = st.end
	}
	return out, nil
}

// lineAt returns the 1-based line number of byte i.
func (d *TOMLDoc) lineAt(i int) int { return strings.Count(d.text[:i], "\n") + 1 }

func hasPrefixKeys(keys, prefix []string) bool {
	if len(keys) < len(prefix) {
		return false
	}
	for i := range prefix {
		if keys[i] != prefix[i] {
			return false
		}
	}
	return true
}

func equalKeys(a, b []string) bool { return len(a) == len(b) && hasPrefixKeys(a, b) }

// ---- the entry at parent.name ----

// entryShape is what the document holds at parent and parent.name.
type entryShape struct {
	inline *tomlStmt  // parent = { … } at the top level
	parts  []tomlStmt // statements defining the entry (headers with their keys, dotted keys)
	member *member    // the entry as a member of the inline parent
	form   string     // how the entry is defined: "table", "dotted" or "inline"
	line   int        // the first line defining the entry
}

func quoteKey(k string) string {
	for i := 0; i < len(k); i++ {
		if !isBare(k[i]) || k[i] >= 0x80 {
			return TOMLString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// shape finds parent and the entry parent.name, and refuses the shapes an
// entry cannot be added to.
func (d *TOMLDoc) shape(parent, name string) (*entryShape, error) {
	sts, err := d.stmts()
	if err != nil {
		return nil, err
	}
	sh := &entryShape{}
	ours := []string{parent, name}
	var kinds []string
	for i, st := range sts {
		p := st.path()
		switch {
		case st.kind == stmtArrayTable && equalKeys(p, []string{parent}):
			return nil, &TOMLShapeError{st.line, fmt.Sprintf("[[%s]] makes %s an array of tables; Codex reads %s as a table of named servers ([%s.<name>])", quoteKey(parent), quoteKey(parent), quoteKey(parent), quoteKey(parent)),
				fmt.Sprintf("turn each [[%s]] into a [%s.<name>] table (Codex refuses the file as it is), then run init again", quoteKey(parent), quoteKey(parent))}
		case st.kind == stmtArrayTable && hasPrefixKeys(p, ours):
			return nil, &TOMLShapeError{st.line, fmt.Sprintf("[[%s]] is an array of tables, not a server table", joinKeys(p)), "remove it (or make it a [" + joinKeys(ours) + "] table), then run init again"}
		case st.kind == stmtKeyVal && equalKeys(p, []string{parent}):
			if d.text[st.val] != '{' {
				return nil, &TOMLShapeError{st.line, fmt.Sprintf("%s is set to a value that is not a table (%s)", quoteKey(parent), strings.TrimSpace(firstLine(d.text[st.val:st.vend]))),
					"remove that line (or make it a table of servers: " + quoteKey(parent) + " = { <name> = { command = \"…\" } }), then run init again"}
			}
			sh.inline = &sts[i]
		case st.kind == stmtKeyVal && equalKeys(p, ours) && d.text[st.val] != '{':
			return nil, &TOMLShapeError{st.line, fmt.Sprintf("%s is set to a value that is not a table", joinKeys(p)), "remove that line, then run init again"}
		case hasPrefixKeys(p, ours):
			sh.parts = append(sh.parts, st)
			switch {
			case st.kind == stmtTable || hasPrefixKeys(st.table, ours):
				kinds = append(kinds, "table")
			case equalKeys(p, ours):
				kinds = append(kinds, "value")
			default:
				kinds = append(kinds, "dotted")
			}
		}
	}
	if sh.inline != nil {
		ms, _, err := inlineMembers(d.text, sh.inline.val)
		if err != nil {
			return nil, err
		}
		for i, m := range ms {
			if len(m.keys) > 0 && m.keys[0] == name {
				if sh.member != nil || len(m.keys) > 1 {
					return nil, &TOMLShapeError{d.lineAt(m.start), fmt.Sprintf("%s is defined with dotted keys inside the inline table %s = { … }", joinKeys(ours), quoteKey(parent)), "remove it from the inline table, then run init again"}
				}
				sh.member = &ms[i]
				sh.form, sh.line = "inline", d.lineAt(m.start)
			}
		}
	}
	if len(sh.parts) > 0 {
		sh.form, sh.line = kinds[0], sh.parts[0].line
		for _, k := range kinds {
			if k != sh.form {
				sh.form = "mixed"
			}
		}
	}
	return sh, nil
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func joinKeys(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = quoteKey(k)
	}
	return strings.Join(q, ".")
}

// EntryForm reports how the document defines parent.name: "" when it does
// not, "table" ([parent.name] and its subtables), "dotted" (dotted keys),
// "value" (an inline table: parent.name = { … }, or name = { … } under
// [parent]), "inline" (a member of the inline table parent = { … }) or
// "mixed"; with
// the first line that defines it. A shape no entry can be added to is an
// error (*TOMLShapeError).
func (d *TOMLDoc) EntryForm(parent, name string) (form string, line int, err error) {
	sh, err := d.shape(parent, name)
	if err != nil {
		return "", 0, err
	}
	return sh.form, sh.line, nil
}

// AddEntry adds parent.name with kvs, which must not be defined yet: as a
// member of the inline table when parent = { … } is one (Codex rejects a
// [parent.name] header there: "cannot extend value of type inline table"),
// else as a [parent.name] table at the end of the document (valid beside
// [parent] tables, [parent.x] tables and dotted parent.x keys, and read by
// Codex in each). A document without a final newline keeps having none.
func (d *TOMLDoc) AddEntry(parent, name string, kvs []TOMLKV) (*TOMLEntry, error) {
	sh, err := d.shape(parent, name)
	if err != nil {
		return nil, err
	}
	if sh.form != "" {
		return nil, &TOMLShapeError{sh.line, joinKeys([]string{parent, name}) + " is already defined", "remove it, then run init again"}
	}
	if sh.inline != nil {
		return d.addMember(sh.inline, name, kvs)
	}
	var b strings.Builder
	b.WriteString("[" + joinKeys([]string{parent, name}) + "]")
	for _, kv := range kvs {
		b.WriteString(d.nl + quoteKey(kv.Key) + " = " + kv.Value)
	}
	e := &TOMLEntry{Form: "table", Text: b.String()}
	s := d.text
	lastNL := strings.LastIndexByte(s, '\n')
	switch {
	case s == "":
		e.Text += d.nl
	case !strings.HasSuffix(s, "\n"):
		e.Before = d.nl // end the last line; the entry then ends without one, as the document did
		if strings.TrimSpace(s[lastNL+1:]) != "" {
			e.Before += d.nl
		}
	default:
		e.Text += d.nl
		if prev := strings.LastIndexByte(s[:lastNL], '\n'); strings.TrimSpace(s[prev+1:lastNL]) != "" {
			e.Before = d.nl // a blank line between the last text and the new table
		}
	}
	d.text = s + e.Before + e.Text
	return e, nil
}

// addMember adds name = { kvs } to the inline table st's value.
func (d *TOMLDoc) addMember(st *tomlStmt, name string, kvs []TOMLKV) (*TOMLEntry, error) {
	ms, end, err := inlineMembers(d.text, st.val)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = quoteKey(kv.Key) + " = " + kv.Value
	}
	e := &TOMLEntry{Form: "inline", Text: quoteKey(name) + " = { " + strings.Join(parts, ", ") + " }"}
	var at int
	if len(ms) == 0 {
		at = st.val + 1 // after the brace: "{ name = { … } }"
		e.Before = " "
		if d.text[at] != ' ' {
			e.After = " "
		}
	} else {
		// After the last member's value: ", name = { … }", or on a line of
		// its own, indented like the last member, in a multi-line (TOML
		// 1.1) inline table; a trailing comma then follows the new member.
		last := ms[len(ms)-1]
		at = last.vend
		e.Before = ", "
		if strings.Contains(d.text[st.val:end], "\n") {
			ls := strings.LastIndexByte(d.text[:last.start], '\n') + 1
			ind := d.text[ls:last.start]
			if strings.TrimSpace(ind) != "" {
				ind = ""
			}
			e.Before = "," + d.nl + ind
		}
	}
	d.text = d.text[:at] + e.Before + e.Text + e.After + d.text[at:]
	return e, nil
}

// partRanges returns the byte ranges of the statements that define the
// entry: each header with its key/value pairs, each dotted key's lines.
func (d *TOMLDoc) partRanges(sh *entryShape) [][2]int {
	sts, _ := d.stmts()
	var out [][2]int
	for _, p := range sh.parts {
		end := p.end
		if p.kind == stmtTable {
			for _, st := range sts {
				if st.start >= p.end && st.kind == stmtKeyVal && equalKeys(st.table, p.table) {
					end = st.end
				} else if st.start >= p.end {
					break
				}
			}
		} else if len(out) > 0 && out[len(out)-1][1] >= p.end {
			continue // inside the table just taken
		}
		out = append(out, [2]int{p.start, end})
	}
	return out
}

// RemoveEntry removes parent.name. With e (how AddEntry wrote it), while
// that text is still there as written, exactly what was added goes, so the
// bytes around it come back as they were; otherwise every statement that
// defines the entry goes (with one blank line beside a table, when two
// would be left in a row), or the member of the inline table with one
// comma. It reports whether there was an entry.
func (d *TOMLDoc) RemoveEntry(parent, name string, e *TOMLEntry) (bool, error) {
	sh, err := d.shape(parent, name)
	if err != nil {
		return false, err
	}
	if sh.form == "" {
		return false, nil
	}
	if e != nil {
		at := -1
		switch {
		case e.Form == "inline" && sh.member != nil:
			at = sh.member.start
		case e.Form == "table" && sh.form == "table":
			at = sh.parts[0].start
		}
		if at >= len(e.Before) && d.text[at-len(e.Before):at] == e.Before && strings.HasPrefix(d.text[at:], e.Text+e.After) {
			d.text = d.text[:at-len(e.Before)] + d.text[at+len(e.Text)+len(e.After):]
			return true, nil
		}
	}
	if m := sh.member; m != nil {
		ms, _, err := inlineMembers(d.text, sh.inline.val)
		if err != nil {
			return false, err
		}
		start, end := m.start, m.nextStart
		if !m.commaAfter && len(ms) > 1 {
			prev := ms[len(ms)-2]
			start, end = prev.vend, m.vend // ", name = {…}"
		}
		d.text = d.text[:start] + d.text[end:]
		return true, nil
	}
	rs := d.partRanges(sh)
	for i := len(rs) - 1; i >= 0; i-- {
		d.cutLines(rs[i][0], rs[i][1])
	}
	return true, nil
}

// cutLines removes the whole lines [start, end), and one blank line beside
// them when that would leave two in a row (or one at the end).
func (d *TOMLDoc) cutLines(start, end int) {
	s := d.text
	blankBefore := func(i int) (int, bool) { // the blank line ending at i
		if i == 0 {
			return 0, false
		}
		j := strings.LastIndexByte(s[:i-1], '\n') + 1
		return j, strings.TrimSpace(s[j:i]) == ""
	}
	blankAfter := func(i int) (int, bool) {
		if i == len(s) {
			return i, false
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = len(s) - i - 1
		}
		return i + j + 1, strings.TrimSpace(s[i:i+j+1]) == ""
	}
	if b, ok := blankBefore(start); ok {
		if _, ok2 := blankAfter(end); ok2 || end == len(s) {
			start = b
		}
	} else if a, ok := blankAfter(end); start == 0 && ok {
		end = a
	}
	if end == len(s) && !strings.HasSuffix(s[start:end], "\n") {
		// The removed lines ended the document without a line ending: so
		// does the line before them now.
		if strings.HasSuffix(s[:start], "\r\n") {
			start -= 2
		} else if strings.HasSuffix(s[:start], "\n") {
			start--
		}
	}
	d.text = s[:start] + s[end:]
}

// ---- the top-level key ----

// topKey finds the top-level key/value pair key = … (before any header),
// and refuses a key used as a table.
func (d *TOMLDoc) topKey(key string) (*tomlStmt, []tomlStmt, error) {
	sts, err := d.stmts()
	if err != nil {
		return nil, nil, err
	}
	var found *tomlStmt
	for i, st := range sts {
		p := st.path()
		if len(p) > 1 && p[0] == key || st.kind != stmtKeyVal && len(p) == 1 && p[0] == key {
			return nil, nil, &TOMLShapeError{st.line, fmt.Sprintf("%s is a table here; Codex reads the top-level %s as a string", quoteKey(key), quoteKey(key)),
				fmt.Sprintf("remove the %s table (Codex refuses the file as it is), then run init again", quoteKey(key))}
		}
		if st.kind == stmtKeyVal && equalKeys(p, []string{key}) {
			found = &sts[i]
		}
	}
	return found, sts, nil
}

// TopKeyLine returns the top-level key/value pair assigning key (its text
// without the line ending), "" when absent.
func (d *TOMLDoc) TopKeyLine(key string) string {
	st, _, err := d.topKey(key)
	if err != nil || st == nil {
		return ""
	}
	return strings.TrimRight(d.text[st.start:st.end], "\r\n")
}

// SetTopKey makes line (one key/value pair, without a line ending) the
// top-level assignment of key: it replaces the pair that assigns it, or
// inserts line after the last top-level pair (at the top of the document
// when there is none, with a blank line after it when text follows). It
// returns the text it replaced ("" when it inserted) and the exact text
// it put in.
func (d *TOMLDoc) SetTopKey(key, line string) (prev, inserted string, err error) {
	st, sts, err := d.topKey(key)
	if err != nil {
		return "", "", err
	}
	s := d.text
	if st != nil {
		prev = s[st.start:st.end]
		inserted = line + prev[len(strings.TrimRight(prev, "\r\n")):]
		d.text = s[:st.start] + inserted + s[st.end:]
		return prev, inserted, nil
	}
	at := 0
	for _, x := range sts {
		if x.kind != stmtKeyVal || len(x.table) > 0 {
			break
		}
		at = x.end
	}
	switch {
	case at > 0 && !strings.HasSuffix(s[:at], "\n"):
		inserted = d.nl + line // after the last line, which had no line ending
	case at == 0 && strings.TrimSpace(s) != "" && !blankLineAt(s, 0):
		inserted = line + d.nl + d.nl
	default:
		inserted = line + d.nl
	}
	d.text = s[:at] + inserted + s[at:]
	return "", inserted, nil
}

// blankLineAt reports whether the line starting at i is blank.
func blankLineAt(s string, i int) bool {
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		j = len(s) - i
	}
	return strings.TrimSpace(s[i:i+j]) == ""
}

// RemoveTopKey undoes SetTopKey while key's pair is still line: it puts
// prev back, or removes the inserted text (exactly, while it is still
// there as inserted; else the pair's lines). It reports whether it did.
func (d *TOMLDoc) RemoveTopKey(key, line, prev, inserted string) (bool, error) {
	st, _, err := d.topKey(key)
	if err != nil || st == nil {
		return false, err
	}
	s := d.text
	if strings.TrimRight(s[st.start:st.end], "\r\n") != strings.TrimRight(line, "\r\n") {
		return false, nil
	}
	if prev != "" {
		d.text = s[:st.start] + prev + s[st.end:]
		return true, nil
	}
	insertedBefore := 0
	if k := strings.Index(inserted, strings.TrimRight(line, "\r\n")); k >= 0 {
		insertedBefore = k
	}
	if at := st.start - insertedBefore; at >= 0 && strings.HasPrefix(s[at:], inserted) {
		d.text = s[:at] + s[at+len(inserted):]
		return true, nil
	}
	d.cutLines(st.start, st.end)
	return true, nil
}

// TOMLString quotes s as a TOML basic string.
func TOMLString(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TOMLStrings formats a TOML array of basic strings on one line.
func TOMLStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = TOMLString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
