package core

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// optionsInputs are options texts that reach every branch of the reader:
// broken JSON of each kind, JSON that is not an object, and values of
// every type for options of every type.
var optionsInputs = []string{
	``, `null`, ` null `, "\u00a0{}\u00a0", `{}`, ` { } `,
	// Broken JSON, one of each of encoding/json's messages.
	`{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1,}`, `{,}`, `{1:2}`,
	`[`, `[1`, `[1,]`, `[1 2]`, `]`, `}`, `x`, `{"a":x}`, `{"a":-}`, `{"a":-x}`, `{"a":1.}`, `{"a":1.e5}`,
	`{"a":1e}`, `{"a":1e+}`, `{"a":01}`, `[01]`, `01`, `-`, `1.`, `1e`, `1e-`,
	`{"a":tru}`, `{"a":trux}`, `{"a":fals}`, `{"a":nul}`, `{"a":nil}`, `tru`, `f`, `n`, `nulll`,
	`{"a":"\x}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `"\u`, `"\`, "{\"a\":\"\x01\"}", `{"a":"b`,
	`{} {}`, `{}x`, `{}]`, "{\u00a0}", "{\"a\":1}\x00", `{'a':1}`, `{"a":1}}`, `{"a":"` + "\xff" + `"`,
	`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	strings.Repeat("{\"a\":", 10001),
	// JSON of another kind.
	`[1]`, `[]`, `"x"`, `1`, `-0.5e3`, `true`, `false`,
	// Values of every type for every kind of option.
	`{"search":"preferred","fetch":"off","apiKeyEnv":"MY_KEY","language":"zh,en","localization":"1.2.3.4"}`,
	`{"search":1}`, `{"fetch":true}`, `{"apiKeyEnv":["A"]}`, `{"baseURL":{}}`, `{"baseURL":"https://x.example/"}`,
	`{"apiKey":"${DEEPSEEK_API_KEY}"}`, `{"apiKey":123}`, `{"apiKey":"sk-0123456789abcdef0123456789abcdef"}`,
	`{"maxResults":10}`, `{"maxResults":"10"}`, `{"maxResults":2.5}`, `{"maxResults":0}`, `{"maxResults":51}`, `{"maxResults":-1}`,
	`{"maxResults":1e1}`, `{"maxResults":10.0}`, `{"maxResults":-0}`, `{"maxResults":1e400}`, `{"maxResults":1e-400}`,
	`{"maxSummaryChars":1e10}`, `{"maxSummaryChars":1000000000}`, `{"maxSummaryChars":1000000001}`, `{"timeoutMs":5000}`, `{"fetchMaxChars":0}`,
	`{"minRerank":"1"}`, `{"minRerank":1.5}`, `{"minRerank":1e400}`, `{"minRerank":-1e-400}`, `{"minAuthority":[]}`, `{"minAuthority":4}`,
	`{"allowUnknownAuthority":"yes"}`, `{"allowUnknownAuthority":false}`, `{"allowUnknownAuthority":true}`, `{"allowUnknownAuthority":0}`,
	`{"includeDomains":3}`, `{"includeDomains":[]}`, `{"includeDomains":["a.example","b.example"]}`, `{"includeDomains":"a.example, b.example,,"}`,
	`{"includeDomains":""}`, `{"includeDomains":[null,"a"]}`, `{"allowedDomains":[1]}`, `{"allowedDomains":["a",["b"]]}`,
	`{"blockedDomains":{"a":1}}`, `{"blockedDomains":["\u00e9.example","\ud800x"]}`,
	`{"maxRetries":0}`, `{"maxRetries":6}`, `{"maxRetries":"2"}`, `{"cacheTTL":0}`, `{"cacheTTL":61}`, `{"cacheMaxMB":64}`, `{"cacheMaxMB":[64]}`,
	`{"searchBackend":"messages","messagesBaseURL":"https://x.example/v1","messagesModel":"m","anthropicVersion":"2023-06-01"}`,
	`{"messagesMaxTokens":128}`, `{"messagesMaxTokens":127}`, `{"messagesMaxTokens":"4096"}`, `{"messagesMaxUses":20}`, `{"messagesMaxUses":21.5}`,
	`{"messagesSummary":true}`, `{"messagesSummary":"true"}`, `{"searchBackend":false}`,
	// Names: unknown, near misses, escaped, repeated, invalid UTF-8.
	`{"maxresults":3,"zeta":1,"BaseUrl":"x","maxResults":4}`, `{"max\u0052esults":5}`, `{"maxResults":5,"maxResults":6}`,
	`{"maxResults":"x","maxResults":7}`, `{"maxResults":7,"maxResults":"x"}`, "{\"max\xffResults\":1}", `{"\ud800":1}`,
	`{"":1}`, `{"maxResults":null,"search":null}`, `{"maxResults" : 9 , "search" : "off" }`, "{\"search\":\"\xff\xfe\"}",
	`{"b":1,"a":2,"maxResults":"bad"}`, `{"zz":{"nested":[1,{"x":[]}]},"aa":[[[]]]}`,
	`{"search":"<b>&amp;</b>` + "\u2028" + `"}`, `{"language":"` + strings.Repeat("x", 100) + `"}`,
	`{"search":"sk-0123456789abcdef0123456789abcdef"}`, `{"maxResults":["sk-0123456789abcdef0123456789abcdef"]}`,
}

// requireSameOptions checks ParseOptions against the encoding/json
// reference on one input: the same options, warnings and error text, and
// an error of the same kind (an *OptionError, or one that wraps its
// reason).
func requireSameOptions(t *testing.T, in []byte) {
	t.Helper()
	o, w, err := ParseOptions(in)
	ro, rw, rerr := refParseOptions(in)
	if rerr != nil {
		require.Error(t, err, "input %q", in)
		require.Equal(t, rerr.Error(), err.Error(), "input %q", in)
		var oe *OptionError
		require.Equal(t, errors.As(rerr, &oe), errors.As(err, &oe), "input %q", in)
		require.Equal(t, errors.Unwrap(rerr) != nil, errors.Unwrap(err) != nil, "input %q", in)
		return
	}
	require.NoError(t, err, "input %q", in)
	require.Equal(t, ro, o, "input %q", in)
	require.Equal(t, rw, w, "input %q", in)
}

func TestParseOptionsMatchesEncodingJSON(t *testing.T) {
	for _, in := range optionsInputs {
		requireSameOptions(t, []byte(in))
	}
}

func TestParseOptionsSyntaxErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{`, "options: not a JSON object: unexpected end of JSON input"},
		{`{"a" 1}`, "options: not a JSON object: invalid character '1' after object key"},
		{`{"a":1 "b":2}`, "options: not a JSON object: invalid character '\"' after object key:value pair"},
		{`{"a":1,}`, "options: not a JSON object: invalid character '}' looking for beginning of object key string"},
		{`[1,]`, "options: not a JSON object: invalid character ']' looking for beginning of value"},
		{`[1 2]`, "options: not a JSON object: invalid character '2' after array element"},
		{`{}x`, "options: not a JSON object: invalid character 'x' after top-level value"},
		{`-`, "options: not a JSON object: invalid character ' ' in numeric literal"},
		{`{"a":1.}`, "options: not a JSON object: invalid character '}' after decimal point in numeric literal"},
		{`{"a":1e}`, "options: not a JSON object: invalid character '}' in exponent of numeric literal"},
		{`{"a":trux}`, "options: not a JSON object: invalid character 'x' in literal true (expecting 'e')"},
		{`{"a":"\x"}`, "options: not a JSON object: invalid character 'x' in string escape code"},
		{`{"a":"\u12G4"}`, `options: not a JSON object: invalid character 'G' in \u hexadecimal character escape`},
		{"{\"a\":\"\x01\"}", `options: not a JSON object: invalid character '\x01' in string literal`},
		{"{\u00a0}", "options: not a JSON object: invalid character 'Â' looking for beginning of object key string"},
		{`{'a':1}`, `options: not a JSON object: invalid character '\'' looking for beginning of object key string`},
		{`{"a":` + strings.Repeat("[", 10000) + `}`, "options: not a JSON object: invalid character '[' exceeded max depth"},
		{`[1]`, "options: not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{`"x"`, "options: not a JSON object: json: cannot unmarshal string into Go value of type map[string]json.RawMessage"},
		{`12`, "options: not a JSON object: json: cannot unmarshal number into Go value of type map[string]json.RawMessage"},
		{`false`, "options: not a JSON object: json: cannot unmarshal bool into Go value of type map[string]json.RawMessage"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 20)], func(t *testing.T) {
			_, _, err := ParseOptions([]byte(tt.in))
			require.EqualError(t, err, tt.want)
			require.NotNil(t, errors.Unwrap(err))
		})
	}
}

func TestParseOptionsValues(t *testing.T) {
	n0, n2 := 0, 2
	tests := []struct {
		in   string
		want Options
	}{
		{`{"maxResults":5,"maxResults":6}`, Options{MaxResults: 6}},
		{`{"maxResults":"x","maxResults":7}`, Options{MaxResults: 7}},
		{`{"max\u0052esults":1e1}`, Options{MaxResults: 10}},
		{`{"includeDomains":[]}`, Options{IncludeDomains: []string{}}},
		{`{"includeDomains":[null,"a"]}`, Options{IncludeDomains: []string{"", "a"}}},
		{`{"includeDomains":"a, b,,"}`, Options{IncludeDomains: []string{"a", "b"}}},
		{"{\"search\":\"\xff\\ud800\"}", Options{Search: "\ufffd\ufffd"}},
		{`{"maxRetries":0,"cacheTTL":2}`, Options{MaxRetries: &n0, CacheTTL: &n2}},
		{`{"minRerank":-1e-400}`, Options{}},
		{`{"messagesSummary":true,"messagesMaxUses":2.0}`, Options{MessagesOptions: MessagesOptions{MessagesSummary: true, MessagesMaxUses: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, _, err := ParseOptions([]byte(tt.in))
			require.NoError(t, err)
			require.Equal(t, tt.want, o)
		})
	}
}

func TestApplyMessagesEnvNumbers(t *testing.T) {
	tests := []struct {
		value   string
		want    int
		wantErr string
	}{
		{"4096", 4096, ""},
		{"1e3", 1000, ""},
		{"2048.0", 2048, ""},
		{"0x10", 0, `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "0x10"`},
		{`"4096"`, 0, `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "\"4096\""`},
		{"null", 0, `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "null"`},
		{"1e400", 0, `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "1e400"`},
		{"4096 4096", 0, `environment variable DEEPSEEK_SEARCH_MAX_TOKENS: want a whole number from 128 to 65536, got "4096 4096"`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			o := Options{MessagesOptions: MessagesOptions{SearchBackend: BackendMessages}}
			err := ApplyMessagesEnv(&o, func(name string) string {
				if name == EnvSearchMaxTokens {
					return tt.value
				}
				return ""
			})
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, o.MessagesMaxTokens)
		})
	}
}

// FuzzParseOptionsReference holds ParseOptions to the encoding/json-based
// parser it replaced, on any input: the same options and warnings, or the
// same error text.
func FuzzParseOptionsReference(f *testing.F) {
	for _, in := range optionsInputs {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		requireSameOptions(t, in)
	})
}

// FuzzJSONReader holds the reader's pieces to encoding/json on any text:
// parseJSON's error is Unmarshal's, its parts are the members Unmarshal
// finds, and each typed reader accepts what Unmarshal into its type
// accepts, with the same value.
func FuzzJSONReader(f *testing.F) {
	for _, in := range optionsInputs {
		if len(in) < 1000 {
			f.Add([]byte(in))
		}
	}
	for _, in := range []string{`"a<b>"`, `["a","b"]`, `[null]`, `1e308`, `-1e309`, `"\ud83d\ude00"`, `true`, `[true]`, ` "x" `} {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var raw json.RawMessage
		rerr := json.Unmarshal(in, &raw)
		text, parts, err := parseJSON(in)
		if rerr != nil {
			require.EqualError(t, err, rerr.Error(), "input %q", in)
		} else {
			require.NoError(t, err, "input %q", in)
			require.Equal(t, string(raw), string(text))
			switch text[0] {
			case '{':
				var m map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(in, &m))
				got := map[string]json.RawMessage{}
				for _, p := range parts {
					var k string
					require.True(t, jsonString(p.key, &k))
					got[k] = p.value
				}
				require.Equal(t, m, got)
			case '[':
				var l []json.RawMessage
				require.NoError(t, json.Unmarshal(in, &l))
				require.Len(t, parts, len(l))
				for i, p := range parts {
					require.Nil(t, p.key)
					require.Equal(t, string(l[i]), string(p.value))
				}
			default:
				require.Empty(t, parts)
			}
		}

		var s, rs string
		require.Equal(t, json.Unmarshal(in, &rs) == nil, jsonString(in, &s), "string %q", in)
		require.Equal(t, rs, s)
		var b, rb bool
		require.Equal(t, json.Unmarshal(in, &rb) == nil, jsonBool(in, &b), "bool %q", in)
		require.Equal(t, rb, b)
		var x, rx float64
		require.Equal(t, json.Unmarshal(in, &rx) == nil, jsonFloat(in, &x), "number %q", in)
		require.Equal(t, rx, x)
		var l, rl []string
		ok := jsonStrings(in, &l)
		require.Equal(t, json.Unmarshal(in, &rl) == nil, ok, "list %q", in)
		if ok {
			require.Equal(t, rl, l)
		}
	})
}

// BenchmarkParseOptions compares ParseOptions with the encoding/json-based
// parser it replaced, on a typical options object.
func BenchmarkParseOptions(b *testing.B) {
	in := []byte(`{"search":"preferred","fetch":"optional","apiKey":"{env:DEEPSEEK_API_KEY}","maxResults":8,"includeDomains":["go.dev","pkg.go.dev"],"timeoutMs":20000,"allowUnknownAuthority":false}`)
	b.Run("ParseOptions", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = ParseOptions(in)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			_, _, _ = refParseOptions(in)
		}
	})
}
