package install

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// A surgical TOML editor for the one table and the one top-level key the
// installer owns in a Codex config.toml. No maintained Go TOML library
// re-encodes a document with its comments and layout (go-toml/v2 and
// BurntSushi/toml both drop comments on encode), and a Codex config is
// hand-written, so the file is edited as lines: a table is found by its
// header line, replaced or removed whole, or appended at the end; the key
// is found among the lines before the first header. Everything else stays
// byte for byte. BurntSushi/toml parses the result, and callers compare it
// as data with the original (see TOMLEqualExcept), so an edit this scanner
// got wrong is never written. See RATIONALE.md, "Why a hand-written TOML
// editor for Codex?".

// TOMLDoc is a TOML document as lines (each with its line ending).
type TOMLDoc struct {
	lines []string
}

// ParseTOML validates data with a TOML parser and splits it into lines.
func ParseTOML(data []byte) (*TOMLDoc, map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, nil, fmt.Errorf("not valid UTF-8")
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, nil, err
	}
	return &TOMLDoc{lines: splitLines(string(data))}, m, nil
}

// Bytes returns the document.
func (d *TOMLDoc) Bytes() []byte { return []byte(strings.Join(d.lines, "")) }

// header describes one table header line.
type header struct {
	line int
	keys []string
}

// headers scans the document for table headers ([a.b] and [[a.b]]),
// skipping multi-line strings.
func (d *TOMLDoc) headers() []header {
	var out []header
	in := "" // the delimiter of the multi-line string we are in
	for i, l := range d.lines {
		t := strings.TrimSpace(l)
		if in == "" && strings.HasPrefix(t, "[") {
			if keys, ok := parseHeader(t); ok {
				out = append(out, header{i, keys})
				continue
			}
		}
		in = multiState(l, in)
	}
	return out
}

// multiState returns the multi-line string state after line l.
func multiState(l, in string) string {
	for i := 0; i < len(l); i++ {
		rest := l[i:]
		switch {
		case in != "":
			if in == `"""` && rest[0] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(rest, in) {
				i += 2
				in = ""
			}
		case rest[0] == '#':
			return in
		case strings.HasPrefix(rest, `"""`), strings.HasPrefix(rest, `'''`):
			in = rest[:3]
			i += 2
		case rest[0] == '"':
			for i++; i < len(l) && l[i] != '"'; i++ {
				if l[i] == '\\' {
					i++
				}
			}
		case rest[0] == '\'':
			for i++; i < len(l) && l[i] != '\''; i++ {
			}
		}
	}
	return in
}

// parseHeader parses "[a.b]" / "[[a.'b']]" (with an optional comment).
func parseHeader(t string) ([]string, bool) {
	open, closing := "[", "]"
	if strings.HasPrefix(t, "[[") {
		open, closing = "[[", "]]"
	}
	s := strings.TrimPrefix(t, open)
	var keys []string
	for {
		s = strings.TrimLeft(s, " \t")
		var k string
		switch {
		case strings.HasPrefix(s, `"`):
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, false
			}
			var v string
			if _, err := toml.Decode("k = "+s[:end+1], &struct {
				K *string `toml:"k"`
			}{&v}); err != nil {
				return nil, false
			}
			k, s = v, s[end+1:]
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, false
			}
			k, s = s[1:end+1], s[end+2:]
		default:
			n := 0
			for n < len(s) && (s[n] == '-' || s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
				n++
			}
			if n == 0 {
				return nil, false
			}
			k, s = s[:n], s[n:]
		}
		keys = append(keys, k)
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, ".") {
			s = s[1:]
			continue
		}
		if !strings.HasPrefix(s, closing) {
			return nil, false
		}
		rest := strings.TrimSpace(s[len(closing):])
		return keys, rest == "" || strings.HasPrefix(rest, "#")
	}
}

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

// block is a range of lines [start, end).
type block struct{ start, end int }

// tableBlocks returns the line ranges of the table at path and its
// subtables: each from its header through its last key line (comment and
// blank lines after that belong to what follows).
func (d *TOMLDoc) tableBlocks(path []string) []block {
	hs := d.headers()
	var out []block
	for i, h := range hs {
		if !hasPrefixKeys(h.keys, path) {
			continue
		}
		next := len(d.lines)
		if i+1 < len(hs) {
			next = hs[i+1].line
		}
		end := h.line + 1
		for j := h.line + 1; j < next; j++ {
			if t := strings.TrimSpace(d.lines[j]); t != "" && !strings.HasPrefix(t, "#") {
				end = j + 1
			}
		}
		out = append(out, block{h.line, end})
	}
	return out
}

// HasTable reports whether a header for the table at path (or a subtable)
// is in the document.
func (d *TOMLDoc) HasTable(path []string) bool { return len(d.tableBlocks(path)) > 0 }

// TableText returns the text of the table at path and its subtables.
func (d *TOMLDoc) TableText(path []string) string {
	var b strings.Builder
	for _, bl := range d.tableBlocks(path) {
		b.WriteString(strings.Join(d.lines[bl.start:bl.end], ""))
	}
	return b.String()
}

// SetTable replaces the table at path (and its subtables) with text (a
// header line and its keys), at the place of the first one; or appends it
// at the end of the document, after a blank line.
func (d *TOMLDoc) SetTable(path []string, text string) {
	bls := d.tableBlocks(path)
	if len(bls) == 0 {
		d.ensureNewline()
		if len(d.lines) > 0 && strings.TrimSpace(d.lines[len(d.lines)-1]) != "" {
			d.lines = append(d.lines, "\n")
		}
		d.lines = append(d.lines, splitLines(text)...)
		return
	}
	first := bls[0]
	for i := len(bls) - 1; i >= 1; i-- {
		d.removeBlock(bls[i])
	}
	d.lines = append(d.lines[:first.start], append(splitLines(text), d.lines[first.end:]...)...)
}

// RemoveTable removes the table at path and its subtables, with one blank
// line beside each when that would leave two in a row.
func (d *TOMLDoc) RemoveTable(path []string) bool {
	bls := d.tableBlocks(path)
	for i := len(bls) - 1; i >= 0; i-- {
		d.removeBlock(bls[i])
	}
	return len(bls) > 0
}

func (d *TOMLDoc) removeBlock(b block) {
	blank := func(i int) bool { return i >= 0 && i < len(d.lines) && strings.TrimSpace(d.lines[i]) == "" }
	start, end := b.start, b.end
	switch {
	case blank(start-1) && (blank(end) || end == len(d.lines)):
		start--
	case start == 0 && blank(end):
		end++
	}
	d.lines = append(d.lines[:start], d.lines[end:]...)
}

func (d *TOMLDoc) ensureNewline() {
	if n := len(d.lines); n > 0 && !strings.HasSuffix(d.lines[n-1], "\n") {
		d.lines[n-1] += "\n"
	}
}

// topKeyLine returns the index of the line assigning key before the first
// table header, or -1.
func (d *TOMLDoc) topKeyLine(key string) int {
	limit := len(d.lines)
	if hs := d.headers(); len(hs) > 0 {
		limit = hs[0].line
	}
	in := ""
	for i := 0; i < limit; i++ {
		l := d.lines[i]
		if in == "" {
			t := strings.TrimLeft(l, " \t")
			for _, k := range []string{key, `"` + key + `"`, "'" + key + "'"} {
				if r, ok := strings.CutPrefix(t, k); ok && strings.HasPrefix(strings.TrimLeft(r, " \t"), "=") {
					return i
				}
			}
		}
		in = multiState(l, in)
	}
	return -1
}

// TopKeyLine returns the line assigning a top-level key, "" when absent.
func (d *TOMLDoc) TopKeyLine(key string) string {
	if i := d.topKeyLine(key); i >= 0 {
		return d.lines[i]
	}
	return ""
}

// SetTopKey replaces the line assigning key before the first header with
// line, or inserts line after the last top-level key line (at the top of
// the document when there is none, followed by a blank line when a table
// header or other text follows directly). It returns the replaced line
// ("" when inserted) and the exact text inserted.
func (d *TOMLDoc) SetTopKey(key, line string) (prev, inserted string) {
	if i := d.topKeyLine(key); i >= 0 {
		prev = d.lines[i]
		d.lines[i] = line
		return prev, line
	}
	limit := len(d.lines)
	if hs := d.headers(); len(hs) > 0 {
		limit = hs[0].line
	}
	at := 0
	in := ""
	for i := 0; i < limit; i++ {
		t := strings.TrimSpace(d.lines[i])
		content := in == "" && t != "" && !strings.HasPrefix(t, "#")
		was := in
		in = multiState(d.lines[i], in)
		// After a key line, or after the line closing its multi-line value.
		if (content || was != "") && in == "" {
			at = i + 1
		}
	}
	inserted = line
	if at == 0 && len(d.lines) > 0 && strings.TrimSpace(d.lines[0]) != "" {
		inserted += "\n"
	}
	d.ensureNewline()
	d.lines = append(d.lines[:at], append(splitLines(inserted), d.lines[at:]...)...)
	return "", inserted
}

// RemoveTopKey undoes SetTopKey while the key's line is still line: it puts
// prev back, or removes the inserted text. It reports whether it did.
func (d *TOMLDoc) RemoveTopKey(key, line, prev, inserted string) bool {
	i := d.topKeyLine(key)
	if i < 0 || d.lines[i] != line {
		return false
	}
	if prev != "" {
		d.lines[i] = prev
		return true
	}
	n := len(splitLines(inserted))
	if i+n <= len(d.lines) && strings.Join(d.lines[i:i+n], "") == inserted {
		d.lines = append(d.lines[:i], d.lines[i+n:]...)
	} else {
		d.lines = append(d.lines[:i], d.lines[i+1:]...)
	}
	return true
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
