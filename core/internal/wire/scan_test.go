package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// restMarker stands for the entries a list past the cut left to SkipRest.
const restMarker = "…rest"

// scanValue builds the value at the cursor the way encoding/json decodes it
// into an any (numbers as json.Number), with Object, List, Skip and
// StringValue; a list's entries past cut are passed over by SkipRest and
// stand as restMarker. long is set for an escaped name over the Scanner's
// limit, which it gives as nil.
// With skip, containers are instead passed over by Skip and their text
// decoded by encoding/json.
func scanValue(s *Scanner, cut int, long *bool, skip bool) (any, bool) {
	if c := s.Next(); skip && (c == '{' || c == '[') {
		text, ok := s.Skip()
		if !ok {
			return nil, false
		}
		d := json.NewDecoder(bytes.NewReader(text))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil || d.InputOffset() != int64(len(text)) {
			panic(fmt.Sprintf("Skip gave %q, which encoding/json refuses: %v", text, err))
		}
		return cutLists(v, cut), true
	}
	switch s.Next() {
	case '{':
		m := map[string]any{}
		ok := s.Object(func(name []byte) bool {
			if name == nil {
				*long = true
			}
			// A name without escapes comes raw; encoding/json replaces its
			// invalid UTF-8 as in strings (no field name matches either).
			var key strings.Builder
			for _, r := range string(name) {
				key.WriteRune(r)
			}
			v, ok := scanValue(s, cut, long, skip)
			m[key.String()] = v
			return ok
		})
		return m, ok
	case '[':
		l := []any{}
		ok := s.List(func() bool {
			if len(l) == cut {
				l = append(l, restMarker)
				return s.SkipRest()
			}
			v, ok := scanValue(s, cut, long, skip)
			l = append(l, v)
			return ok
		})
		return l, ok
	}
	text, ok := s.Skip()
	if !ok {
		return nil, false
	}
	switch text[0] {
	case '"':
		return StringValue(text), true
	case 't', 'f':
		return text[0] == 't', true
	case 'n':
		return nil, true
	}
	return json.Number(text), true
}

// cutLists stands for scanAny's cut in a value encoding/json decoded.
func cutLists(v any, cut int) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = cutLists(e, cut)
		}
	case []any:
		if len(v) > cut {
			v = append(v[:cut:cut], restMarker)
		}
		for i, e := range v[:min(len(v), cut)] {
			v[i] = cutLists(e, cut)
		}
		return v
	}
	return v
}

// checkScanner holds a Scanner walk of body equal to encoding/json's
// decoding of it: the same value when it is a JSON object, a NotObject
// error when it is JSON of another kind, and an error when it is not JSON.
func checkScanner(t *testing.T, body []byte, cut int, skip bool) {
	s := NewScanner(body)
	valid := json.Valid(body)
	if !s.Top() {
		require.NotNil(t, s.Err())
		require.Equal(t, valid, s.Err().Problem == NotObject, "%q", body)
		if valid {
			require.NotEqual(t, byte('{'), bytes.TrimLeft(body, " \t\r\n")[0])
		}
		return
	}
	var long bool
	var got any
	ok := s.Object(func(name []byte) bool {
		if name == nil {
			long = true
		}
		var key strings.Builder
		for _, r := range string(name) {
			key.WriteRune(r)
		}
		v, ok := scanValue(s, cut, &long, skip)
		if got == nil {
			got = map[string]any{}
		}
		got.(map[string]any)[key.String()] = v
		return ok
	})
	if got == nil {
		got = map[string]any{}
	}
	ok = ok && s.End()
	require.Equal(t, valid, ok, "%q", body)
	if !ok {
		require.NotNil(t, s.Err())
		return
	}
	if long {
		return
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var want any
	require.NoError(t, d.Decode(&want))
	require.Equal(t, cutLists(want, cut), got, "%q", body)
}

var scannerSeeds = []string{
	`{}`, ` {"a":1} `, `[]`, `"x"`, `1`, `nul`, `{"a":[1,2,3,4,5]}`, `{"a":[1,2,3,4,5],"a":{"b":null}}`,
	`{"a":[[1,2,3,4],{"x":[5,6,7,8]},"s",true,false,null,-1.5e3]}`, `{"a":[1,2,3,4,5,}`, `{"a":[1,2,3,4,5 6]}`,
	`{"a":[1,2,3,4,[5]]]}`, `{"\u0061\ud83d\ude00":"\u00e9\ud800\n\/","b\"":"\"\\"}`, "{\"a\":\"\xff\xc3\"}",
	`{"a":[1,2,3,4,{"b":[1,2,3,4,5,6]}]}`, `{"a":1}x`, `{"a" 1}`, `{"a":01}`, `{"a":[` + strings.Repeat(`[`, 10000) + `]}`,
	`{"` + strings.Repeat(`\u0041`, 200) + `":1}`,
	`{"a":[1,01]}`, `{"a":[0,1.5,2e3,-4,10,0]}`, `{"a":[1,{},[],true,false,null,"s",{}]}`, `{"a":[1,tru]}`, `{"a":[1,nul`,
	`{"a":[{},{}`, `{"a":[1,"x\\"]}`, `{"a":{"b":[],"c":{},"d":1,"e":"x","f":null,"g":fals}}`, `{"a":{"b":1,"c" :2,"d":"` + strings.Repeat("y", 40) + `"}}`,
	`{"a":[0,"\u00e9",{}, {}]}`, `{"a":{"b":0,`, `{"a":{"b":0,"`, `{"a":{"b":0,"c"`, `{"a":{"b":0,"c":`, `{"a":[0,`, `{"a":[0,"`, `{"a":[0,"x`,
	`{"a":{"b":0,"` + strings.Repeat("n", 33) + `":1,"` + strings.Repeat("n", 34) + `":"` + strings.Repeat("v", 33) + `","c":"` + strings.Repeat("v", 34) + `"}}`, `{"a":[0,{}]x}`, "{\"a\":[0,\"\x01\"]}",
	`{"a":` + strings.Repeat(`[`, 9998) + `0,{},[]` + strings.Repeat(`]`, 9998) + `}`,
	`{"a":` + strings.Repeat(`[`, 9999) + `0,{}` + strings.Repeat(`]`, 9999) + `}`,
	`{"a":` + strings.Repeat(`[`, 9998) + `{"b":1,"c":{}}` + strings.Repeat(`]`, 9998) + `}`,
}

func TestScanner(t *testing.T) {
	for _, s := range scannerSeeds {
		for _, cut := range []int{0, 2, 4, 1 << 30} {
			checkScanner(t, []byte(s), cut, false)
			checkScanner(t, []byte(s), cut, true)
		}
	}
	s := NewScanner([]byte(`{"a":[1,2,3],"b":{"c":"d"}}`))
	require.True(t, s.Top())
	var texts []string
	require.True(t, s.Object(func(name []byte) bool {
		start := s.Offset()
		_, ok := s.Skip()
		texts = append(texts, string(name)+"="+string(s.Since(start)))
		return ok
	}))
	require.True(t, s.End())
	require.Equal(t, []string{`a=[1,2,3]`, `b={"c":"d"}`}, texts)
	// Members calls back for the wanted names only, as encoding/json
	// matches them (case folding, the last repeat read last), and skips
	// the rest, small or not, validating them.
	body := `{"Type":"a","x":0,"y":{"type":"no"},"\u0074ype":"b","z":"` + strings.Repeat("q", 40) + `","\u212aey":[],"s\u017fs":1,"TYPE":"c","n":nul}`
	for _, cut := range []int{len(body) - 5, len(body)} {
		s = NewScanner([]byte(body[:cut]))
		require.True(t, s.Top())
		var got []string
		ok := s.Members([]string{"type", "key", "sss"}, func(k int) bool {
			text, ok := s.Skip()
			got = append(got, fmt.Sprint(k)+"="+string(text))
			return ok
		})
		require.False(t, ok, "nul is not JSON")
		require.Equal(t, Broken, s.Err().Problem)
		require.Equal(t, []string{`0="a"`, `0="b"`, `1=[]`, `2=1`, `0="c"`}, got)
	}
	s = NewScanner([]byte(`{"a":1,"type":{"x":[1,2]},"b":[{}],"c":"` + strings.Repeat("\u00e9", 20) + `"}`))
	require.True(t, s.Top())
	var got []string
	require.True(t, s.Members([]string{"type"}, func(int) bool {
		text, ok := s.Skip()
		got = append(got, string(text))
		return ok
	}))
	require.True(t, s.End())
	require.Equal(t, []string{`{"x":[1,2]}`}, got)
	require.True(t, MatchName([]byte("STOP_REASON"), "stop_reason"))
	require.True(t, MatchName([]byte("\u212aey"), "key"), "Kelvin sign folds to k, as in encoding/json")
	require.False(t, MatchName([]byte("\u0130nput"), "input"), "dotted capital I does not fold to i in encoding/json")
	require.Equal(t, "", StringValue([]byte(`12`)))
	require.Equal(t, "\ufffd", StringValue([]byte("\"\xff\"")))
}

// FuzzScanner checks the Scanner API against encoding/json on any body,
// with lists cut at 0, 2 or 4 entries or not at all, and nested
// containers read or skipped (the fuzzer picks).
func FuzzScanner(f *testing.F) {
	for _, s := range scannerSeeds {
		if len(s) < 1000 { // the deep ones stay in TestScanner: they slow every mutation
			f.Add([]byte(s), uint8(2))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, c uint8) {
		cut := [...]int{0, 2, 4, 1 << 30}[c%4]
		checkScanner(t, body, cut, c&4 != 0)
	})
}

// FuzzScannerMembers checks Members against encoding/json decoding into a
// struct: the same member texts (case folding, the last repeat winning) on
// any object, and a failure on anything else.
func FuzzScannerMembers(f *testing.F) {
	for _, s := range scannerSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Add([]byte(`{"Type":"a","x":0,"\u0074ype":"b","\u212aey":[],"s\u017fs":1,"TYPE":{"a":[1]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := NewScanner(body)
		var got [3][]byte
		ok := s.Top() && s.Members([]string{"type", "key", "sss"}, func(k int) bool {
			text, ok := s.Skip()
			got[k] = text
			return ok
		}) && s.End()
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if !json.Valid(body) || trimmed[0] != '{' {
			require.False(t, ok, "%q", body)
			return
		}
		require.True(t, ok, "%q", body)
		var want struct {
			Type json.RawMessage `json:"type"`
			Key  json.RawMessage `json:"key"`
			SSS  json.RawMessage `json:"sss"`
		}
		require.NoError(t, json.Unmarshal(body, &want))
		require.Equal(t, []string{string(want.Type), string(want.Key), string(want.SSS)}, []string{string(got[0]), string(got[1]), string(got[2])}, "%q", body)
	})
}
