package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// A config file is input: a project's comes with a clone, and doctor runs
// there. The parsers behind the editor recurse once per level of nesting
// (hujson and BurntSushi/toml alike: a 6 MB "[[[[…" ends in a fatal stack
// overflow), and BurntSushi/toml spends time and memory quadratic in the
// length of a key's path (nested inline tables, long dotted keys, long
// table headers: 40 KB of "{b={b=…" took 29 s and 3.9 GB), and a parsed
// JSON value costs several hundred bytes, so 64 MiB of "[0,0,0,…" ran
// doctor out of memory past 10 GB. So every file is held to a size before
// it is read, and every config to a depth (and a JSON one to a number of
// values) before any parser sees it (see checkConfig); the bounds are far
// above any config a host writes or a person keeps. The worst configs
// within them cost doctor a few seconds and under 1.5 GB (RATIONALE.md,
// "How does the installer bound what it reads?").
const (
	// maxFileBytes bounds every file the installer reads. Claude Code
	// keeps its project history in ~/.claude.json, which people report at
	// 65 and 101 MB; that much JSON costs doctor seconds and 1.7 GB.
	maxFileBytes = 256 << 20
	// maxTOMLBytes bounds a TOML config: BurntSushi/toml's cost for a key
	// is about a microsecond and grows with its path, so a MiB of keys
	// costs seconds. A Codex config.toml is a few KB.
	maxTOMLBytes = 1 << 20
	// maxJSONDepth bounds how deeply a JSON/JSONC config nests. Parsing
	// stays linear at any depth; this keeps the recursion of hujson, of
	// the editor and of encoding/json shallow.
	maxJSONDepth = 64
	// maxJSONValues bounds how many values a JSON/JSONC config holds
	// (member names included): each costs the parsers several hundred
	// bytes. A 117 MB ~/.claude.json as Claude Code writes it holds 2.4
	// million.
	maxJSONValues = 4_000_000
	// maxTOMLDepth bounds how deeply a TOML config nests, keys included
	// (see tomlDepth): BurntSushi/toml's cost for a key grows with its
	// path.
	maxTOMLDepth = 32
	// maxYAMLBytes bounds a YAML config: yaml.v3 keeps a node of a few
	// hundred bytes for every value. A Goose or Continue config.yaml is a
	// few KB.
	maxYAMLBytes = 4 << 20
	// maxYAMLDepth bounds how deeply a YAML config nests. yaml.v3 stops
	// at 10,000 levels itself; this keeps the walks over the tree and the
	// decoding shallow (see parseYAMLNode).
	maxYAMLDepth = 64
)

// limitError is a file beyond what the installer reads: larger than its
// size bound, nested deeper than its depth bound, or holding more values
// than its bound. It is found before any parser sees the file, so nothing
// was changed.
type limitError struct {
	Path   string // the file; "" for text that was not read from one
	Size   int64  // the file's size in bytes, when the size is over
	Depth  int    // how deeply it nests, when the depth is over
	Values int    // how many values it holds, when their number is over
	Limit  int64  // the bound it exceeds: bytes, levels or values
}

func (e *limitError) Error() string {
	var what string
	switch {
	case e.Depth > 0:
		what = fmt.Sprintf("nested %d levels deep, more than the %d this installer reads", e.Depth, e.Limit)
	case e.Values > 0:
		what = fmt.Sprintf("%d values, more than the %d this installer reads", e.Values, e.Limit)
	default:
		what = fmt.Sprintf("%d bytes, more than the %d MiB this installer reads", e.Size, e.Limit>>20)
	}
	if e.Path == "" {
		return what
	}
	return e.Path + ": " + what + "; nothing was changed"
}

// isTOML reports whether path names a TOML file (its extension decides, as
// for Secrets).
func isTOML(path string) bool { return strings.HasSuffix(path, ".toml") }

// isYAML reports whether path names a YAML file (.yaml or .yml).
func isYAML(path string) bool {
	return strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")
}

// sizeLimit is the largest config of path's syntax the installer reads.
func sizeLimit(path string) int64 {
	switch {
	case isTOML(path):
		return maxTOMLBytes
	case isYAML(path):
		return maxYAMLBytes
	}
	return maxFileBytes
}

// checkConfig holds a config's content to the bounds of its syntax (path's
// extension picks it: .toml is TOML, .yaml and .yml YAML, anything else
// JSONC) without parsing it: its size, its depth and, for JSON, its number
// of values. A YAML config's depth is held where it is parsed (see
// parseYAMLNode). The error is a *limitError naming path.
func checkConfig(path string, data []byte) error {
	toml := isTOML(path)
	limit := sizeLimit(path)
	var err *limitError
	_, body := SplitBOM(data)
	if n := int64(len(data)); n > limit {
		err = &limitError{Size: n, Limit: limit}
	} else if isYAML(path) {
		return nil // its depth is held where it is parsed
	} else if toml {
		if d := tomlDepth(body); d > maxTOMLDepth {
			err = &limitError{Depth: d, Limit: maxTOMLDepth}
		}
	} else if d, n := jsonShape(body); d > maxJSONDepth {
		err = &limitError{Depth: d, Limit: maxJSONDepth}
	} else if n > maxJSONValues {
		err = &limitError{Values: n, Limit: maxJSONValues}
	}
	if err == nil {
		return nil
	}
	err.Path = path
	return err
}

// checkDepth holds text to the depth bound of its syntax, before any
// parser sees it: every parse of a config starts with it (ParseValue,
// ParseTOML, Secrets), whatever the text's source. The other bounds are
// held where a file is read (ReadConfig, ReadRecord), since an edit adds to
// a file that may be at them. A byte order mark is skipped.
func checkDepth(data []byte, toml bool) error {
	_, body := SplitBOM(data)
	maxDepth, d := maxJSONDepth, 0
	if toml {
		maxDepth, d = maxTOMLDepth, tomlDepth(body)
	} else {
		d, _ = jsonShape(body)
	}
	if d > maxDepth {
		return &limitError{Depth: d, Limit: int64(maxDepth)}
	}
	return nil
}

// ReadConfig is ReadFile for a host's config: a file over the bounds of
// its syntax (see checkConfig) is refused with an error naming it and the
// bound, its content unread by any parser.
func ReadConfig(p string) (data []byte, mode fs.FileMode, exists bool, err error) {
	data, mode, exists, err = readFile(p, sizeLimit(p))
	if err == nil && exists {
		err = checkConfig(p, data)
	}
	if err != nil {
		return nil, 0, exists, err
	}
	return data, mode, exists, nil
}

// readCapped reads the regular file p, at most limit bytes: a larger one
// is a *limitError, found from its size before it is read (and again
// while reading, should it grow).
func readCapped(p string, limit int64) ([]byte, error) {
	if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
		return nil, Refuse(p + " is not a regular file") // opening a FIFO would wait for a writer
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, Refuse(p + " is not a regular file")
	}
	if fi.Size() > limit {
		return nil, &limitError{Path: p, Size: fi.Size(), Limit: limit}
	}
	data := make([]byte, fi.Size()+1) // a byte more, to see it grow
	n, err := io.ReadFull(f, data)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return data[:n], nil
	case err != nil:
		return nil, err
	}
	rest, err := io.ReadAll(io.LimitReader(f, limit+1-int64(n)))
	if err != nil {
		return nil, err
	}
	if size := int64(n + len(rest)); size > limit {
		return nil, &limitError{Path: p, Size: size, Limit: limit}
	}
	return append(data, rest...), nil
}

// jsonShape returns how deeply JSONC text nests arrays and objects (0 for
// a scalar) and how many values it holds (member names included: each is
// a node of the parser's tree), skipping strings and comments as hujson
// reads them. It is linear, never fails and uses no stack: on text that
// does not parse it returns some figures, and the parser then refuses the
// text.
func jsonShape(b []byte) (deepest, values int) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			values++
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '/':
			switch {
			case i+1 < len(b) && b[i+1] == '/':
				end := bytes.IndexByte(b[i:], '\n')
				if end < 0 {
					return deepest, values
				}
				i += end
			case i+1 < len(b) && b[i+1] == '*':
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return deepest, values
				}
				i += 2 + end + 1
			}
		case '[', '{':
			values++
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth = max(depth-1, 0)
		default:
			// null, true, false or a number: a run of the characters
			// hujson reads as one literal.
			if isLiteralChar(c) {
				values++
				for i+1 < len(b) && isLiteralChar(b[i+1]) {
					i++
				}
			}
		}
	}
	return deepest, values
}

func isLiteralChar(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tomlDepth returns how deeply a TOML document nests, counted in the JSON
// it decodes to: the document is a table (1), and each table a header or a
// dotted key opens, each array of tables (its array and its element), each
// array and each inline table adds a level. Table headers nest by their
// keys, not by their brackets. Like jsonShape it is linear, never fails
// and uses no stack; it reads what BurntSushi/toml reads (TOML 1.1: basic,
// literal and multi-line strings, # comments, newlines in inline tables)
// the same way, and on text that does not parse returns some depth.
func tomlDepth(b []byte) int {
	s := tomlScan{b: b, deepest: 1, root: &tomlNode{}}
	s.document()
	return s.deepest
}

type tomlScan struct {
	b       []byte
	i       int
	deepest int
	root    *tomlNode // the tables headers opened, to find arrays of tables
	stack   []tomlFrame
}

// tomlNode is a table or array of tables a header named; an array of
// tables' children are those of its last element.
type tomlNode struct {
	aot      bool
	children map[string]*tomlNode
}

// tomlFrame is an array or inline table being read, and its level.
type tomlFrame struct {
	table bool
	level int
}

func (s *tomlScan) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *tomlScan) deeper(level int) { s.deepest = max(s.deepest, level) }

func (s *tomlScan) skipWS() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t') {
		s.i++
	}
}

// skipComment skips a comment up to its line break.
func (s *tomlScan) skipComment() {
	if end := bytes.IndexByte(s.b[s.i:], '\n'); end >= 0 {
		s.i += end
	} else {
		s.i = len(s.b)
	}
}

// skipBlank skips whitespace, line breaks and comments.
func (s *tomlScan) skipBlank() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

// document reads statements: table headers and key/value pairs.
func (s *tomlScan) document() {
	level := 1 // the level of the table the statements go in
	for {
		s.skipBlank()
		if s.i >= len(s.b) {
			return
		}
		if s.at('[') {
			level = s.header()
		} else {
			parts := s.key(nil)
			s.skipWS()
			if !s.at('=') {
				s.i++ // lost: the parser refuses the text
				continue
			}
			s.i++
			at := level + max(parts, 1) - 1
			s.deeper(at)
			s.value(at)
		}
		s.skipWS()
		if s.at('#') {
			s.skipComment()
		}
	}
}

// header reads [a.b] or [[a.b]] and returns the level of the table it
// opens: one a key, and one more for each array of tables on the way.
func (s *tomlScan) header() int {
	s.i++
	aot := s.at('[')
	if aot {
		s.i++
	}
	var names []string
	s.key(&names)
	node, level := s.root, 1
	for k, name := range names {
		child := node.children[name]
		if child == nil {
			child = &tomlNode{}
			if node.children == nil {
				node.children = map[string]*tomlNode{}
			}
			node.children[name] = child
		}
		if aot && k == len(names)-1 {
			child.aot = true
			child.children = nil // a new element: the tables of the last one are not its
		}
		level++
		if child.aot {
			level++
		}
		node = child
	}
	s.deeper(level)
	s.skipWS()
	for n := 0; n < 2 && s.at(']'); n++ {
		s.i++
	}
	return level
}

// key reads a (dotted) key and returns how many parts it has; with names,
// it also appends each part as the parser decodes it.
func (s *tomlScan) key(names *[]string) int {
	parts := 0
	for {
		s.skipWS()
		start := s.i
		switch {
		case s.at('"'):
			s.i = basicEnd(s.b, s.i)
			if names != nil {
				*names = append(*names, decodeBasic(s.b[start+1:max(s.i-1, start+1)]))
			}
		case s.at('\''):
			s.i = literalEnd(s.b, s.i)
			if names != nil {
				*names = append(*names, string(s.b[start+1:max(s.i-1, start+1)]))
			}
		default:
			for s.i < len(s.b) && isBareKey(s.b[s.i]) {
				s.i++
			}
			if s.i == start {
				return parts
			}
			if names != nil {
				*names = append(*names, string(s.b[start:s.i]))
			}
		}
		parts++
		s.skipWS()
		if !s.at('.') {
			return parts
		}
		s.i++
	}
}

func isBareKey(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// value reads the value at s.i, whose key is in a table at level, with
// the arrays and inline tables in it and their members, without recursion.
func (s *tomlScan) value(level int) {
	s.stack = s.stack[:0]
	for {
		s.skipWS()
		opened := false
		switch {
		case s.at('[') || s.at('{'):
			s.stack = append(s.stack, tomlFrame{table: s.at('{'), level: level + 1})
			s.deeper(level + 1)
			s.i++
			opened = true
		case bytes.HasPrefix(s.b[s.i:], []byte(`"""`)):
			s.i = multiEnd(s.b, s.i)
		case bytes.HasPrefix(s.b[s.i:], []byte("'''")):
			s.i = multiEnd(s.b, s.i)
		case s.at('"'):
			s.i = basicEnd(s.b, s.i)
		case s.at('\''):
			s.i = literalEnd(s.b, s.i)
		default:
			// A number, date, time or boolean (a date and its time may
			// be apart by a space).
			for s.i < len(s.b) && strings.IndexByte(",]}#\r\n[{\"'=", s.b[s.i]) < 0 {
				s.i++
			}
		}
		var ok bool
		if level, ok = s.next(opened); !ok {
			return
		}
	}
}

// next moves past the end of a value (or, when opened, past the opening
// bracket just read) to the start of the next value of the arrays and
// inline tables being read, and returns the level of the table its key is
// in; ok is false when the outermost value ended (or the text is lost).
func (s *tomlScan) next(opened bool) (level int, ok bool) {
	for len(s.stack) > 0 {
		top := s.stack[len(s.stack)-1]
		closing := byte(']')
		if top.table {
			closing = '}'
		}
		s.skipBlank()
		switch {
		case opened && !s.at(closing):
			return s.item(top)
		case !opened && s.at(','):
			s.i++
			s.skipBlank()
			if !s.at(closing) {
				return s.item(top)
			}
			fallthrough // a trailing comma
		case s.at(closing):
			s.i++
			s.stack = s.stack[:len(s.stack)-1]
			opened = false
		default:
			return 0, false // lost: the parser refuses the text
		}
	}
	return 0, false
}

// item starts the next item of top: an array's value, or an inline
// table's member up to its value.
func (s *tomlScan) item(top tomlFrame) (level int, ok bool) {
	if !top.table {
		return top.level, true
	}
	parts := s.key(nil)
	s.skipWS()
	if !s.at('=') {
		return 0, false
	}
	s.i++
	level = top.level + max(parts, 1) - 1
	s.deeper(level)
	return level, true
}

// basicEnd returns the end of the basic string at i (after its closing
// quote, or at the line break or end that cuts it short).
func basicEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return j
		}
	}
	return len(b)
}

// literalEnd is basicEnd for a literal string.
func literalEnd(b []byte, i int) int {
	if end := bytes.IndexAny(b[i+1:], "'\n"); end >= 0 && b[i+1+end] == '\'' {
		return i + end + 2
	} else if end >= 0 {
		return i + 1 + end
	}
	return len(b)
}

// multiEnd returns the end of the multi-line string at i: after the
// closing three quotes, which may follow up to two more quotes of the
// string's own.
func multiEnd(b []byte, i int) int {
	q := b[i]
	for j := i + 3; j < len(b); j++ {
		if q == '"' && b[j] == '\\' {
			j++
			continue
		}
		if b[j] != q {
			continue
		}
		run := 1
		for j+run < len(b) && b[j+run] == q {
			run++
		}
		if run >= 3 {
			return j + min(run, 5)
		}
		j += run - 1
	}
	return len(b)
}

// decodeBasic decodes the escapes of a basic string's text as the parser
// does (TOML 1.1: \e and \xHH too); an escape it does not know is kept.
func decodeBasic(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out.WriteByte(b[i])
			continue
		}
		i++
		hex := 0
		switch b[i] {
		case 'b':
			out.WriteByte('\b')
		case 't':
			out.WriteByte('\t')
		case 'n':
			out.WriteByte('\n')
		case 'f':
			out.WriteByte('\f')
		case 'r':
			out.WriteByte('\r')
		case 'e':
			out.WriteByte(0x1b)
		case '"', '\\':
			out.WriteByte(b[i])
		case 'x':
			hex = 2
		case 'u':
			hex = 4
		case 'U':
			hex = 8
		default:
			out.WriteByte('\\')
			out.WriteByte(b[i])
		}
		if hex > 0 {
			r, err := strconv.ParseUint(string(b[i+1:min(i+1+hex, len(b))]), 16, 32)
			if err != nil || i+hex >= len(b) {
				out.WriteByte('\\')
				out.WriteByte(b[i])
				continue
			}
			out.WriteRune(rune(r))
			i += hex
		}
	}
	return out.String()
}
