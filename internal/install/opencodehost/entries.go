package opencodehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/tailscale/hujson"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// The plugin list: its entries read, and ours added, updated or removed in
// the JSONC config.

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
		switch v := install.Plain(el).(type) {
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

// entryJSON returns the config entry for host h naming name, formatted as indented JSON
// whose continuation lines start with prefix (indent is one level), or as
// compact JSON when compact is set.
func entryJSON(h Host, name string, o install.Options, prefix, indent string, compact bool) []byte {
	return install.Marshal(h.generation().entry(name, o), prefix, indent, compact)
}

// trimmedText is a value's text without the whitespace and comments around it.
func trimmedText(v hujson.Value) []byte {
	v.BeforeExtra, v.AfterExtra = nil, nil
	return v.Pack()
}

// entryText returns our entry in data's key array as compact standard JSON.
func entryText(data []byte, key string) json.RawMessage {
	c, err := install.ParseJSONC(data)
	if err != nil {
		return nil
	}
	if mi := c.Member(key); mi >= 0 {
		if arr, ok := c.Obj.Members[mi].Value.Value.(*hujson.Array); ok {
			for _, e := range entries(arr) {
				if isOurPath(e.name) {
					var out bytes.Buffer
					if json.Compact(&out, plainBytes(hujson.Value{Value: arr.Elements[e.index].Value})) != nil {
						return nil
					}
					return out.Bytes()
				}
			}
		}
	}
	return nil
}

// checkEdit verifies that an edit kept everything but our entries: both
// sides, with our entries (and a then-empty key) removed, must be equal as
// JSON, and after must (or must not) hold our entry.
func checkEdit(before, after []byte, key string, wantOurs bool) error {
	nb, _, err := normalized(before, key)
	if err != nil {
		return fmt.Errorf("before: %w", err)
	}
	na, ours, err := normalized(after, key)
	if err != nil {
		return fmt.Errorf("after: %w", err)
	}
	if !reflect.DeepEqual(nb, na) {
		return errors.New("the edit changed more than the plugin entry")
	}
	if wantOurs != (ours > 0) {
		return fmt.Errorf("the edit left %d plugin entries", ours)
	}
	return nil
}

func normalized(data []byte, key string) (any, int, error) {
	v, _, err := install.ParseValue(data)
	if err != nil {
		return nil, 0, err
	}
	var m map[string]any
	if err := json.Unmarshal(plainBytes(v), &m); err != nil {
		return nil, 0, err
	}
	ours := 0
	if arr, ok := m[key].([]any); ok {
		var keep []any
		for _, el := range arr {
			if isOurPath(entryName(el)) {
				ours++
				continue
			}
			keep = append(keep, el)
		}
		if len(keep) == 0 {
			delete(m, key)
		} else {
			m[key] = keep
		}
	}
	return m, ours, nil
}

func plainBytes(v hujson.Value) []byte {
	v = v.Clone()
	v.Standardize()
	return v.Pack()
}

func entryName(v any) string {
	switch e := v.(type) {
	case string:
		return e
	case map[string]any:
		s, _ := e["package"].(string)
		return s
	case []any:
		if len(e) > 0 {
			s, _ := e[0].(string)
			return s
		}
	}
	return ""
}

// addEntry appends the entry for h naming name to the config, creating the
// key when needed. It returns whether it created the key and the layout to restore.
func addEntry(c *install.JSONC, h Host, name string, o install.Options) (createdKey bool, lay install.Layout) {
	key := h.Key()
	root := install.ObjItems{O: c.Obj}
	if mi := c.Member(key); mi >= 0 {
		m := &c.Obj.Members[mi]
		arr := m.Value.Value.(*hujson.Array)
		it := install.ArrItems{A: arr}
		outer, _ := install.LineIndent(m.Name.BeforeExtra)
		multi := install.IsMultiline(it, c.Multiline)
		ind := install.ItemIndent(it, outer, c.Unit)
		text := c.Lines(entryJSON(h, name, o, ind, c.Unit, !multi))
		old := string(arr.AfterExtra)
		lead, trail, tail := c.AppendLayout(it, multi, ind, outer)
		arr.Elements = append(arr.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(text), AfterExtra: trail})
		arr.AfterExtra = tail
		return false, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
	}
	multi := install.IsMultiline(root, true) && c.Multiline
	memberInd := install.ItemIndent(root, "", c.Unit)
	var arrText string
	if multi {
		elemInd := memberInd + c.Unit
		arrText = "[\n" + elemInd + string(entryJSON(h, name, o, elemInd, c.Unit, false)) + "\n" + memberInd + "]"
	} else {
		arrText = "[" + string(entryJSON(h, name, o, "", "", true)) + "]"
	}
	keyJSON, _ := json.Marshal(key)
	wrap, err := hujson.Parse(c.Lines([]byte("{" + string(keyJSON) + ": " + arrText + "}")))
	if err != nil {
		panic(err)
	}
	m := wrap.Value.(*hujson.Object).Members[0]
	old := string(c.Obj.AfterExtra)
	lead, trail, tail := c.AppendLayout(root, multi, memberInd, "")
	m.Name.BeforeExtra, m.Value.AfterExtra = lead, trail
	c.Obj.Members = append(c.Obj.Members, m)
	c.Obj.AfterExtra = tail
	return true, install.Layout{Lead: string(lead), TailBefore: old, TailAfter: string(tail)}
}

// removeEntry removes element idx of the plugin list (member mi of the
// root), and the list with it when init created it and it is now empty.
// lay is what addEntry returned: the element's layout, or the list's when
// createdKey.
func removeEntry(c *install.JSONC, mi, idx int, createdKey bool, lay *install.Layout) {
	arr := c.Obj.Members[mi].Value.Value.(*hujson.Array)
	var elemLayout, keyLayout *install.Layout
	if createdKey {
		keyLayout = lay
	} else {
		elemLayout = lay
	}
	install.RemoveItem(install.ArrItems{A: arr}, idx, elemLayout)
	if createdKey && len(arr.Elements) == 0 {
		install.RemoveItem(install.ObjItems{O: c.Obj}, mi, keyLayout)
	}
}

// setOptions rewrites entry e of arr so it names name and carries options
// o, in h's form, touching as little text as possible: an entry naming
// something else (the vendored path for an npm spec, or the reverse) is
// replaced whole.
func setOptions(c *install.JSONC, h Host, arr *hujson.Array, e entry, name string, o install.Options) {
	el := &arr.Elements[e.index]
	ind, ok := install.LineIndent(el.BeforeExtra)
	compact := !ok
	if e.form != h.form() || !sameName(e.name, name) {
		el.Value = install.ParseTrimmed(c.Lines(entryJSON(h, name, o, ind, c.Unit, compact)))
		return
	}
	switch v := el.Value.(type) {
	case *hujson.Object:
		for i := len(v.Members) - 1; i >= 0; i-- {
			m := &v.Members[i]
			if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == "options" {
				oi, ok := install.LineIndent(m.Name.BeforeExtra)
				m.Value.Value = install.ParseTrimmed(c.Marshal(o, oi, !ok))
				return
			}
		}
		it := install.ObjItems{O: v}
		multi := install.IsMultiline(it, !compact)
		mi := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, mi, ind)
		m := hujson.ObjectMember{
			Name:  hujson.Value{BeforeExtra: lead, Value: hujson.String("options")},
			Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: install.ParseTrimmed(c.Marshal(o, mi, !multi)), AfterExtra: trail},
		}
		v.Members = append(v.Members, m)
		v.AfterExtra = tail
	case *hujson.Array:
		if len(v.Elements) >= 2 {
			oi, ok := install.LineIndent(v.Elements[1].BeforeExtra)
			if !ok {
				oi = ind
			}
			v.Elements[1].Value = install.ParseTrimmed(c.Marshal(o, oi, compact))
			return
		}
		it := install.ArrItems{A: v}
		multi := install.IsMultiline(it, false)
		ei := install.ItemIndent(it, ind, c.Unit)
		lead, trail, tail := c.AppendLayout(it, multi, ei, ind)
		v.Elements = append(v.Elements, hujson.Value{BeforeExtra: lead, Value: install.ParseTrimmed(c.Marshal(o, ind, compact)), AfterExtra: trail})
		v.AfterExtra = tail
	}
}
