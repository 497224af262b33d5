package jsonlite_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
	"github.com/stretchr/testify/require"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"plain", "hello", `"hello"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"html", "<a href=x>&</a>", `"\u003ca href=x\u003e\u0026\u003c/a\u003e"`},
		{"short escapes", "\n\r\t", `"\n\r\t"`},
		{"other controls", "\x00\x01\x08\x0c\x1f\x7f", `"\u0000\u0001\b\f\u001f` + "\x7f" + `"`},
		{"line and paragraph separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"multi-byte kept", "é漢🙂", `"é漢🙂"`},
		{"invalid UTF-8", "a\xffb\xc3", `"a\ufffdb\ufffd"`},
		{"surrogate half encoded in UTF-8", "\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jsonlite.AppendString([]byte("x"), tt.in)
			require.Equal(t, "x"+tt.want, string(got))
			std, err := json.Marshal(tt.in)
			require.NoError(t, err)
			require.Equal(t, string(std), tt.want)
			require.Equal(t, tt.want[1:len(tt.want)-1], string(jsonlite.AppendStringBody(nil, tt.in)))
		})
	}
}

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in      float64
		want    string
		wantErr string
	}{
		{0, "0", ""},
		{math.Copysign(0, -1), "-0", ""},
		{1, "1", ""},
		{-2.5, "-2.5", ""},
		{0.1, "0.1", ""},
		{1e-6, "0.000001", ""},
		{1e-7, "1e-7", ""},
		{1.5e-9, "1.5e-9", ""},
		{1e20, "100000000000000000000", ""},
		{1e21, "1e+21", ""},
		{math.MaxFloat64, "1.7976931348623157e+308", ""},
		{math.SmallestNonzeroFloat64, "5e-324", ""},
		{math.NaN(), "", "json: unsupported value: NaN"},
		{math.Inf(1), "", "json: unsupported value: +Inf"},
		{math.Inf(-1), "", "json: unsupported value: -Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.want+tt.wantErr, func(t *testing.T) {
			got, err := jsonlite.AppendFloat([]byte("["), tt.in)
			std, stdErr := json.Marshal(tt.in)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.EqualError(t, stdErr, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "["+tt.want, string(got))
			require.Equal(t, string(std), tt.want)
		})
	}
}

func TestAppendValues(t *testing.T) {
	type pair struct{ K, V string }
	elem := func(b []byte, p *pair) []byte {
		b = append(b, '{')
		b = jsonlite.AppendString(b, p.K)
		b = append(b, ':')
		b = jsonlite.AppendString(b, p.V)
		return append(b, '}')
	}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"true", jsonlite.AppendBool(nil, true), "true"},
		{"false", jsonlite.AppendBool([]byte(","), false), ",false"},
		{"nil strings", jsonlite.AppendStrings(nil, nil), "null"},
		{"empty strings", jsonlite.AppendStrings(nil, []string{}), "[]"},
		{"strings", jsonlite.AppendStrings(nil, []string{"a", "<", ""}), `["a","\u003c",""]`},
		{"nil array", jsonlite.AppendArray[pair](nil, nil, elem), "null"},
		{"empty array", jsonlite.AppendArray(nil, []pair{}, elem), "[]"},
		{"array", jsonlite.AppendArray(nil, []pair{{"a", "1"}, {"b", "&"}}, elem), `[{"a":"1"},{"b":"\u0026"}]`},
		{"nil raw", jsonlite.AppendRaw([]byte("x:"), nil), "x:null"},
		{"empty raw is not null", jsonlite.AppendRaw(nil, []byte{}), ""},
		{"raw", jsonlite.AppendRaw(nil, []byte(`{"a":[1,2]}`)), `{"a":[1,2]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, string(tt.got))
		})
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct {
		raw    string
		want   string
		wantOK bool
	}{
		{`"abc"`, "abc", true},
		{" \t\r\n\"abc\" \n", "abc", true},
		{`""`, "", true},
		{`"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t"`, "café \"q\" \\ / \b\f\n\r\t", true},
		{`"\ud83d\ude42"`, "🙂", true},
		{`"\ud800"`, "\ufffd", true},
		{`"\udc00\ud800x"`, "\ufffd\ufffdx", true},
		{"\"a\xffb\"", "a\ufffdb", true},
		{`null`, "", false},
		{`1`, "", false},
		{`"abc`, "", false},
		{`"abc" "d"`, "", false},
		{`"\x"`, "", false},
		{`"\u12"`, "", false},
		{"\"a\nb\"", "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, ok := jsonlite.Unquote([]byte(tt.raw))
			require.Equal(t, tt.wantOK, ok)
			if ok { // s means nothing when ok is false
				require.Equal(t, tt.want, got)
			}
			if tt.raw == "null" {
				return // json.Unmarshal accepts null into a string; Unquote does not
			}
			var std string
			err := json.Unmarshal([]byte(tt.raw), &std)
			require.Equal(t, tt.wantOK, err == nil, "json.Unmarshal: %v", err)
			require.Equal(t, tt.want, std)
		})
	}
}

func TestUnescapeString(t *testing.T) {
	tests := []struct{ raw, want string }{
		{``, ""},
		{`plain`, "plain"},
		{`\u0041\u00e9\u4e2d`, "Aé中"},
		{`\ud83d\ude42!`, "🙂!"},
		{`\ud83d`, "\ufffd"},
		{"\xff", "\ufffd"},
		{`a\\u0041`, `a\u0041`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			require.Equal(t, tt.want, jsonlite.UnescapeString([]byte(tt.raw)))
			var b strings.Builder
			b.WriteString(">")
			jsonlite.Unescape(&b, []byte(tt.raw))
			require.Equal(t, ">"+tt.want, b.String())
		})
	}
}

func TestEqualFold(t *testing.T) {
	tests := []struct {
		name, field string
		want        bool
	}{
		{"name", "Name", true},
		{"NAME", "name", true},
		{"nAmE", "Name", true},
		{"names", "Name", false},
		{"", "", true},
		{"nam", "Name", false},
		{"\u212a", "k", true}, // KELVIN SIGN folds to k, as strings.EqualFold
		{"\u017f", "S", true}, // LATIN SMALL LETTER LONG S folds to s
		{"é", "É", true},
		{"e", "é", false},
		{"a_b", "A_B", true},
		{"a-b", "a_b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.field, func(t *testing.T) {
			require.Equal(t, tt.want, jsonlite.EqualFold([]byte(tt.name), tt.field))
			require.Equal(t, strings.EqualFold(tt.name, tt.field), tt.want)
		})
	}
}

// rec is the struct the decoder tests fill: each field through another of
// Decoder's methods.
type rec struct {
	Name   string          `json:"name"`
	Count  int             `json:"count"`
	Big    int64           `json:"big"`
	Handle uint32          `json:"handle"`
	Tags   []string        `json:"tags"`
	Extra  json.RawMessage `json:"extra"`
}

func decodeRec(data []byte) (rec, error) {
	var r rec
	err := jsonlite.DecodeObject(data, func(d *jsonlite.Decoder, key string) error {
		switch {
		case jsonlite.EqualFold([]byte(key), "name"):
			return d.String(&r.Name)
		case jsonlite.EqualFold([]byte(key), "count"):
			return d.Int(&r.Count)
		case jsonlite.EqualFold([]byte(key), "big"):
			return d.Int64(&r.Big)
		case jsonlite.EqualFold([]byte(key), "handle"):
			return d.Uint32(&r.Handle)
		case jsonlite.EqualFold([]byte(key), "tags"):
			if d.Null() {
				return nil
			}
			r.Tags = []string{}
			return d.Array(func(d *jsonlite.Decoder, i int) error {
				var s string
				if err := d.String(&s); err != nil {
					return err
				}
				r.Tags = append(r.Tags, s)
				return nil
			})
		case jsonlite.EqualFold([]byte(key), "extra"):
			raw, err := d.Raw()
			r.Extra = append(json.RawMessage(nil), raw...)
			return err
		}
		return d.Skip()
	})
	return r, err
}

func TestDecodeObject(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    rec
		wantErr string
	}{
		{name: "every field", in: `{"name":"a\u00e9","count":-3,"big":9007199254740993,"handle":4294967295,"tags":["x","y"],"extra":{"k":[1,2.5,null,true]}}`,
			want: rec{Name: "aé", Count: -3, Big: 9007199254740993, Handle: math.MaxUint32, Tags: []string{"x", "y"}, Extra: json.RawMessage(`{"k":[1,2.5,null,true]}`)}},
		{name: "white space and case-insensitive names", in: " {\n \"NAME\" : \"b\" ,\t\"Count\":1 } \n", want: rec{Name: "b", Count: 1}},
		{name: "null object sets nothing", in: `null`},
		{name: "nulls leave fields unset", in: `{"name":null,"count":null,"big":null,"handle":null,"tags":null}`},
		{name: "unknown members skipped", in: `{"other":{"deep":[{"x":"\""}]},"name":"n"}`, want: rec{Name: "n"}},
		{name: "last duplicate wins", in: `{"name":"a","name":"b"}`, want: rec{Name: "b"}},
		{name: "empty array", in: `{"tags":[]}`, want: rec{Tags: []string{}}},
		{name: "not an object", in: `[1]`, wantErr: "the value is not an object"},
		{name: "trailing data", in: `{} {}`, wantErr: "invalid character '{' at offset 3 after the top-level value"},
		{name: "truncated", in: `{"name":"a"`, wantErr: "unexpected end of JSON input"},
		{name: "empty input", in: ``, wantErr: "unexpected end of JSON input"},
		{name: "string for int", in: `{"count":"1"}`, wantErr: "a number was expected"},
		{name: "number for string", in: `{"name":1}`, wantErr: "a string was expected"},
		{name: "fraction for int", in: `{"count":1.5}`, wantErr: "the number 1.5 is not an integer of this size"},
		{name: "exponent for int", in: `{"count":1e2}`, wantErr: "the number 1e2 is not an integer of this size"},
		{name: "int64 overflow", in: `{"big":9223372036854775808}`, wantErr: "the number 9223372036854775808 is not an integer of this size"},
		{name: "uint32 overflow", in: `{"handle":4294967296}`, wantErr: "the number 4294967296 is not an integer of this size"},
		{name: "negative uint32", in: `{"handle":-1}`, wantErr: "the number -1 is not an integer of this size"},
		{name: "leading zero", in: `{"count":01}`},
		{name: "trailing comma", in: `{"name":"a",}`},
		{name: "single quotes", in: `{'name':'a'}`},
		{name: "bad literal in skipped value", in: `{"other":tru}`},
		{name: "control character in string", in: "{\"name\":\"a\x01\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeRec([]byte(tt.in))
			var std rec
			stdErr := json.Unmarshal([]byte(tt.in), &std)
			if stdErr != nil {
				require.Error(t, err, "json.Unmarshal refuses it: %v", stdErr)
				if tt.wantErr != "" {
					require.EqualError(t, err, tt.wantErr)
				}
				return
			}
			require.Empty(t, tt.wantErr)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, std, got, "the same values as json.Unmarshal")
		})
	}
}

func TestDecoderDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	_, err := decodeRec([]byte(`{"other":` + deep + `}`))
	require.EqualError(t, err, "exceeded max depth")
	ok := strings.Repeat("[", 9990) + strings.Repeat("]", 9990)
	_, err = decodeRec([]byte(`{"other":` + ok + `}`))
	require.NoError(t, err)
}

func TestDecoderMembersAndStringBytes(t *testing.T) {
	d := jsonlite.NewDecoder([]byte(`{"plain":"abc","esc":"a\u00e9","none":null,"n":"x"}`))
	var got []string
	err := d.Members(func(name []byte) error {
		v, ok, err := d.StringBytes()
		if err != nil {
			return err
		}
		got = append(got, string(name)+"="+string(v)+map[bool]string{true: "", false: " (null)"}[ok])
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"plain=abc", "esc=aé", "none= (null)", "n=x"}, got)

	d = jsonlite.NewDecoder([]byte(`{"a":1} x`))
	require.EqualError(t, d.Members(func([]byte) error { return d.Skip() }), "invalid character 'x' at offset 8 after the top-level value")
}

func TestRawRoundTrip(t *testing.T) {
	type holder struct {
		A jsonlite.Raw `json:"a"`
		B jsonlite.Raw `json:"b,omitempty"`
	}
	tests := []struct {
		name string
		in   holder
		want string
	}{
		{"nil is null", holder{}, `{"a":null}`},
		{"object kept", holder{A: jsonlite.Raw(`{"x":1}`), B: jsonlite.Raw(`[true]`)}, `{"a":{"x":1},"b":[true]}`},
		{"compacted by encoding/json", holder{A: jsonlite.Raw("{ \"x\" : 1 }")}, `{"a":{"x":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(b))
		})
	}

	src := []byte(`{"a":{"x":[1,2]}}`)
	var h holder
	require.NoError(t, json.Unmarshal(src, &h))
	require.Equal(t, `{"x":[1,2]}`, string(h.A))
	src[6] = 'Y'
	require.Equal(t, `{"x":[1,2]}`, string(h.A), "Unmarshal keeps a copy")

	var r jsonlite.Raw
	require.NoError(t, r.UnmarshalJSON([]byte("null")))
	require.Equal(t, jsonlite.Raw("null"), r)
	got, err := jsonlite.Raw(nil).MarshalJSON()
	require.NoError(t, err)
	require.Equal(t, "null", string(got))
}
