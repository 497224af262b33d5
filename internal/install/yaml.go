package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A YAML config editor for the one entry the installer owns in a host's
// YAML config (Goose's extensions.<name>, Continue's mcpServers item).
// go.yaml.in/yaml/v3 (the YAML organization's maintained successor of
// gopkg.in/yaml.v3) parses the document into nodes that carry their line
// and column; no Go YAML library re-encodes a document with its comments
// and layout as written, so the document is kept as its exact text, the
// nodes say where things are, and an edit splices whole lines in or out:
// the entry's own lines, produced by the library's encoder and indented as
// their siblings are. Every edit parses its result and compares it, as
// plain values, with the original with the entry put in or taken out, so
// an edit that would change anything else is never made. A shape the
// editor cannot edit safely (a flow collection holding entries, an anchor
// or alias over the part it edits, a merge key, a second document, a tab
// in the indentation) is a *YAMLShapeError naming its line.

// The forms of an entry in a YAML document.
const (
	// YAMLMember is the value of key name in the mapping at parent.
	YAMLMember = "member"
	// YAMLItem is the item of the sequence at parent whose name is name.
	YAMLItem = "item"
)

// ErrYAMLCheck is an edit whose result failed the check (see the top of
// this file): the document was left as it was.
var ErrYAMLCheck = errors.New("the YAML edit failed its check, so nothing was changed")

// YAMLDoc is a YAML document, kept as its exact text.
type YAMLDoc struct {
	text   string
	nl     string     // the line ending new lines take
	doc    *yaml.Node // the document node; nil when the text holds none
	plain  any        // the document as plain values (see yamlPlain)
	starts []int      // the offset each line starts at, as the parser counts lines
}

// YAMLShapeError is a document whose shape the editor cannot add to or take
// from: Line (1-based) holds what Shape describes; Fix says how to rewrite
// it.
type YAMLShapeError struct {
	Line  int
	Shape string
	Fix   string
}

func (e *YAMLShapeError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Shape) }

// YAMLEntry is how an entry was written into a document, so that it can be
// taken out again exactly: Text (the entry's lines) was written with Head
// just before it, Head taking the place of Prev. Head is what the entry
// needed around it: the parent's key line init added ("extensions:"), the
// rest of a key line whose empty value ("{}", "[]", "~") it took out, the
// line ending of a last line that had none.
type YAMLEntry struct {
	Form string `json:"form"`
	Head string `json:"head,omitempty"`
	Prev string `json:"prev,omitempty"`
	Text string `json:"text"`
}

// ParseYAML parses a YAML config of at most one document and keeps its
// text. The plain value is nil for a document with no content (an empty
// file, comments only). Text over the depth bound, with keys defined twice,
// or that is not UTF-8 is an error; a second document is a
// *YAMLShapeError.
func ParseYAML(data []byte) (*YAMLDoc, any, error) {
	if i := InvalidUTF8At(data); i >= 0 {
		return nil, nil, fmt.Errorf("byte %d is not valid UTF-8", i)
	}
	doc, err := parseYAMLNode(data)
	if err != nil {
		return nil, nil, err
	}
	d := &YAMLDoc{text: string(data), nl: DetectEOL(data), doc: doc}
	d.starts = lineStarts(d.text)
	if doc != nil {
		var v any
		if err := doc.Decode(&v); err != nil {
			return nil, nil, errors.New(strings.ReplaceAll(err.Error(), "\n  ", " "))
		}
		d.plain = yamlPlain(v)
	}
	return d, d.plain, nil
}

// parseYAMLNode parses data's one document (nil when there is none),
// refusing a second document, a tab in the indentation and a tree deeper
// than maxYAMLDepth (yaml.v3 stops at 10,000 levels itself; nothing walks
// or decodes a tree before this check).
func parseYAMLNode(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return nil, nil
	case err != nil:
		if line := tabIndented(data); line > 0 {
			return nil, &YAMLShapeError{line, "indented with a tab, which YAML does not allow", "indent with spaces, then run init again"}
		}
		return nil, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, &YAMLShapeError{next.Line, "a second YAML document starts here (---), and the host reads one", "keep one document in the file, then run init again"}
	}
	if d := yamlDepth(&doc, 0); d > maxYAMLDepth {
		return nil, &limitError{Depth: d, Limit: maxYAMLDepth}
	}
	return &doc, nil
}

// yamlDepth returns how deeply n nests (aliases are not followed).
func yamlDepth(n *yaml.Node, d int) int {
	deepest := d
	if d > maxYAMLDepth {
		return d
	}
	for _, c := range n.Content {
		deepest = max(deepest, yamlDepth(c, d+1))
	}
	return deepest
}

var tabIndent = regexp.MustCompile(`(?m)^ *\t`)

// tabIndented returns the first line whose indentation holds a tab (0 when
// none).
func tabIndented(data []byte) int {
	if loc := tabIndent.FindIndex(data); loc != nil {
		return bytes.Count(data[:loc[0]], []byte("\n")) + 1
	}
	return 0
}

// yamlPlain turns a decoded YAML value into plain values every caller can
// compare and marshal as JSON: maps with string keys (a key of another type
// becomes a string no real key can equal), slices, strings, bools, numbers
// (NaN and infinities as tagged strings), times as tagged strings.
func yamlPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = yamlPlain(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				ks = fmt.Sprintf("\x00%T:%v", k, k)
			}
			out[ks] = yamlPlain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = yamlPlain(e)
		}
		return out
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprintf("\x00float:%v", x)
		}
		return x
	case time.Time:
		return "\x00time:" + x.Format(time.RFC3339Nano)
	}
	return v
}

// lineStarts returns the offset of each line of s, lines ending where
// yaml.v3 counts a line break: CR LF, CR, LF, NEL, LS, PS.
func lineStarts(s string) []int {
	if s == "" {
		return nil
	}
	starts := []int{0}
	for i := 0; i < len(s); {
		w := breakAt(s, i)
		if w == 0 {
			i++
			continue
		}
		i += w
		if i < len(s) {
			starts = append(starts, i)
		}
	}
	return starts
}

// breakAt returns the length of the line break at s[i:], 0 for none.
func breakAt(s string, i int) int {
	switch {
	case strings.HasPrefix(s[i:], "\r\n"):
		return 2
	case s[i] == '\r' || s[i] == '\n':
		return 1
	case strings.HasPrefix(s[i:], "\u0085"):
		return 2
	case strings.HasPrefix(s[i:], "\u2028"), strings.HasPrefix(s[i:], "\u2029"):
		return 3
	}
	return 0
}

// Bytes returns the document.
func (d *YAMLDoc) Bytes() []byte { return []byte(d.text) }

// lines is the number of lines.
func (d *YAMLDoc) lines() int { return len(d.starts) }

// start returns the offset line n (1-based) starts at; one past the last
// line is the end of the text.
func (d *YAMLDoc) start(n int) int {
	if n > len(d.starts) {
		return len(d.text)
	}
	return d.starts[n-1]
}

// line returns line n without its line break.
func (d *YAMLDoc) line(n int) string {
	s := d.text[d.start(n):d.start(n+1)]
	for i := range len(s) {
		if breakAt(s, i) > 0 {
			return s[:i]
		}
	}
	return s
}

// endsWithBreak reports whether the text ends with a line break.
func (d *YAMLDoc) endsWithBreak() bool {
	n := d.lines()
	return n > 0 && len(d.line(n)) < d.start(n+1)-d.start(n)
}

// offset returns the offset of (line, column), both 1-based, the column
// counted in characters as yaml.v3 counts it.
func (d *YAMLDoc) offset(line, col int) int {
	i := d.start(line)
	for c := 1; c < col && i < len(d.text); c++ {
		_, w := utf8.DecodeRuneInString(d.text[i:])
		i += w
	}
	return i
}

// indent returns how many spaces line n starts with.
func (d *YAMLDoc) indent(n int) int {
	s := d.line(n)
	return len(s) - len(strings.TrimLeft(s, " "))
}

// blankOrComment reports whether line n holds nothing, or only a comment
// indented at most col-1 spaces.
func (d *YAMLDoc) blankOrComment(n, col int) bool {
	s := strings.TrimLeft(d.line(n), " \t")
	return s == "" || s[0] == '#' && d.indent(n) <= col-1
}

// trimBack returns the last line from first to last that belongs to an
// entry whose key (or dash) is at column col: blank lines and comments no
// deeper than col at its end are left to what follows.
func (d *YAMLDoc) trimBack(first, last, col int) int {
	for last > first && d.blankOrComment(last, col) {
		last--
	}
	return last
}

// yamlPart is where an edit happens: the top-level mapping, the parent's
// key and value, and what follows the parent.
type yamlPart struct {
	root   *yaml.Node // the top-level block mapping; nil when the document is empty
	col    int        // the column of the top-level keys
	key    *yaml.Node // the parent's key; nil when absent
	val    *yaml.Node // the parent's value
	endsAt int        // the parent's last line (before the next top-level key)
}

// top finds the top-level mapping and, in it, parent. A top level that is
// not a block mapping, or is null written out, is refused.
func (d *YAMLDoc) top(parent string) (*yamlPart, error) {
	p := &yamlPart{col: 1, endsAt: d.lines()}
	for n := 1; n <= d.lines(); n++ {
		if l := d.line(n); l == "..." || strings.HasPrefix(l, "... ") || strings.HasPrefix(l, "...\t") {
			return nil, &YAMLShapeError{n, "a document end marker (...), after which nothing can be added", "remove the marker, then run init again"}
		}
	}
	if d.doc == nil || len(d.doc.Content) == 0 {
		return p, nil
	}
	root := d.doc.Content[0]
	switch {
	case root.Anchor != "":
		return nil, &YAMLShapeError{root.Line, "the top level has an anchor (&" + root.Anchor + ")", "remove the anchor, then run init again"}
	case root.Style&yaml.TaggedStyle != 0:
		return nil, &YAMLShapeError{root.Line, "the top level has a tag (" + root.Tag + ")", "remove the tag, then run init again"}
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null" && root.Value == "" && root.Style == 0:
		return p, nil // "---" alone
	case root.Kind != yaml.MappingNode:
		return nil, &YAMLShapeError{root.Line, "the top level is " + yamlShape(root) + ", not a mapping", "make the file a mapping (key: value lines), then run init again"}
	case root.Style&yaml.FlowStyle != 0 && len(root.Content) > 0:
		return nil, &YAMLShapeError{root.Line, "the top level is written in flow style ({ … })", "write it in block style (one key: value a line), then run init again"}
	}
	p.root, p.col = root, root.Column
	if len(root.Content) > 0 {
		p.col = root.Content[0].Column
	}
	if root.Style&yaml.FlowStyle != 0 {
		// "{}" alone on its line: the document is empty.
		if d.line(root.Line) != strings.Repeat(" ", root.Column-1)+"{}" {
			return nil, &YAMLShapeError{root.Line, "the top level is written in flow style ({ … })", "write it in block style (one key: value a line), then run init again"}
		}
		return p, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge" {
			return nil, &YAMLShapeError{k.Line, "a merge key (<<) at the top level", "write the merged keys out, then run init again"}
		}
		if k.Kind == yaml.ScalarNode && k.Value == parent {
			p.key, p.val = k, root.Content[i+1]
			if i+2 < len(root.Content) {
				p.endsAt = root.Content[i+2].Line - 1
			}
		}
	}
	if p.key != nil {
		if err := d.noTabs(p.key.Line, p.endsAt); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// noTabs refuses a tab in the indentation of lines first to last.
func (d *YAMLDoc) noTabs(first, last int) error {
	for n := first; n <= last; n++ {
		if s := d.line(n); strings.HasPrefix(strings.TrimLeft(s, " "), "\t") && strings.TrimSpace(s) != "" {
			return &YAMLShapeError{n, "indented with a tab", "indent with spaces, then run init again"}
		}
	}
	return nil
}

// yamlShape names a node's kind for messages.
func yamlShape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias (*" + n.Value + ")"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return "a scalar (" + strings.TrimPrefix(n.Tag, "!!") + ")"
}

// entryAt is an entry found in the parent: its node, the lines it takes
// and the column its key (or dash) is at.
type entryAt struct {
	first, last, col int
}

// find returns where name is in the parent (nil when absent) and the
// insertion point after the parent's last entry. It refuses the shapes it
// cannot edit.
func (d *YAMLDoc) find(form, parent, name string, p *yamlPart) (ours *entryAt, after *entryAt, err error) {
	v := p.val
	want, what := yaml.MappingNode, "a mapping"
	if form == YAMLItem {
		want, what = yaml.SequenceNode, "a sequence"
	}
	switch {
	case v.Kind == yaml.AliasNode:
		return nil, nil, &YAMLShapeError{v.Line, parent + " is an alias (*" + v.Value + ") of another part of the file", "write " + parent + " out in place of the alias, then run init again"}
	case v.Anchor != "":
		return nil, nil, &YAMLShapeError{v.Line, parent + " has an anchor (&" + v.Anchor + "), so aliases elsewhere repeat it", "remove the anchor (write its aliases out), then run init again"}
	case v.Kind != want && !(v.Kind == yaml.ScalarNode && v.Tag == "!!null"):
		return nil, nil, &YAMLShapeError{v.Line, parent + " is " + yamlShape(v) + ", not " + what, "make " + parent + " " + what + " (or remove it), then run init again"}
	case v.Kind == yaml.ScalarNode || v.Style&yaml.FlowStyle != 0 && len(v.Content) == 0:
		return nil, nil, nil // empty: see emptyValue
	case v.Style&yaml.FlowStyle != 0:
		return nil, nil, &YAMLShapeError{v.Line, parent + " is written in flow style with entries in it", "write " + parent + " in block style (one entry a line), then run init again"}
	}
	if form == YAMLMember {
		c := v.Content
		for i := 0; i+1 < len(c); i += 2 {
			k, val := c[i], c[i+1]
			if k.Value == "<<" && k.Tag == "!!merge" {
				return nil, nil, &YAMLShapeError{k.Line, "a merge key (<<) in " + parent, "write the merged entries out, then run init again"}
			}
			end := p.endsAt
			if i+2 < len(c) {
				end = c[i+2].Line - 1
			}
			at := &entryAt{first: k.Line, last: d.trimBack(k.Line, end, k.Column), col: k.Column}
			after = at
			if k.Kind == yaml.ScalarNode && k.Value == name {
				if k.Anchor != "" || val.Anchor != "" || val.Kind == yaml.AliasNode || strings.HasPrefix(strings.TrimSpace(d.line(k.Line)), "?") {
					return nil, nil, &YAMLShapeError{k.Line, parent + "." + name + " has an anchor or is an alias", "write it out plainly (or remove it), then run init again"}
				}
				ours = at
			}
		}
		return ours, after, nil
	}
	items := v.Content
	for i, it := range items {
		if it.Kind == yaml.AliasNode {
			if named(it.Alias, name) {
				return nil, nil, &YAMLShapeError{it.Line, "the " + parent + " item named " + name + " is an alias (*" + it.Value + ")", "write the item out plainly (or remove it), then run init again"}
			}
		}
		if it.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(it.Content); j += 2 {
				if k := it.Content[j]; k.Value == "<<" && k.Tag == "!!merge" {
					return nil, nil, &YAMLShapeError{k.Line, "a merge key (<<) in an item of " + parent, "write the merged keys out, then run init again"}
				}
			}
		}
		first := d.dashLine(it, v.Column)
		end := p.endsAt
		if i+1 < len(items) {
			end = d.dashLine(items[i+1], v.Column) - 1
		}
		at := &entryAt{first: first, last: d.trimBack(first, end, v.Column), col: v.Column}
		after = at
		if named(it, name) {
			if ours != nil {
				return nil, nil, &YAMLShapeError{first, parent + " has two items named " + name, "remove one, then run init again"}
			}
			if it.Anchor != "" {
				return nil, nil, &YAMLShapeError{first, "the " + parent + " item named " + name + " has an anchor (&" + it.Anchor + ")", "remove the anchor (write its aliases out), then run init again"}
			}
			ours = at
		}
	}
	return ours, after, nil
}

// named reports whether n is a mapping whose name is name.
func named(n *yaml.Node, name string) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if k, v := n.Content[j], n.Content[j+1]; k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value == name && v.Tag == "!!str" {
			return true
		}
	}
	return false
}

// dashLine is the line of the "-" that starts item it of a block sequence
// whose dashes are at column col.
func (d *YAMLDoc) dashLine(it *yaml.Node, col int) int {
	for n := it.Line; n >= 1; n-- {
		s := d.line(n)
		if len(s) >= col && s[:col-1] == strings.Repeat(" ", col-1) && s[col-1] == '-' && (len(s) == col || s[col] == ' ' || s[col] == '\t') {
			return n
		}
	}
	return it.Line
}

// Entry returns the line of the entry (its key, or its item's dash), 0
// when there is none. A shape the editor cannot read is an error.
func (d *YAMLDoc) Entry(form, parent, name string) (int, error) {
	p, err := d.top(parent)
	if err != nil || p.key == nil {
		return 0, err
	}
	ours, _, err := d.find(form, parent, name, p)
	if err != nil || ours == nil {
		return 0, err
	}
	return ours.first, nil
}

// layout is how new lines are indented: unit spaces a level, and
// sequences under a key at the key's column (compact) or a level deeper.
func (d *YAMLDoc) layout() (unit int, compact bool) {
	unit = 0
	seen := false
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if v.Style&yaml.FlowStyle == 0 && v.Line > k.Line {
					switch v.Kind {
					case yaml.MappingNode:
						if unit == 0 && v.Column > k.Column {
							unit = v.Column - k.Column
						}
					case yaml.SequenceNode:
						if !seen {
							seen, compact = true, v.Column == k.Column
						}
						if unit == 0 && v.Column > k.Column {
							unit = v.Column - k.Column
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if d.doc != nil {
		walk(d.doc)
	}
	if unit == 0 {
		unit = 2
	}
	return unit, compact
}

// yaml11Ambiguous are strings a YAML 1.1 reader takes for booleans or
// null: written quoted, whatever reads the file.
var yaml11Ambiguous = regexp.MustCompile(`^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$`)

// encode returns the entry's lines (form, at column col, with unit and
// compact as the file's), from value, JSON with its members in order.
func (d *YAMLDoc) encode(form, name string, value json.RawMessage, col, unit int, compact bool) (string, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(value, &n); err != nil || len(n.Content) != 1 {
		return "", fmt.Errorf("the entry is not a JSON value: %v", err)
	}
	var plain func(*yaml.Node)
	plain = func(x *yaml.Node) {
		x.Style = 0
		if x.Kind == yaml.ScalarNode && x.Tag == "!!str" && (yaml11Ambiguous.MatchString(x.Value) || strings.ContainsAny(x.Value, "\r\n\u0085\u2028\u2029")) {
			x.Style = yaml.DoubleQuotedStyle
		}
		for _, c := range x.Content {
			plain(c)
		}
	}
	val := n.Content[0]
	plain(val)
	wrap := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{val}}
	if form == YAMLMember {
		wrap = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, val}}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(unit)
	if compact && unit == 2 {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(wrap); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	var out strings.Builder
	pad := strings.Repeat(" ", col-1)
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		out.WriteString(pad + l + d.nl)
	}
	return out.String(), nil
}

// emptyValue is a parent whose value is empty on its key's line: nothing
// ("extensions:"), "~", "null", "{}" or "[]". It returns where the key
// line's value starts (just after the colon) and ends (the same place for
// nothing); ok is false for an empty value written another way.
func (d *YAMLDoc) emptyValue(k, v *yaml.Node) (from, to int, ok bool) {
	line := d.line(k.Line)
	ls := d.start(k.Line)
	i := d.offset(k.Line, k.Column) - ls
	// Past the key: a quoted key ends at its closing quote.
	switch {
	case i < len(line) && line[i] == '"':
		for i++; i < len(line) && line[i] != '"'; i++ {
			if line[i] == '\\' {
				i++
			}
		}
		i++
	case i < len(line) && line[i] == '\'':
		for i++; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		i++
	default:
		for i < len(line) && !(line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t')) {
			i++
		}
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) || line[i] != ':' {
		return 0, 0, false
	}
	colon := i + 1
	comment := func(s string) bool { t := strings.TrimLeft(s, " \t"); return t == "" || t[0] == '#' }
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "" && v.Style&yaml.TaggedStyle == 0 {
		// Nothing after the colon but a comment: the value is implicit.
		return ls + colon, ls + colon, comment(line[colon:])
	}
	if v.Line != k.Line || v.Style&yaml.TaggedStyle != 0 {
		return 0, 0, false
	}
	vs := d.offset(v.Line, v.Column) - ls
	ve := vs
	switch {
	case v.Kind == yaml.ScalarNode:
		ve = vs + len(v.Value)
		if ve > len(line) || line[vs:ve] != v.Value {
			return 0, 0, false
		}
	default: // an empty flow collection: "{ }", "[]"
		closing := byte('}')
		if v.Kind == yaml.SequenceNode {
			closing = ']'
		}
		j := vs + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j >= len(line) || line[j] != closing {
			return 0, 0, false
		}
		ve = j + 1
	}
	if vs < colon || strings.TrimSpace(line[colon:vs]) != "" || !comment(line[ve:]) {
		return 0, 0, false
	}
	return ls + colon, ls + ve, true
}

// splice replaces d.text[a:b] with s.
func splice(text string, a, b int, s string) string { return text[:a] + s + text[b:] }

// insertion is text put at a line start at (or at the end): when the text
// ends without a line break, head ends the last line and the entry's text
// goes without its final one, as the document did.
func (d *YAMLDoc) insertion(at int, head, text string) (string, string) {
	if at == len(d.text) && d.text != "" && !d.endsWithBreak() {
		return d.nl + head, strings.TrimSuffix(text, d.nl)
	}
	return head, text
}

// Set puts name's entry, value (JSON, members in order), into the parent
// at the top level (a mapping for YAMLMember, a sequence for YAMLItem),
// creating the parent when absent, null or an empty "{}" / "[]" on its
// key's line. An entry already there is replaced where it stands; prev is
// the record of an earlier Set, whose Head and Prev the new record keeps.
// The document is checked (see the top of this file) and left unchanged
// on error.
func (d *YAMLDoc) Set(form, parent, name string, value json.RawMessage, prev *YAMLEntry) (*YAMLEntry, error) {
	p, err := d.top(parent)
	if err != nil {
		return nil, err
	}
	unit, compact := d.layout()
	e := &YAMLEntry{Form: form}
	var text string
	switch {
	case p.key == nil:
		// A new parent at the end of the document (or in place of "{}").
		col := p.col + unit
		if form == YAMLItem && compact {
			col = p.col
		}
		body, err := d.encode(form, name, value, col, unit, compact)
		if err != nil {
			return nil, err
		}
		e.Head, e.Text = strings.Repeat(" ", p.col-1)+yamlKey(parent)+":"+d.nl, body
		at, end := len(d.text), len(d.text)
		if p.root != nil && len(p.root.Content) == 0 { // "{}"
			at, end = d.start(p.root.Line), d.start(p.root.Line+1)
			e.Prev = d.text[at:end]
			if !strings.HasSuffix(e.Prev, d.nl) && end == len(d.text) {
				e.Text = strings.TrimSuffix(e.Text, d.nl)
			}
		} else {
			e.Head, e.Text = d.insertion(at, e.Head, e.Text)
		}
		text = splice(d.text, at, end, e.Head+e.Text)
	default:
		ours, after, err := d.find(form, parent, name, p)
		if err != nil {
			return nil, err
		}
		if ours == nil && after == nil {
			// Empty: the entry goes on the lines after the key's, and the
			// key line loses its "{}", "[]" or "~".
			from, to, ok := d.emptyValue(p.key, p.val)
			if !ok {
				return nil, &YAMLShapeError{p.val.Line, parent + " is empty, written in a way init cannot add to", "write `" + parent + ":` alone on its line, then run init again"}
			}
			col := p.key.Column + unit
			if form == YAMLItem && compact {
				col = p.key.Column
			}
			body, err := d.encode(form, name, value, col, unit, compact)
			if err != nil {
				return nil, err
			}
			lineEnd := d.start(p.key.Line) + len(d.line(p.key.Line))
			end := d.start(p.key.Line + 1)
			if from == to {
				e.Head, e.Text = d.insertion(end, "", body)
				text = splice(d.text, end, end, e.Head+e.Text)
				break
			}
			brk := d.text[lineEnd:end]
			if brk == "" {
				brk, body = d.nl, strings.TrimSuffix(body, d.nl)
			}
			e.Prev, e.Head, e.Text = d.text[from:end], d.text[to:lineEnd]+brk, body
			text = splice(d.text, from, end, e.Head+e.Text)
			break
		}
		if ours != nil {
			// Replace the entry where it stands, at its own column.
			body, err := d.encode(form, name, value, ours.col, unit, compact)
			if err != nil {
				return nil, err
			}
			a, b := d.start(ours.first), d.start(ours.last+1)
			if b == len(d.text) && !d.endsWithBreak() {
				body = strings.TrimSuffix(body, d.nl)
			}
			if prev != nil {
				e.Head, e.Prev = prev.Head, prev.Prev
			}
			e.Text = body
			text = splice(d.text, a, b, body)
			break
		}
		body, err := d.encode(form, name, value, after.col, unit, compact)
		if err != nil {
			return nil, err
		}
		at := d.start(after.last + 1)
		e.Head, e.Text = d.insertion(at, "", body)
		text = splice(d.text, at, at, e.Head+e.Text)
	}
	var want any
	if err := json.Unmarshal(value, &want); err != nil {
		return nil, err
	}
	if err := d.commit(text, func(m map[string]any) { setPlain(m, form, parent, name, want) }, form, parent, name); err != nil {
		return nil, err
	}
	return e, nil
}

// yamlKey is a key as YAML writes it (quoted when it must be).
func yamlKey(k string) string {
	out, err := yaml.Marshal(k)
	if err != nil {
		return k
	}
	return strings.TrimSuffix(string(out), "\n")
}

// Remove takes name's entry out of the parent, with e the record of the Set
// that wrote it (nil when unknown): its lines as written when they are
// still there, else the lines the entry takes now, whatever their layout.
// A parent left empty gets back what e says it was (the key line init
// added goes, "{}" comes back); without e it is left as an empty "{}" or
// "[]". It reports whether there was an entry to remove.
func (d *YAMLDoc) Remove(form, parent, name string, e *YAMLEntry) (bool, error) {
	p, err := d.top(parent)
	if err != nil || p.key == nil {
		return false, err
	}
	ours, _, err := d.find(form, parent, name, p)
	if err != nil || ours == nil {
		return false, err
	}
	a, b := d.start(ours.first), d.start(ours.last+1)
	if e != nil && e.Text != "" && strings.HasPrefix(d.text[a:], e.Text) {
		b = a + len(e.Text)
	}
	only := len(p.val.Content) == 1 || form == YAMLMember && len(p.val.Content) == 2
	text := ""
	switch {
	case only && e != nil && (e.Head != "" || e.Prev != "") && a >= len(e.Head) && d.text[a-len(e.Head):a] == e.Head:
		text = splice(d.text, a-len(e.Head), b, e.Prev)
	default:
		text = splice(d.text, a, b, "")
		if b == len(d.text) && !d.endsWithBreak() {
			// The entry ended the text without a line break: so does the
			// line before it now.
			for _, nl := range []string{"\r\n", "\n", "\r"} {
				if strings.HasSuffix(text, nl) {
					text = strings.TrimSuffix(text, nl)
					break
				}
			}
		}
		if only && !(e != nil && e.Head == "" && e.Prev == "") {
			// Left empty, and not as init found it: an empty flow
			// collection keeps the parent what the host expects.
			if from, _, ok := d.emptyValue(p.key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}); ok && from <= a {
				empty := " {}"
				if form == YAMLItem {
					empty = " []"
				}
				text = splice(text, from, from, empty)
			}
		}
	}
	if err := d.commit(text, func(m map[string]any) { removePlain(m, form, parent, name) }, form, parent, name); err != nil {
		return false, err
	}
	return true, nil
}

// commit parses text and checks it against the document with edit applied
// as data (an empty or null parent counting as none); the document becomes
// text only when they agree.
func (d *YAMLDoc) commit(text string, edit func(map[string]any), form, parent, name string) error {
	nd, got, err := ParseYAML([]byte(text))
	if err != nil {
		return fmt.Errorf("%w: the edit of %s broke the document: %v", ErrYAMLCheck, parent, err)
	}
	want := cloneYAMLPlain(d.plain)
	m, _ := want.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	edit(m)
	gm, _ := cloneYAMLPlain(got).(map[string]any)
	if gm == nil {
		gm = map[string]any{}
	}
	for _, x := range []map[string]any{m, gm} {
		if v, ok := x[parent]; ok && EmptyValue(v) {
			delete(x, parent)
		}
	}
	if !reflect.DeepEqual(m, gm) {
		return fmt.Errorf("%w: the edit of the %s entry %q would change more than that entry", ErrYAMLCheck, parent, name)
	}
	*d = *nd
	return nil
}

// EmptyValue reports whether the plain value v (a parsed config's) is
// null or an empty mapping or sequence.
func EmptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// cloneYAMLPlain copies a plain value (see yamlPlain).
func cloneYAMLPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneYAMLPlain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneYAMLPlain(e)
		}
		return out
	}
	return v
}

// setPlain puts the entry into m as data.
func setPlain(m map[string]any, form, parent, name string, value any) {
	value = jsonToYAMLPlain(value)
	if form == YAMLMember {
		sub, _ := m[parent].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
		}
		sub[name] = value
		m[parent] = sub
		return
	}
	list, _ := m[parent].([]any)
	for i, it := range list {
		if itemNamed(it, name) {
			list[i] = value
			return
		}
	}
	m[parent] = append(list, value)
}

// removePlain takes the entry out of m as data.
func removePlain(m map[string]any, form, parent, name string) {
	if form == YAMLMember {
		if sub, ok := m[parent].(map[string]any); ok {
			delete(sub, name)
		}
		return
	}
	list, ok := m[parent].([]any)
	if !ok {
		return
	}
	var keep []any
	for _, it := range list {
		if !itemNamed(it, name) {
			keep = append(keep, it)
		}
	}
	m[parent] = keep
}

func itemNamed(v any, name string) bool {
	it, ok := v.(map[string]any)
	return ok && it["name"] == name
}

// jsonToYAMLPlain turns a value decoded from JSON into the plain values
// YAML decoding gives (whole numbers as int).
func jsonToYAMLPlain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonToYAMLPlain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonToYAMLPlain(e)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x)
		}
	}
	return v
}
