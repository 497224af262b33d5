package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// This file edits JSONC syntax trees (github.com/tailscale/hujson) in place.
// Insertion and removal touch only the item concerned and the whitespace
// around it, so comments, formatting and every other entry survive, and a
// removal can put back exactly the bytes an insertion moved (see layout).

// config is a parsed config file.
type config struct {
	root      hujson.Value
	obj       *hujson.Object
	multiline bool   // the root object spans lines; new items go on their own lines
	unit      string // one indentation level, as the file writes it
}

func parseConfig(data []byte) (*config, error) {
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("the top level is not an object")
	}
	c := &config{root: root, obj: obj, unit: "  ", multiline: true}
	if n := len(obj.Members); n > 0 {
		lead := obj.Members[0].Name.BeforeExtra
		c.multiline = hasNewline(lead) || hasNewline(obj.Members[n-1].Name.BeforeExtra)
		if ind, ok := lineIndent(lead); ok && ind != "" {
			c.unit = ind
		}
	}
	return c, nil
}

func (c *config) pack() []byte { return c.root.Pack() }

// member returns the index of the member named key, or -1. Like JSON.parse,
// the last of duplicate names wins.
func (c *config) member(key string) int {
	for i := len(c.obj.Members) - 1; i >= 0; i-- {
		if lit, ok := c.obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// value returns the member named key as a plain JSON value (nil if absent).
func (c *config) value(key string) any {
	i := c.member(key)
	if i < 0 {
		return nil
	}
	return plain(c.obj.Members[i].Value)
}

// plain converts a syntax tree to encoding/json values (map[string]any, …).
func plain(v hujson.Value) any {
	v = v.Clone()
	v.BeforeExtra, v.AfterExtra = nil, nil
	v.Standardize()
	var out any
	if err := json.Unmarshal(v.Pack(), &out); err != nil {
		return nil
	}
	return out
}

func parseTrimmed(b []byte) hujson.ValueTrimmed {
	v, err := hujson.Parse(b)
	if err != nil {
		panic(fmt.Sprintf("parse generated JSON: %v", err))
	}
	return v.Value
}

// plugin list entries

// entry is one item of a plugin list.
type entry struct {
	index   int
	name    string // the package or path; "" when the item has no recognisable name
	options any    // the options object, nil when absent
	form    string // "string", "object" ({package, options}) or "tuple" ([name, options])
}

func entries(arr *hujson.Array) []entry {
	var out []entry
	for i, el := range arr.Elements {
		e := entry{index: i}
		switch v := plain(el).(type) {
		case string:
			e.name, e.form = v, "string"
		case map[string]any:
			e.name, _ = v["package"].(string)
			e.options, e.form = v["options"], "object"
		case []any:
			if len(v) > 0 {
				e.name, _ = v[0].(string)
			}
			if len(v) > 1 {
				e.options = v[1]
			}
			e.form = "tuple"
		}
		out = append(out, e)
	}
	return out
}

func isOurPath(name string) bool {
	return strings.TrimRight(name, "/") == PackagePath
}

// layout records the whitespace an append moved, so the removal can restore it.
type layout struct {
	Lead       string `json:"lead"`       // the new item's leading whitespace and comments
	TailBefore string `json:"tailBefore"` // the container's closing whitespace before the append
	TailAfter  string `json:"tailAfter"`  // and after it
}

// items abstracts an object's members or an array's elements: insertion and
// removal treat both alike.
type items interface {
	n() int
	lead(i int) *hujson.Extra  // extra before item i (after '{', '[' or ',')
	trail(i int) *hujson.Extra // extra after item i's value; non-nil on the last item means a trailing comma
	tail() *hujson.Extra       // extra before the closing bracket
	remove(i int)
}

type objItems struct{ o *hujson.Object }

func (x objItems) n() int                    { return len(x.o.Members) }
func (x objItems) lead(i int) *hujson.Extra  { return &x.o.Members[i].Name.BeforeExtra }
func (x objItems) trail(i int) *hujson.Extra { return &x.o.Members[i].Value.AfterExtra }
func (x objItems) tail() *hujson.Extra       { return &x.o.AfterExtra }
func (x objItems) remove(i int)              { x.o.Members = append(x.o.Members[:i:i], x.o.Members[i+1:]...) }
func (x arrItems) n() int                    { return len(x.a.Elements) }
func (x arrItems) lead(i int) *hujson.Extra  { return &x.a.Elements[i].BeforeExtra }
func (x arrItems) trail(i int) *hujson.Extra { return &x.a.Elements[i].AfterExtra }
func (x arrItems) tail() *hujson.Extra       { return &x.a.AfterExtra }
func (x arrItems) remove(i int)              { x.a.Elements = append(x.a.Elements[:i:i], x.a.Elements[i+1:]...) }

type arrItems struct{ a *hujson.Array }

// isMultiline reports whether a new item of the container goes on its own line.
func isMultiline(it items, fileMultiline bool) bool {
	if n := it.n(); n > 0 {
		return hasNewline(*it.lead(n - 1))
	}
	return fileMultiline
}

// itemIndent returns the indentation of the container's items, given the
// indentation of the line holding the container (outer) and one level (unit).
func itemIndent(it items, outer, unit string) string {
	if n := it.n(); n > 0 {
		if ind, ok := lineIndent(*it.lead(n - 1)); ok {
			return ind
		}
	}
	return outer + unit
}

// appendLayout computes the extras for appending an item: its lead, its
// trail (trailing-comma style copied from the current last item) and the
// container's new tail. The container's current tail is split after its
// first line, so a comment trailing the old last item stays on that item's
// line.
func appendLayout(it items, multiline bool, indent, outer string) (lead, trail, tail hujson.Extra) {
	n := it.n()
	old := *it.tail()
	if n > 0 && *it.trail(n - 1) != nil {
		trail = hujson.Extra{}
	}
	if !multiline {
		if n > 0 {
			lead = hujson.Extra(" ")
			if l := *it.lead(n - 1); !hasNewline(l) && len(l) > 0 && isBlank(l) {
				lead = cat(l)
			}
		}
		return lead, trail, cat(old)
	}
	if first, rest, ok := splitFirstLine(old); ok {
		return cat(first, []byte(indent)), trail, cat([]byte("\n"), rest)
	}
	return cat(old, []byte("\n"+indent)), trail, hujson.Extra("\n" + outer)
}

// removeItem removes item i. saved, when it still matches, restores the
// whitespace exactly as it was before the item was appended; otherwise the
// first line of the item's lead (a comment trailing the previous item) is
// kept and the rest dropped.
func removeItem(it items, i int, saved *layout) {
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

// cat concatenates into a fresh slice: parsed extras alias the input buffer,
// so appending to them in place would corrupt it.
func cat(parts ...[]byte) hujson.Extra {
	out := hujson.Extra{}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func hasNewline(e []byte) bool { return bytes.IndexByte(e, '\n') >= 0 }

func isBlank(e []byte) bool { return len(bytes.Trim(e, " \t\r\n")) == 0 }

// splitFirstLine splits e after its first newline that is not inside a
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

// lineIndent returns the spaces and tabs that start the last line of e.
func lineIndent(e []byte) (string, bool) {
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
