package install

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tailscale/hujson"
)

// This file edits JSONC syntax trees (github.com/tailscale/hujson) in place.
// Insertion and removal touch only the item concerned and the whitespace
// around it, so comments, formatting and every other entry survive, and a
// removal can put back exactly the bytes an insertion moved (see Layout).

// JSONC is a parsed JSONC document whose top level is an object.
type JSONC struct {
	Root      hujson.Value
	Obj       *hujson.Object
	Multiline bool   // the root object spans lines; new Items go on their own lines
	Unit      string // one indentation level, as the file writes it
	EOL       string // the file's line ending: "\n", or "\r\n" when most lines end so
	src       []byte // the parsed text, for line numbers in messages
	addedNL   bool   // ParseValue added a final "\n"; Pack takes it off
}

// ParseJSONC parses a JSONC document (comments and trailing commas allowed)
// whose top level must be an object.
func ParseJSONC(data []byte) (*JSONC, error) {
	root, addedNL, err := ParseValue(data)
	if err != nil {
		return nil, err
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		line := bytes.Count(data[:min(max(root.StartOffset, 0), len(data))], []byte("\n")) + 1
		return nil, fmt.Errorf("line %d: the top level is %s, not an object", line, Shape(root.Value))
	}
	c := &JSONC{Root: root, Obj: obj, Unit: "  ", Multiline: true, EOL: DetectEOL(data), src: data, addedNL: addedNL}
	if n := len(obj.Members); n > 0 {
		lead := obj.Members[0].Name.BeforeExtra
		c.Multiline = hasNewline(lead) || hasNewline(obj.Members[n-1].Name.BeforeExtra)
		if ind, ok := LineIndent(lead); ok && ind != "" {
			c.Unit = ind
		} else if ind := firstIndent(data); ind != "" {
			c.Unit = ind
		}
	} else if ind := firstIndent(data); ind != "" {
		c.Unit = ind
	}
	return c, nil
}

// DetectEOL returns "\r\n" when most of data's lines end with it, else "\n".
func DetectEOL(data []byte) string {
	crlf := bytes.Count(data, []byte("\r\n"))
	if crlf > 0 && crlf >= bytes.Count(data, []byte("\n"))-crlf {
		return "\r\n"
	}
	return "\n"
}

// firstIndent returns the indentation of the first indented line of data
// (tabs or spaces as written), or "".
func firstIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		j := 0
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j > 0 && j < len(line) && line[j] != '\r' {
			return string(line[:j])
		}
	}
	return ""
}

// Lines converts the line breaks of generated text (always "\n") to the
// file's line ending.
func (c *JSONC) Lines(b []byte) []byte {
	if c.EOL == "\n" || c.EOL == "" {
		return b
	}
	return bytes.ReplaceAll(b, []byte("\n"), []byte(c.EOL))
}

// Marshal formats v like [Marshal] with the file's indentation unit and
// line ending.
func (c *JSONC) Marshal(v any, prefix string, compact bool) []byte {
	return c.Lines(Marshal(v, prefix, c.Unit, compact))
}

// AppendLayout computes the extras for appending an item to it, with the
// file's line ending (see appendLayout).
func (c *JSONC) AppendLayout(it Items, multiline bool, indent, outer string) (lead, trail, tail hujson.Extra) {
	return appendLayout(it, multiline, indent, outer, c.EOL)
}

// Line returns the 1-based line of v's first byte in the parsed text (v
// must come from the parse, not from an edit).
func (c *JSONC) Line(v *hujson.Value) int {
	off := min(max(v.StartOffset, 0), len(c.src))
	return bytes.Count(c.src[:off], []byte("\n")) + 1
}

// Shape names the kind of a JSON value for messages: "null", "an array",
// "a string", "a number", "true", "false" or "an object".
func Shape(v hujson.ValueTrimmed) string {
	switch x := v.(type) {
	case *hujson.Object:
		return "an object"
	case *hujson.Array:
		return "an array"
	case hujson.Literal:
		switch x.Kind() {
		case 'n':
			return "null"
		case 't':
			return "true"
		case 'f':
			return "false"
		case '"':
			return "a string"
		}
		return "a number"
	}
	return "not a JSON value"
}

// ShapeError reports a member on an edit's path that is not the kind of
// value the edit needs (`"mcpServers": null`, say). The caller adds the
// file's name.
type ShapeError struct {
	Path  string // the member, dotted
	Line  int    // 1-based
	Shape string // what it is (see Shape)
	Want  string // what the edit needs: "an object", "an array"
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("line %d: %q is %s, not %s", e.Line, e.Path, e.Shape, e.Want)
}

// ParseValue parses JSONC like hujson.Parse, and also accepts a file that
// ends in a line comment with no line break after it (as the comment
// strippers of the JSON.parse-based hosts do): it then parses the text
// with a "\n" added, and addedNL reports it. Text nested deeper than a
// config may be (see checkConfig) is an error, unparsed.
func ParseValue(data []byte) (v hujson.Value, addedNL bool, err error) {
	if err := checkDepth(data, false); err != nil {
		return hujson.Value{}, false, err
	}
	v, err = hujson.Parse(data)
	if err == nil {
		return v, false, nil
	}
	if w, err2 := hujson.Parse(append(bytes.Clone(data), '\n')); err2 == nil {
		return w, true, nil
	}
	return v, false, err
}

// Pack returns the document's bytes, every untouched byte as it was.
func (c *JSONC) Pack() []byte {
	b := c.Root.Pack()
	if c.addedNL && len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

// Member returns the index of the member named key, or -1. Like JSON.parse,
// the last of duplicate names wins.
func (c *JSONC) Member(key string) int {
	for i := len(c.Obj.Members) - 1; i >= 0; i-- {
		if lit, ok := c.Obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// Value returns the member named key as a plain JSON value (nil if absent).
func (c *JSONC) Value(key string) any {
	i := c.Member(key)
	if i < 0 {
		return nil
	}
	return Plain(c.Obj.Members[i].Value)
}

// Plain converts a syntax tree to encoding/json values (map[string]any, …).
func Plain(v hujson.Value) any {
	v = v.Clone()
	v.BeforeExtra, v.AfterExtra = nil, nil
	v.Standardize()
	var out any
	if err := json.Unmarshal(v.Pack(), &out); err != nil {
		return nil
	}
	return out
}

// ParseTrimmed parses generated JSON; it panics on invalid input.
func ParseTrimmed(b []byte) hujson.ValueTrimmed {
	v, err := hujson.Parse(b)
	if err != nil {
		panic(fmt.Sprintf("parse generated JSON: %v", err))
	}
	return v.Value
}

// Layout records the whitespace an append moved, so the removal can restore it.
type Layout struct {
	Lead       string `json:"lead"`       // the new item's leading whitespace and comments
	TailBefore string `json:"tailBefore"` // the container's closing whitespace before the append
	TailAfter  string `json:"tailAfter"`  // and after it
}

// Items abstracts an object's members or an array's elements: insertion and
// removal treat both alike.
type Items interface {
	n() int
	lead(i int) *hujson.Extra  // extra before item i (after '{', '[' or ',')
	trail(i int) *hujson.Extra // extra after item i's value; non-nil on the last item means a trailing comma
	tail() *hujson.Extra       // extra before the closing bracket
	remove(i int)
}

// ObjItems is an object's members as Items.
type ObjItems struct{ O *hujson.Object }

func (x ObjItems) n() int                    { return len(x.O.Members) }
func (x ObjItems) lead(i int) *hujson.Extra  { return &x.O.Members[i].Name.BeforeExtra }
func (x ObjItems) trail(i int) *hujson.Extra { return &x.O.Members[i].Value.AfterExtra }
func (x ObjItems) tail() *hujson.Extra       { return &x.O.AfterExtra }
func (x ObjItems) remove(i int)              { x.O.Members = append(x.O.Members[:i:i], x.O.Members[i+1:]...) }
func (x ArrItems) n() int                    { return len(x.A.Elements) }
func (x ArrItems) lead(i int) *hujson.Extra  { return &x.A.Elements[i].BeforeExtra }
func (x ArrItems) trail(i int) *hujson.Extra { return &x.A.Elements[i].AfterExtra }
func (x ArrItems) tail() *hujson.Extra       { return &x.A.AfterExtra }
func (x ArrItems) remove(i int)              { x.A.Elements = append(x.A.Elements[:i:i], x.A.Elements[i+1:]...) }

// ArrItems is an array's elements as Items.
type ArrItems struct{ A *hujson.Array }

// IsMultiline reports whether a new item of the container goes on its own
// line: as the last item does, or for an empty container, when it already
// spans lines or fileMultiline says so.
func IsMultiline(it Items, fileMultiline bool) bool {
	if n := it.n(); n > 0 {
		return hasNewline(*it.lead(n - 1))
	}
	return fileMultiline || hasNewline(*it.tail())
}

// ItemIndent returns the indentation of the container's Items, given the
// indentation of the line holding the container (outer) and one level (unit).
func ItemIndent(it Items, outer, unit string) string {
	if n := it.n(); n > 0 {
		if ind, ok := LineIndent(*it.lead(n - 1)); ok {
			return ind
		}
	}
	return outer + unit
}

// appendLayout computes the extras for appending an item: its lead, its
// trail (trailing-comma style copied from the current last item) and the
// container's new tail. The container's current tail is split after its
// first line, so a comment trailing the old last item stays on that item's
// line. New line breaks are eol.
func appendLayout(it Items, multiline bool, indent, outer, eol string) (lead, trail, tail hujson.Extra) {
	n := it.n()
	old := *it.tail()
	if n > 0 && *it.trail(n - 1) != nil {
		trail = hujson.Extra{}
	}
	if !multiline {
		if n > 0 {
			lead = hujson.Extra(" ")
			if l := *it.lead(n - 1); !hasNewline(l) && len(l) > 0 && IsBlank(l) {
				lead = cat(l)
			}
		}
		return lead, trail, cat(old)
	}
	if first, rest, ok := splitFirstLine(old); ok {
		return cat(first, []byte(indent)), trail, cat([]byte(eol), rest)
	}
	return cat(old, []byte(eol+indent)), trail, hujson.Extra(eol + outer)
}

// RemoveItemOf removes item i like RemoveItem, with the first of lays that
// matches the item (see RemoveItem) as its saved layout.
func removeItemOf(it Items, i int, lays []Layout) {
	var saved *Layout
	if i == it.n()-1 {
		lead, tail := string(*it.lead(i)), string(*it.tail())
		for k := range lays {
			if lays[k].Lead == lead && lays[k].TailAfter == tail {
				saved = &lays[k]
				break
			}
		}
	}
	RemoveItem(it, i, saved)
}

// RemoveItem removes item i. saved, when it still matches, restores the
// whitespace exactly as it was before the item was appended; otherwise the
// first line of the item's lead (a comment trailing the previous item) is
// kept and the rest dropped.
func RemoveItem(it Items, i int, saved *Layout) {
	n := it.n()
	lead := *it.lead(i)
	if i < n-1 {
		next := it.lead(i + 1)
		if f, _, ok := splitFirstLine(lead); ok {
			if _, r, ok := splitFirstLine(*next); ok {
				*next = cat(f, r)
			}
		}
		it.remove(i)
		return
	}
	tail := *it.tail()
	var newTail hujson.Extra
	switch {
	case saved != nil && string(lead) == saved.Lead && string(tail) == saved.TailAfter:
		newTail = hujson.Extra(saved.TailBefore)
	default:
		if f, _, ok := splitFirstLine(lead); ok {
			if _, r, ok := splitFirstLine(tail); ok {
				newTail = cat(f, r)
			} else {
				newTail = cat(f, tail)
			}
		} else {
			newTail = cat(tail)
		}
	}
	if i > 0 {
		prev := it.trail(i - 1)
		ours := *it.trail(i)
		switch {
		case ours == nil && *prev != nil && len(*prev) == 0:
			*prev = nil
		case ours == nil && *prev != nil:
			newTail = cat(*prev, newTail)
			*prev = nil
		case ours != nil && *prev == nil:
			*prev = hujson.Extra{}
		}
	}
	it.remove(i)
	*it.tail() = newTail
}

// extras helpers

// Cat concatenates into a fresh slice: parsed extras alias the input buffer,
// so appending to them in place would corrupt it.
func cat(parts ...[]byte) hujson.Extra {
	out := hujson.Extra{}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// HasNewline reports whether e holds a line break.
func hasNewline(e []byte) bool { return bytes.IndexByte(e, '\n') >= 0 }

// IsBlank reports whether e is only whitespace.
func IsBlank(e []byte) bool { return len(bytes.Trim(e, " \t\r\n")) == 0 }

// SplitFirstLine splits e after its first newline that is not inside a
// block comment. ok is false when there is none.
func splitFirstLine(e []byte) (first, rest []byte, ok bool) {
	for i := 0; i < len(e); i++ {
		switch {
		case e[i] == '\n':
			return e[:i+1], e[i+1:], true
		case e[i] == '/' && i+1 < len(e) && e[i+1] == '*':
			end := bytes.Index(e[i+2:], []byte("*/"))
			if end < 0 {
				return nil, nil, false
			}
			i += 2 + end + 1
		}
	}
	return nil, nil, false
}

// LineIndent returns the spaces and tabs that start the last line of e.
func LineIndent(e []byte) (string, bool) {
	i := bytes.LastIndexByte(e, '\n')
	if i < 0 {
		return "", false
	}
	rest := e[i+1:]
	j := 0
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	return string(rest[:j]), true
}
