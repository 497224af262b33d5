package jsonlite

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

var hostile = []string{
	"", "plain", "<script>&amp;</script>", "quote \" backslash \\ slash /", "\x00\x01\x1f\x7f",
	"\b\f\n\r\t", "\u2028\u2029", "\xff\xfe", "a\xc3", "\xed\xa0\x80", "é中😀", "\ufffd", "\xf4\x90\x80\x80",
}

func FuzzAppendString(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	// Runs of plain bytes that AppendString takes eight at a time.
	f.Add("eight b.sixteen bytes, &then <more> \"quoted\" text\x7f\x1f. And é中 after\u2028 seven")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendString(nil, s)))
		require.Equal(t, "x"+string(want), string(AppendString([]byte("x"), s)))
	})
}

// allVerbatim is true exactly for eight bytes that verbatim says stand for
// themselves, wherever the odd byte is and whatever its neighbours.
func TestPlain8(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			for _, bg := range []string{"abcdefgh", "  ~~!!\x7f?", "%'=;:?@!"} {
				b := []byte(bg)
				b[pos] = byte(c)
				require.Equal(t, c < utf8.RuneSelf && verbatim[c], allVerbatim(ascii.Load8(b)), "byte %#x at %d in %q", c, pos, bg)
				b[(pos+5)%8] = 0x1f
				require.False(t, allVerbatim(ascii.Load8(b)), "control byte with %#x at %d", c, pos)
			}
		}
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 2.4, 0.1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13, -1e21,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 1.5e-300, math.NaN(), math.Inf(1), math.Inf(-1)} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		want, wantErr := json.Marshal(v)
		got, err := AppendFloat(nil, v)
		if wantErr != nil {
			require.EqualError(t, err, wantErr.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

func TestAppendStrings(t *testing.T) {
	for _, list := range [][]string{nil, {}, {"a"}, hostile} {
		want, err := json.Marshal(list)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendStrings(nil, list)))
	}
}

// AppendArray writes a slice as json.Marshal does, whatever its elements.
func TestAppendArray(t *testing.T) {
	for _, list := range [][][2]string{nil, {}, {{"a", "b"}}, {{"<", hostile[0]}, {"", "x"}}} {
		want, err := json.Marshal(list)
		require.NoError(t, err)
		got := AppendArray(nil, list, func(b []byte, p *[2]string) []byte { return AppendStrings(b, p[:]) })
		require.Equal(t, string(want), string(got))
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, ` "a\u00e9\ud83d\ude00" `, `"\ud800"`, `"a`, `1`, `null`, `"a" "b"`, `"\q"`, "\"\xff\"", "\"\t\"", `"a"x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := "unset"
		wantErr := json.Unmarshal(raw, &want)
		got, ok := Unquote(raw)
		if want == "unset" && wantErr == nil { // null: accepted by json.Unmarshal, not a string
			require.False(t, ok)
			return
		}
		require.Equal(t, wantErr == nil, ok, "%q: encoding/json %v", raw, wantErr)
		if ok {
			require.Equal(t, want, got)
		}
	})
}

func TestRaw(t *testing.T) {
	type pair struct {
		Raw  Raw             `json:"raw,omitempty"`
		Ref  json.RawMessage `json:"ref,omitempty"`
		RawN Raw             `json:"rawN"`
		RefN json.RawMessage `json:"refN"`
	}
	for _, text := range []string{`{"a": [1, 2]}`, `"<&>"`, `null`, ``} {
		p := pair{Raw: Raw(text), Ref: json.RawMessage(text)}
		if text == "" {
			p = pair{}
		}
		got, err := json.Marshal(p)
		require.NoError(t, err)
		var back pair
		require.NoError(t, json.Unmarshal(got, &back))
		require.Equal(t, string(back.Ref), string(back.Raw))
		require.Equal(t, string(back.RefN), string(back.RawN))
	}
	var r *Raw
	require.EqualError(t, r.UnmarshalJSON([]byte("1")), "jsonlite.Raw: UnmarshalJSON on nil pointer")
	require.Equal(t, "null", string(AppendRaw(nil, nil)))
	require.Equal(t, `{}`, string(AppendRaw(nil, []byte(`{}`))))
}

// EqualFold's ASCII fast path agrees with strings.EqualFold.
func FuzzEqualFold(f *testing.F) {
	for _, p := range [][2]string{{"kind", "KIND"}, {"kInd", "kind"}, {"ſ", "s"}, {"K", "k"}, {"@", "`"}, {"[", "{"}, {"apikey", "apiKey"}, {"v", ""}, {"\xff", "\xff"}, {"ǫ\xc7", "\xc7\xc7\xc7"}} {
		f.Add([]byte(p[0]), p[1])
	}
	f.Fuzz(func(t *testing.T, name []byte, field string) {
		require.Equal(t, strings.EqualFold(string(name), field), EqualFold(name, field), "%q %q", name, field)
	})
}

// Members and ObjectMembers (and DecodeObject, Object and Skip, which now
// run on them) accept what the callback decoder they replaced accepted,
// with the same errors, and hand over the same member names.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":{"c":[1,{"d":null}]},"\u00e9":"x"}`, ` null `, `[]`, `{"a":{}}x`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":{"b":1,"c"}}`, `{"a":{"b":"\q"}}`, "{\"\xff\":{\"a\":true}}", `{"a":[{"b":{}},{"c":[}]}`, `{"a":{"b":{"c":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want, got []string
		var field func(d *Decoder, key string) error
		field = func(d *Decoder, key string) error {
			want = append(want, key)
			if d.peek() == '{' {
				return refObject(d, field)
			}
			return refSkip(d)
		}
		wantErr := refDecodeObject(data, field)
		d := NewDecoder(data)
		var members func(name []byte) error
		members = func(name []byte) error {
			got = append(got, string(name))
			if d.peek() == '{' {
				return d.ObjectMembers(members)
			}
			return d.Skip()
		}
		err := d.Members(members)
		require.Equal(t, wantErr, err, "%q", data)
		require.Equal(t, want, got, "%q", data)
		got = nil
		var object func(d *Decoder, key string) error
		object = func(d *Decoder, key string) error {
			got = append(got, key)
			switch d.peek() {
			case '{':
				return d.Object(object)
			case '[': // Array, with Skip for each element, is Skip on an array
				return d.Array(func(d *Decoder, _ int) error { return d.Skip() })
			}
			return d.Skip()
		}
		err = DecodeObject(data, object)
		require.Equal(t, wantErr, err, "%q", data)
		require.Equal(t, want, got, "%q", data)
	})
}

// refDecodeObject, refObject and refSkip are DecodeObject, Object and Skip
// as they were before Members: a callback per member, each name a string.
func refDecodeObject(data []byte, field func(d *Decoder, key string) error) error {
	d := &Decoder{data: data}
	d.space()
	if !d.Null() {
		if d.peek() != '{' {
			if err := refSkip(d); err != nil {
				return err
			}
			return errors.New("the value is not an object")
		}
		if err := refObject(d, field); err != nil {
			return err
		}
	}
	d.space()
	if d.pos < len(d.data) {
		return d.syntax("after the top-level value")
	}
	return nil
}

func refObject(d *Decoder, field func(d *Decoder, key string) error) error {
	d.space()
	if d.peek() != '{' {
		return d.syntax("looking for an object")
	}
	d.pos++
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	defer func() { d.depth-- }()
	d.space()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		d.space()
		if d.peek() != '"' {
			return d.syntax("looking for a member name")
		}
		key, err := d.stringValue()
		if err != nil {
			return err
		}
		d.space()
		if d.peek() != ':' {
			return d.syntax("after a member name")
		}
		d.pos++
		d.space()
		if err := field(d, key); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("after a member value")
		}
	}
}

func refSkip(d *Decoder) error {
	d.space()
	switch d.peek() {
	case '{':
		return refObject(d, func(d *Decoder, _ string) error { return refSkip(d) })
	case '[':
		d.pos++
		if d.depth++; d.depth > maxDepth {
			return errors.New("exceeded max depth")
		}
		defer func() { d.depth-- }()
		d.space()
		if d.peek() == ']' {
			d.pos++
			return nil
		}
		for {
			if err := refSkip(d); err != nil {
				return err
			}
			d.space()
			switch d.peek() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				return nil
			default:
				return d.syntax("after an array element")
			}
		}
	}
	return d.Skip() // scalars: unchanged
}
