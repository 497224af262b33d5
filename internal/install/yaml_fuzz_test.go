package install

import (
	"errors"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzYAMLEdit: a user's config is untrusted input. For any document
// ParseYAML reads, Set puts the entry in (a mapping member and a sequence
// item) or refuses, leaving the document untouched; the result is read
// by yaml.v3 itself as the original data plus the entry; a second Set
// changes nothing; Remove with the record gives back the original bytes
// when the entry was not there before, and without the record the same
// data.
func FuzzYAMLEdit(f *testing.F) {
	for _, s := range []string{
		"", "\n", "# c\n", "---\n", "a: 1", "a: 1\r\nb: 2\r\n", "{}\n", "extensions:\n", "extensions: {}  # c\n",
		"extensions: ~", "extensions:\n  a:\n    x: [1, 2]\n  # c\nz: 1\n", "extensions:\n    a:\n        b: |\n            # x\n",
		"extensions:\n  dwr: {cmd: old}\n", "mcpServers:\n- name: a\n  command: b\n", "mcpServers: []\n",
		"mcpServers:\n  - name: dwr\n    command: old\n  - {name: z}\n", "a: &x {b: 1}\nc: *x\n", "k: \"é\u2028\"\nextensions:\n  a: 1\n",
		"a: |+\n  x\n\n", "  a: 1\n  b:\n    - c\n", "\"extensions\": []\n", "mcpServers:\n  -\n    name: dwr\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if _, _, err := ParseYAML([]byte(in)); err != nil {
			return
		}
		for _, c := range []struct {
			form, parent string
			value        []byte
		}{
			{YAMLMember, "extensions", yamlMemberValue},
			{YAMLItem, "mcpServers", yamlItemValue},
		} {
			d, before, _ := ParseYAML([]byte(in))
			had, err := d.Entry(c.form, c.parent, "dwr")
			var se *YAMLShapeError
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("Entry: %v\n%q", err, in)
			}
			e, err := d.Set(c.form, c.parent, "dwr", c.value, nil)
			if err != nil {
				if string(d.Bytes()) != in {
					t.Fatalf("a refused edit changed the document: %v\n%q\n%q", err, in, d.Bytes())
				}
				if !errors.As(err, &se) && !errors.Is(err, ErrYAMLCheck) {
					t.Fatalf("Set: %v\n%q", err, in)
				}
				continue
			}
			out := string(d.Bytes())
			var got any
			if err := yaml.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("yaml.v3 cannot read the result: %v\n%q\n%q", err, in, out)
			}
			want, _ := cloneYAMLPlain(before).(map[string]any)
			if want == nil {
				want = map[string]any{}
			}
			var entry any
			_ = yaml.Unmarshal(c.value, &entry)
			setPlain(want, c.form, c.parent, "dwr", entry)
			if gm, _ := yamlPlain(got).(map[string]any); !reflect.DeepEqual(want, gm) {
				t.Fatalf("more than the entry changed:\n%q\n%q\n%v\n%v", in, out, want, gm)
			}
			if _, err := d.Set(c.form, c.parent, "dwr", c.value, e); err != nil || string(d.Bytes()) != out {
				t.Fatalf("a second Set changed the document: %v\n%q\n%q", err, out, d.Bytes())
			}
			if ok, err := d.Remove(c.form, c.parent, "dwr", e); err != nil || !ok {
				t.Fatalf("Remove: %v %v\n%q", ok, err, out)
			}
			if had == 0 && string(d.Bytes()) != in {
				t.Fatalf("Remove did not give back the original:\n%q\n%q\n%q", in, out, d.Bytes())
			}
			d, _, _ = ParseYAML([]byte(out))
			if ok, err := d.Remove(c.form, c.parent, "dwr", nil); err != nil || !ok {
				t.Fatalf("Remove without the record: %v %v\n%q", ok, err, out)
			}
			_, after, err := ParseYAML(d.Bytes())
			if err != nil {
				t.Fatalf("Remove broke the document: %v\n%q", err, d.Bytes())
			}
			wantAfter, _ := cloneYAMLPlain(before).(map[string]any)
			if wantAfter == nil {
				wantAfter = map[string]any{}
			}
			removePlain(wantAfter, c.form, c.parent, "dwr")
			gotAfter, _ := after.(map[string]any)
			if gotAfter == nil {
				gotAfter = map[string]any{}
			}
			for _, m := range []map[string]any{wantAfter, gotAfter} {
				if EmptyValue(m[c.parent]) {
					delete(m, c.parent)
				}
			}
			if !reflect.DeepEqual(wantAfter, gotAfter) {
				t.Fatalf("Remove without the record changed more than the entry:\n%q\n%q\n%v\n%v", out, d.Bytes(), wantAfter, gotAfter)
			}
		}
	})
}
