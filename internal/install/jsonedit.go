package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// Path-level edits of a JSONC document, built on the item-level ones in
// jsonc.go: set a member (creating the objects on the way), remove it again
// (with the objects the set created, once empty), and add or remove strings
// in an array. Each touches only the member concerned and the whitespace
// beside it.

// Lookup returns the member at path (objects only) and the indentation of
// the line holding it, or nil.
func (c *JSONC) Lookup(path ...string) *hujson.Value {
	v, _, _ := c.find(path)
	return v
}

// LookupPlain returns the member at path as a plain JSON value (nil if absent).
func (c *JSONC) LookupPlain(path ...string) any {
	if v := c.Lookup(path...); v != nil {
		return Plain(*v)
	}
	return nil
}

// find returns the value at path, its parent object and the index in it.
func (c *JSONC) find(path []string) (*hujson.Value, *hujson.Object, int) {
	obj := c.Obj
	for i, k := range path {
		mi := memberIndex(obj, k)
		if mi < 0 {
			return nil, nil, -1
		}
		if i == len(path)-1 {
			return &obj.Members[mi].Value, obj, mi
		}
		sub, ok := obj.Members[mi].Value.Value.(*hujson.Object)
		if !ok {
			return nil, nil, -1
		}
		obj = sub
	}
	return nil, nil, -1
}

func memberIndex(o *hujson.Object, key string) int {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// Set sets the member at path to v (marshalled with encoding/json; pass a
// json.RawMessage or a struct to control the key order), replacing its
// value when it exists and creating it, and every missing object on the
// way, when it does not. created is how many path elements did not exist
// (0 when the member was replaced), for Remove to prune them again; lay is
// the layout of the member appended (nil when none was), for Remove to
// put the whitespace back exactly. A member on the way that is not an
// object is a *ShapeError, and nothing is changed.
func (c *JSONC) Set(path []string, v any) (created int, lay *Layout, err error) {
	obj, outer, multi := c.Obj, "", c.Multiline
	for i, k := range path {
		mi := memberIndex(obj, k)
		if mi < 0 {
			val := v
			for j := len(path) - 1; j > i; j-- {
				val = map[string]any{path[j]: val}
			}
			l := c.appendMember(obj, outer, multi, k, val)
			return len(path) - i, &l, nil
		}
		m := &obj.Members[mi]
		ind, onLine := LineIndent(m.Name.BeforeExtra)
		if !onLine {
			ind = outer
		}
		if i == len(path)-1 {
			m.Value.Value = ParseTrimmed(c.Marshal(v, ind, !onLine || !multi))
			return 0, nil, nil
		}
		sub, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			return 0, nil, &ShapeError{Path: strings.Join(path[:i+1], "."), Line: c.Line(&m.Value), Shape: Shape(m.Value.Value), Want: "an object"}
		}
		obj, outer = sub, ind
		multi = multi && onLine
	}
	return 0, nil, nil
}

func (c *JSONC) appendMember(o *hujson.Object, outer string, fileMulti bool, key string, v any) Layout {
	it := ObjItems{o}
	multi := IsMultiline(it, fileMulti)
	ind := ItemIndent(it, outer, c.Unit)
	text := Marshal(v, ind, c.Unit, !multi)
	keyJSON, _ := json.Marshal(key)
	wrap, err := hujson.Parse(c.Lines([]byte("{" + string(keyJSON) + ": " + string(text) + "}")))
	if err != nil {
		panic(err)
	}
	m := wrap.Value.(*hujson.Object).Members[0]
	old := string(o.AfterExtra)
	lead, trail, tail := c.AppendLayout(it, multi, ind, outer)
	m.Name.BeforeExtra, m.Value.AfterExtra = lead, trail
	o.Members = append(o.Members, m)
	o.AfterExtra = tail
	return Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
}

// Remove removes the member at path, then up to prune of its ancestors
// (innermost first) that are left empty: those Set created. lays are the
// layouts Set returned; each item removed takes the one that still
// matches it, so an untouched file gets its bytes back. It reports whether
// the member was there.
func (c *JSONC) Remove(path []string, prune int, lays ...Layout) bool {
	_, parent, mi := c.find(path)
	if parent == nil {
		return false
	}
	removeItemOf(ObjItems{parent}, mi, lays)
	for n := 1; n < prune && len(path)-n > 0; n++ {
		up := path[:len(path)-n]
		v, pp, pi := c.find(up)
		if v == nil {
			break
		}
		if o, ok := v.Value.(*hujson.Object); !ok || len(o.Members) > 0 || !IsBlank(o.AfterExtra) {
			break
		}
		removeItemOf(ObjItems{pp}, pi, lays)
	}
	return true
}

// AddStrings appends each of items missing from the array at path,
// creating the array (and missing objects) when absent. It returns the
// items it added, how many path elements it created and the layouts of
// its appends (for RemoveStrings). A member on the way that is not an
// object, or an array that is not one, is a *ShapeError.
func (c *JSONC) AddStrings(path []string, items []string) (added []string, created int, lays []Layout, err error) {
	v := c.Lookup(path...)
	if v == nil {
		n, lay, err := c.Set(path, items)
		if err != nil {
			return nil, 0, nil, err
		}
		if lay != nil {
			lays = append(lays, *lay)
		}
		return items, n, lays, nil
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, 0, nil, &ShapeError{Path: strings.Join(path, "."), Line: c.Line(v), Shape: Shape(v.Value), Want: "an array"}
	}
	have := map[string]bool{}
	for _, e := range arr.Elements {
		if s, ok := Plain(e).(string); ok {
			have[s] = true
		}
	}
	it := ArrItems{arr}
	for _, s := range items {
		if have[s] {
			continue
		}
		multi := IsMultiline(it, false)
		outer := closingIndent(arr.AfterExtra)
		ind := ItemIndent(it, outer, c.Unit)
		old := string(arr.AfterExtra)
		lead, trail, tail := c.AppendLayout(it, multi, ind, outer)
		text, _ := json.Marshal(s)
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: lead, Value: ParseTrimmed(text), AfterExtra: trail})
		arr.AfterExtra = tail
		added = append(added, s)
		lays = append(lays, Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)})
		have[s] = true
	}
	return added, 0, lays, nil
}

// closingIndent is the indentation before an array's closing bracket.
func closingIndent(tail []byte) string {
	ind, _ := LineIndent(tail)
	return ind
}

// RemoveStrings removes items from the array at path; an array left empty
// is removed with up to prune ancestors, as Remove does. lays are the
// layouts AddStrings returned.
func (c *JSONC) RemoveStrings(path []string, items []string, prune int, lays ...Layout) {
	v := c.Lookup(path...)
	if v == nil {
		return
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return
	}
	drop := map[string]bool{}
	for _, s := range items {
		drop[s] = true
	}
	for i := len(arr.Elements) - 1; i >= 0; i-- {
		if s, ok := Plain(arr.Elements[i]).(string); ok && drop[s] {
			removeItemOf(ArrItems{arr}, i, lays)
		}
	}
	if len(arr.Elements) == 0 && prune > 0 && IsBlank(arr.AfterExtra) {
		c.Remove(path, prune, lays...)
	}
}

// Marshal formats v as JSON: indented, with continuation lines starting
// with prefix and indent as one level, or on one line the way people write
// it by hand ({"a": 1, "b": [2, 3]}) when compact is set.
func Marshal(v any, prefix, indent string, compact bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only fixed, marshalable types reach here
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if compact {
		return oneLine(b)
	}
	var out bytes.Buffer
	_ = json.Indent(&out, b, prefix, indent)
	return out.Bytes()
}

func oneLine(b []byte) []byte {
	v, err := hujson.Parse(b)
	if err != nil {
		panic(err)
	}
	v.Minimize()
	for x := range v.All() {
		switch c := x.Value.(type) {
		case *hujson.Object:
			for i := range c.Members {
				if i > 0 {
					c.Members[i].Name.BeforeExtra = hujson.Extra(" ")
				}
				c.Members[i].Value.BeforeExtra = hujson.Extra(" ")
			}
		case *hujson.Array:
			for i := range c.Elements {
				if i > 0 {
					c.Elements[i].BeforeExtra = hujson.Extra(" ")
				}
			}
		}
	}
	return v.Pack()
}

// EmptyObject reports whether data is an object with no members and no
// comments: what is left of a config init created once its entry is gone.
func EmptyObject(data []byte) bool {
	v, _, err := ParseValue(data)
	if err != nil {
		return false
	}
	obj, ok := v.Value.(*hujson.Object)
	return ok && len(obj.Members) == 0 && IsBlank(obj.AfterExtra) && IsBlank(v.BeforeExtra) && IsBlank(v.AfterExtra)
}

// Normalize parses JSONC into plain values (objects as maps), for comparing
// two versions of a file as data. Unlike encoding/json, which reads every
// byte of a string that is not UTF-8 as U+FFFD, it keeps such bytes apart
// (see markInvalid), so two texts that differ there differ as data too.
func Normalize(data []byte) (any, error) {
	_, body := SplitBOM(data)
	v, _, err := ParseValue(bytes.Clone(body)) // Standardize rewrites the buffer
	if err != nil {
		return nil, err
	}
	v.Standardize()
	var out any
	if err := json.Unmarshal(markInvalid(v.Pack()), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// markInvalid rewrites each byte of standard JSON that is not UTF-8 (it
// can only be in a string) as the escapes of U+FFFD and U+F7xx, xx the
// byte: distinct values, where encoding/json reads every such byte as
// U+FFFD alone.
func markInvalid(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = fmt.Appendf(out, `\ufffd\uf7%02x`, b[0])
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}
