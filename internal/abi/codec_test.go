package abi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

var startSeeds = []string{
	`{"v":1,"kind":"search","options":{"search":"forced"},"apiKey":"sk-1","input":{"query":"q"}}`,
	`{"V":1,"KIND":"fetch","Input":{"url":"https://e.x/"},"options":null,"input":null}`,
	`{"v":1,"kind":"a","kind":"b","unknown":[1,{"x":[true,false,null]},"\u00e9"]}`,
	` {"v" : -0 , "apiKey" : "\ud83d\ude00\ud800x\u0041\n\"\\\/"} `,
	`{"v":1.0}`, `{"v":1e2}`, `{"v":"1"}`, `{"v":99999999999999999999}`, `{"kind":1}`,
	`null`, `[]`, `"x"`, `{}`, `{`, `{"v":1,}`, `{"v":1}x`, "{\"kind\":\"a\xffb\"}", `{"kind":"\ud800\u0041"}`,
	`{"ſ":1,"K":2,"ᴋind":"x"}`, `{"input":{"a":[1,2,{"b":"c"}]} }`, `{"v":01}`, `{"v":-}`, `{"v":1.}`, `{"v":1e}`,
	"{\"kind\":\"tab\there\"}", `{"kind":"\x"}`, `{"kind":"\u12"}`, `{"headers":{"a":"b","A":null,"c":"d"},"headers":{"e":"f"}}`,
	`{"headers":null}`, `{"headers":{"a":1}}`, `{"status":200,"message":"m","kind":"response"}`,
}

// refStart and refToolInput are Start and ToolInput as encoding/json sees
// them without their methods (which use the decoders under test).
type refStart struct {
	V       int             `json:"v"`
	Kind    string          `json:"kind"`
	Options json.RawMessage `json:"options,omitempty"`
	APIKey  string          `json:"apiKey,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
}

// refStep is Step as encoding/json sees it without its methods.
type refStep struct {
	V        int             `json:"v"`
	Handle   uint32          `json:"handle,omitempty"`
	Step     string          `json:"step"`
	Request  *Request        `json:"request,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *Error          `json:"error,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Steps    []refStep       `json:"steps,omitempty"`
}

func (r refStep) step() Step {
	s := Step{V: r.V, Handle: r.Handle, Step: r.Step, Request: r.Request, Result: r.Result, Error: r.Error, Warnings: r.Warnings}
	if r.Steps != nil {
		s.Steps = make([]Step, len(r.Steps))
		for i, p := range r.Steps {
			s.Steps[i] = p.step()
		}
	}
	return s
}

type refToolInput struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

func FuzzDecodeStart(f *testing.F) {
	for _, s := range startSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ref refStart
		wantErr := json.Unmarshal(data, &ref)
		want := Start{V: ref.V, Kind: ref.Kind, Options: ref.Options, APIKey: ref.APIKey, Input: ref.Input}
		got, err := DecodeStart(data)
		require.Equal(t, wantErr == nil, err == nil, "%q: encoding/json %v, DecodeStart %v", data, wantErr, err)
		if err == nil {
			require.Equal(t, want, got, "%q", data)
		}
	})
}

func FuzzDecodeReply(f *testing.F) {
	for _, s := range startSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// DecodeCoreReply gives what encoding/json and Core give, the
		// headers aside in their order.
		var want Reply
		wantErr := json.Unmarshal(data, &want)
		body := []byte("body")
		v, rep, err := DecodeCoreReply(data, body)
		require.Equal(t, wantErr == nil, err == nil, "%q: encoding/json %v, DecodeCoreReply %v", data, wantErr, err)
		if err == nil {
			ref := want.Core(body)
			byName := func(a, b core.HeaderField) int { return strings.Compare(a.Name, b.Name) }
			slices.SortFunc(ref.Header, byName)
			slices.SortFunc(rep.Header, byName)
			require.Equal(t, want.V, v, "%q", data)
			require.Equal(t, ref, rep, "%q", data)
		}
	})
}

// DecodeCoreReply keeps the headers in the order their names first
// appear, each with its last value, and shares one string among them.
func TestDecodeCoreReply(t *testing.T) {
	v, r, err := DecodeCoreReply([]byte(`{"v":1,"kind":"response","status":429,"headers":{"retry-after":"2","x-a":"1","Retry-After":null,"x-a":"\u00e9"}}`), []byte("b"))
	require.NoError(t, err)
	require.Equal(t, 1, v)
	require.Equal(t, core.Reply{Kind: core.ReplyResponse, Status: 429, Body: []byte("b"),
		Header: []core.HeaderField{{Name: "retry-after", Value: "2"}, {Name: "x-a", Value: "é"}, {Name: "Retry-After", Value: ""}}}, r)
	// One string holds them all, one after the other.
	joined := unsafe.String(unsafe.StringData(r.Header[0].Name), len("retry-after2x-aéRetry-After"))
	require.Equal(t, "retry-after2x-aéRetry-After", joined)
	require.Equal(t, unsafe.StringData(joined[len(joined)-len("Retry-After"):]), unsafe.StringData(r.Header[2].Name))
	_, r, err = DecodeCoreReply([]byte(`{"kind":"network","message":"refused","headers":{"a":"b"},"headers":null}`), nil)
	require.NoError(t, err)
	require.Equal(t, core.Reply{Kind: core.ReplyNetwork, Message: "refused"}, r)

	// A hundred headers under forty names: each name keeps its last value.
	var meta strings.Builder
	meta.WriteString(`{"headers":{`)
	for i := range 100 {
		fmt.Fprintf(&meta, `"h%d":"%d",`, i%40, i)
	}
	meta.WriteString(`"h0":"last"}}`)
	_, r, err = DecodeCoreReply([]byte(meta.String()), nil)
	require.NoError(t, err)
	require.Len(t, r.Header, 40)
	for i, h := range r.Header {
		want := strconv.Itoa(80 + i)
		if i >= 20 {
			want = strconv.Itoa(40 + i)
		}
		if i == 0 {
			want = "last"
		}
		require.Equal(t, core.HeaderField{Name: "h" + strconv.Itoa(i), Value: want}, h)
	}
}

func FuzzDecodeInput(f *testing.F) {
	for _, s := range startSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"query":"q","oriQuestion":"o"}`, `{"url":"u","format":"markdown"}`, `{"url":"u","offset":32000}`, `{"url":"u","offset":1.5}`, `{"host":"opencode2"}`, `{"tool":"deepseek_fetch","args":{"url":"x"}}`, `{"args":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(want, got any) {
			wantErr := json.Unmarshal(data, want)
			err := DecodeInput(data, got)
			require.Equal(t, wantErr == nil, err == nil, "%q into %T: encoding/json %v, DecodeInput %v", data, got, wantErr, err)
			if err == nil {
				require.Equal(t, want, got, "%q", data)
			}
		}
		check(&SearchInput{}, &SearchInput{})
		check(&FetchInput{}, &FetchInput{})
		check(&PlanInput{}, &PlanInput{})
		check(&WebsearchInput{}, &WebsearchInput{})
		var ref refToolInput
		wantErr := json.Unmarshal(data, &ref)
		var got ToolInput
		err := DecodeInput(data, &got)
		require.Equal(t, wantErr == nil, err == nil, "%q into *ToolInput: encoding/json %v, DecodeInput %v", data, wantErr, err)
		if err == nil {
			require.Equal(t, ToolInput{Tool: ref.Tool, Args: ref.Args}, got, "%q", data)
		}
	})
}

func FuzzAppendStep(f *testing.F) {
	f.Add(uint32(3), "http", "https://api.deepseek.com/v1/tools/search", "Authorization", "Bearer <&>", `{"q":"\u2028"}`, "api", "DeepSeek: HTTP 402 \x01\b\f\t\n\r\"\\ \xff é", 402, true)
	f.Add(uint32(0), "done", "", "", "", "", "", "", 0, false)
	f.Fuzz(func(t *testing.T, handle uint32, step, url, hname, hvalue, body, code, msg string, status int, withRequest bool) {
		s := Step{V: Version, Handle: handle, Step: step}
		if withRequest {
			s.Request = &Request{DelayMs: int64(status), Method: "POST", URL: url, Headers: [][2]string{{hname, hvalue}, {"x", url}}, Body: body, TimeoutMs: 30000, MaxBytes: 5 << 20, Redirect: "manual", Attempt: 1}
			if status%2 == 1 {
				s.Request.Headers = nil
			}
		}
		if code != "" || msg != "" {
			s.Error = &Error{Code: code, Message: msg, Status: status}
		}
		if len(msg) > 3 {
			s.Warnings = []string{msg, code}
		}
		if status%3 == 0 {
			res, _ := json.Marshal(map[string]any{"text": msg, "n": status, "list": []string{url, body}})
			s.Result = res
		}
		want, err := json.Marshal(refStep{V: s.V, Handle: s.Handle, Step: s.Step, Request: s.Request, Result: s.Result, Error: s.Error, Warnings: s.Warnings})
		require.NoError(t, err)
		require.Equal(t, string(want), string(s.AppendJSON(nil)))
		got, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		var back Step
		require.NoError(t, json.Unmarshal(got, &back))
		var ref refStep
		require.NoError(t, json.Unmarshal(got, &ref))
		require.Equal(t, ref.step(), back)
	})
}

var stepSeeds = []string{
	`{"v":1,"handle":3,"step":"http","request":{"delayMs":0,"method":"POST","url":"https://api.deepseek.com/v1/tools/search","headers":[["Authorization","Bearer k"],["X",""]],"body":"{}","timeoutMs":30000,"maxBytes":5242880,"redirect":"manual","attempt":1}}`,
	`{"v":1,"step":"done","result":{"query":"q","results":[]},"warnings":["w1","w2"]}`,
	`{"v":1,"step":"done","error":{"code":"abi","message":"m","status":402}}`,
	`{"v":1,"handle":-1}`, `{"handle":4294967296}`, `{"handle":4294967295}`, `{"request":null,"error":null,"result":null,"warnings":null}`,
	`{"warnings":["a","b"],"warnings":[null]}`, `{"warnings":["a","b"],"warnings":["x"],"warnings":["y",null]}`, `{"warnings":[]}`,
	`{"request":{"headers":[["a","b","c"],["d"],null,[]]}}`, `{"request":{"headers":[["a","b"]]},"request":{"headers":[[null],["c"]]}}`,
	`{"request":{"delayMs":1.5}}`, `{"request":{"delayMs":9223372036854775808}}`, `{"request":5}`, `{"error":"x"}`, `{"warnings":"x"}`,
	`{"warnings":[1]}`, `{"request":{"headers":[[1,2]]}}`, `{"request":{"headers":["ab"]}}`, `{"ReQuEsT":{"URL":"u"}}`, `{"result":[1, 2 ]}`,
	`{"v":1,"handle":2147483649,"step":"batch","steps":[{"v":1,"handle":7,"step":"http","request":{"url":"a"}},{"v":1,"handle":8,"step":"http"}]}`,
	`{"steps":[{"step":"a"},null],"steps":[{"handle":1},{"steps":[{}]},5]}`, `{"steps":[]}`, `{"steps":null}`, `{"steps":{}}`, `{"steps":[[]]}`,
}

func FuzzDecodeStep(f *testing.F) {
	for _, s := range append(stepSeeds, startSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ref refStep
		wantErr := json.Unmarshal(data, &ref)
		got, err := DecodeStep(data)
		require.Equal(t, wantErr == nil, err == nil, "%q: encoding/json %v, DecodeStep %v", data, wantErr, err)
		if err == nil {
			require.Equal(t, ref.step(), got, "%q", data)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{`{"v":1,"kind":`, "unexpected end of JSON input"},
		{"\x00\xff", `invalid character '\x00' at offset 0 looking for the beginning of a value`},
		{`{"v":1}x`, `invalid character 'x' at offset 7 after the top-level value`},
		{`{"v":"1"}`, "a number was expected"},
		{`{"v":1.5}`, "the number 1.5 is not an integer of this size"},
		{`{"kind":1}`, "a string was expected"},
		{`[]`, "the value is not an object"},
		{`{"kind":"\q"}`, `invalid character 'q' at offset 10 in an escape`},
	} {
		_, err := DecodeStart([]byte(tc.in))
		require.EqualError(t, err, tc.msg, tc.in)
		_, _, err = DecodeCoreReply([]byte(tc.in), nil)
		require.EqualError(t, err, tc.msg, tc.in)
	}
}

// Request.Set gives the wire form Core turns back into the same request,
// and a second Set keeps none of the first's headers.
func TestRequestSet(t *testing.T) {
	r := core.Request{DelayMs: 1500, Method: "POST", URL: "https://api.example/v1/tools/search", Body: []byte(`{"query":"q"}`),
		TimeoutMs: 30000, MaxBytes: 5 << 20, Attempt: 2,
		Header: []core.HeaderField{{Name: "Authorization", Value: "Bearer sk-test"}, {Name: "Accept", Value: "application/json"}}}
	var w Request
	w.Set(&r)
	require.Equal(t, "manual", w.Redirect)
	require.Equal(t, r, w.Core())

	short := core.Request{Method: "POST", URL: "https://api.example/v1/tools/fetch", Header: []core.HeaderField{{Name: "Accept", Value: "application/json"}}}
	w.Set(&short)
	require.Equal(t, [][2]string{{"Accept", "application/json"}}, w.Headers)
	require.Equal(t, "", w.Body)
}
