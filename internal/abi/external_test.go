package abi_test

import (
	"encoding/json"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/stretchr/testify/require"
)

// stdStep mirrors abi.Step with Result as a json.RawMessage: what
// encoding/json writes for a Step with no methods of its own.
type stdStep struct {
	V        int             `json:"v"`
	Handle   uint32          `json:"handle,omitempty"`
	Step     string          `json:"step"`
	Request  *abi.Request    `json:"request,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *abi.Error      `json:"error,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Steps    []stdStep       `json:"steps,omitempty"`
}

func toStd(s abi.Step) stdStep {
	out := stdStep{V: s.V, Handle: s.Handle, Step: s.Step, Request: s.Request, Result: s.Result, Error: s.Error, Warnings: s.Warnings}
	for _, p := range s.Steps {
		out.Steps = append(out.Steps, toStd(p))
	}
	return out
}

func TestStepJSON(t *testing.T) {
	get := &abi.Request{Method: "GET", URL: "https://api.example/search?q=a&b=<c>", Headers: [][2]string{{"Accept", "application/json"}, {"X-Empty", ""}},
		TimeoutMs: 30000, MaxBytes: 1 << 20, Redirect: "manual", Attempt: 1}
	tests := []struct {
		name string
		step abi.Step
		want string
	}{
		{
			name: "done with a result",
			step: abi.Step{V: abi.Version, Step: abi.StepDone, Result: []byte(`{"results":[]}`)},
			want: `{"v":1,"step":"done","result":{"results":[]}}`,
		},
		{
			name: "http with a request",
			step: abi.Step{V: abi.Version, Handle: 7, Step: abi.StepHTTP, Request: get},
			want: `{"v":1,"handle":7,"step":"http","request":{"delayMs":0,"method":"GET","url":"https://api.example/search?q=a\u0026b=\u003cc\u003e",` +
				`"headers":[["Accept","application/json"],["X-Empty",""]],"body":"","timeoutMs":30000,"maxBytes":1048576,"redirect":"manual","attempt":1}}`,
		},
		{
			name: "request without headers writes null",
			step: abi.Step{V: abi.Version, Step: abi.StepHTTP, Request: &abi.Request{Method: "POST", Body: "{\"q\":\"\u2028\"}", DelayMs: 250}},
			want: `{"v":1,"step":"http","request":{"delayMs":250,"method":"POST","url":"","headers":null,"body":"{\"q\":\"\u2028\"}","timeoutMs":0,"maxBytes":0,"redirect":"","attempt":0}}`,
		},
		{
			name: "error with warnings",
			step: abi.Step{V: abi.Version, Step: abi.StepDone, Error: &abi.Error{Code: "rate_limited", Message: "slow down", Status: 429}, Warnings: []string{"unknown option \"x\""}},
			want: `{"v":1,"step":"done","error":{"code":"rate_limited","message":"slow down","status":429},"warnings":["unknown option \"x\""]}`,
		},
		{
			name: "abi error without status",
			step: abi.Step{V: abi.Version, Step: abi.StepDone, Error: &abi.Error{Code: abi.CodeABI, Message: "bad"}},
			want: `{"v":1,"step":"done","error":{"code":"abi","message":"bad"}}`,
		},
		{
			name: "batch of parts",
			step: abi.Step{V: abi.Version, Handle: 1, Step: abi.StepBatch, Steps: []abi.Step{
				{V: abi.Version, Handle: 2, Step: abi.StepHTTP, Request: &abi.Request{Method: "GET", URL: "u", Redirect: "manual", Attempt: 1}},
				{V: abi.Version, Handle: 3, Step: abi.StepPending},
			}},
			want: `{"v":1,"handle":1,"step":"batch","steps":[{"v":1,"handle":2,"step":"http","request":{"delayMs":0,"method":"GET","url":"u","headers":null,"body":"","timeoutMs":0,"maxBytes":0,"redirect":"manual","attempt":1}},{"v":1,"handle":3,"step":"pending"}]}`,
		},
		{
			name: "zero step",
			step: abi.Step{},
			want: `{"v":0,"step":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, string(tt.step.AppendJSON(nil)))
			require.Equal(t, "prefix"+tt.want, string(tt.step.AppendJSON([]byte("prefix"))))
			got, err := json.Marshal(tt.step)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
			std, err := json.Marshal(toStd(tt.step))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(std), "byte for byte what encoding/json writes")

			back, err := abi.DecodeStep([]byte(tt.want))
			require.NoError(t, err)
			require.Equal(t, tt.want, string(back.AppendJSON(nil)), "decode then encode gives the same bytes")
			var viaJSON abi.Step
			require.NoError(t, json.Unmarshal([]byte(tt.want), &viaJSON))
			require.Equal(t, back, viaJSON)
		})
	}
}

func TestDecodeStep(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    abi.Step
		wantErr string
	}{
		{name: "names match case-insensitively, unknown ones are skipped", in: `{"V":1,"STEP":"done","Result":[1, 2],"future":{"x":null}}`,
			want: abi.Step{V: 1, Step: "done", Result: []byte(`[1, 2]`)}},
		{name: "nulls leave fields unset", in: `{"v":1,"step":null,"request":null,"error":null,"warnings":null,"steps":null}`, want: abi.Step{V: 1}},
		{name: "empty lists stay empty, not nil", in: `{"warnings":[],"steps":[]}`, want: abi.Step{Warnings: []string{}, Steps: []abi.Step{}}},
		{name: "header pair shorter and longer than two", in: `{"request":{"headers":[["a"],["b","c","d"]]}}`,
			want: abi.Step{Request: &abi.Request{Headers: [][2]string{{"a", ""}, {"b", "c"}}}}},
		{name: "handle is a uint32", in: `{"handle":4294967295}`, want: abi.Step{Handle: 4294967295}},
		{name: "handle over uint32", in: `{"handle":4294967296}`, wantErr: "the number 4294967296 is not an integer of this size"},
		{name: "negative handle", in: `{"handle":-1}`, wantErr: "the number -1 is not an integer of this size"},
		{name: "step not a string", in: `{"step":1}`, wantErr: "a string was expected"},
		{name: "not an object", in: `"done"`, wantErr: "the value is not an object"},
		{name: "trailing data", in: `{"v":1}x`, wantErr: "invalid character 'x' at offset 7 after the top-level value"},
		{name: "truncated", in: `{"v":1,"result":{`, wantErr: "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := abi.DecodeStep([]byte(tt.in))
			var std stdStep
			stdErr := json.Unmarshal([]byte(tt.in), &std)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.Error(t, stdErr, "json.Unmarshal refuses it too")
				return
			}
			require.NoError(t, err)
			require.NoError(t, stdErr)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeStart(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    abi.Start
		wantErr string
	}{
		{name: "search", in: `{"v":1,"kind":"search","options":{"search":"forced"},"apiKey":"sk-1","input":{"query":"go"}}`,
			want: abi.Start{V: 1, Kind: abi.KindSearch, Options: []byte(`{"search":"forced"}`), APIKey: "sk-1", Input: []byte(`{"query":"go"}`)}},
		{name: "unknown kind kept for the module to refuse", in: `{"v":2,"kind":"search2"}`, want: abi.Start{V: 2, Kind: "search2"}},
		{name: "case-insensitive names and escapes", in: `{"V":1,"Kind":"opencode.\u0074ool","APIKEY":"k"}`, want: abi.Start{V: 1, Kind: abi.KindTool, APIKey: "k"}},
		{name: "raw values kept as written", in: `{"options": [ 1 , 2 ] ,"input":null}`, want: abi.Start{Options: []byte(`[ 1 , 2 ]`), Input: []byte(`null`)}},
		{name: "null", in: `null`},
		{name: "v not an integer", in: `{"v":1.0}`, wantErr: "the number 1.0 is not an integer of this size"},
		{name: "kind not a string", in: `{"kind":["search"]}`, wantErr: "a string was expected"},
		{name: "array", in: `[]`, wantErr: "the value is not an object"},
		{name: "empty", in: ``, wantErr: "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := abi.DecodeStart([]byte(tt.in))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestStartJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		start abi.Start
		want  string
	}{
		{"minimal", abi.Start{V: 1, Kind: abi.KindPlan}, `{"v":1,"kind":"opencode.plan"}`},
		{"every field", abi.Start{V: 1, Kind: abi.KindFetch, Options: []byte(`{"fetch":"forced"}`), APIKey: "k<1>", Input: []byte(`{"url":"https://a.example/"}`)},
			`{"v":1,"kind":"fetch","options":{"fetch":"forced"},"apiKey":"k\u003c1\u003e","input":{"url":"https://a.example/"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.start)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(b))
			var back abi.Start
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, tt.start, back)
		})
	}

	// UnmarshalJSON keeps copies: the caller may reuse its buffer.
	buf := []byte(`{"v":1,"kind":"search","input":{"query":"a"}}`)
	var s abi.Start
	require.NoError(t, s.UnmarshalJSON(buf))
	copy(buf, make([]byte, len(buf)))
	require.Equal(t, `{"query":"a"}`, string(s.Input))
}

func TestDecodeInput(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		into    any
		want    any
		wantErr string
	}{
		{"search", `{"query":"go wasm","oriQuestion":"how?","extra":1}`, &abi.SearchInput{}, &abi.SearchInput{Query: "go wasm", OriQuestion: "how?"}, ""},
		{"fetch", `{"URL":"https://a.example/","format":"markdown","offset":120}`, &abi.FetchInput{}, &abi.FetchInput{URL: "https://a.example/", Format: "markdown", Offset: 120}, ""},
		{"plan", `{"host":"opencode2"}`, &abi.PlanInput{}, &abi.PlanInput{Host: "opencode2"}, ""},
		{"websearch", `{"query":"q","other":[]}`, &abi.WebsearchInput{}, &abi.WebsearchInput{Query: "q"}, ""},
		{"tool", `{"tool":"deepseek_fetch","args":{"url":"u"}}`, &abi.ToolInput{}, &abi.ToolInput{Tool: "deepseek_fetch", Args: []byte(`{"url":"u"}`)}, ""},
		{"fetch offset not an integer", `{"offset":"12"}`, &abi.FetchInput{}, nil, "a number was expected"},
		{"search query not a string", `{"query":{}}`, &abi.SearchInput{}, nil, "a string was expected"},
		{"input not an object", `"go"`, &abi.SearchInput{}, nil, "the value is not an object"},
		{"not an input type", `{"query":"q"}`, &struct{ Query string }{}, nil, "abi: DecodeInput takes a pointer to one of this package's input types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := abi.DecodeInput([]byte(tt.in), tt.into)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, tt.into)
		})
	}
}

func TestToolInputJSON(t *testing.T) {
	in := abi.ToolInput{Tool: "deepseek_search", Args: []byte(`{"queries":["a"]}`)}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	require.Equal(t, `{"tool":"deepseek_search","args":{"queries":["a"]}}`, string(b))
	var back abi.ToolInput
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, in, back)

	b, err = json.Marshal(abi.ToolInput{Tool: "x"})
	require.NoError(t, err)
	require.Equal(t, `{"tool":"x","args":null}`, string(b))
}

func TestRequestCoreRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		req  core.Request
	}{
		{"get", core.Request{Method: "GET", URL: "https://a.example/", Attempt: 1, TimeoutMs: 1000, MaxBytes: 10}},
		{"post with headers in order", core.Request{DelayMs: 500, Method: "POST", URL: "https://a.example/v1", Body: []byte(`{"q":"x"}`), Attempt: 2,
			Header: []core.HeaderField{{Name: "Content-Type", Value: "application/json"}, {Name: "Authorization", Value: "Bearer k"}, {Name: "X-A", Value: "1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w abi.Request
			w.Set(&tt.req)
			require.Equal(t, "manual", w.Redirect)
			require.Equal(t, string(tt.req.Body), w.Body)
			require.Len(t, w.Headers, len(tt.req.Header))
			got := w.Core()
			if tt.req.Body == nil {
				tt.req.Body = []byte{}
			}
			require.Equal(t, tt.req, got)

			// Through the wire: encoded in a step and decoded again.
			step := abi.Step{V: abi.Version, Step: abi.StepHTTP, Request: &w}
			back, err := abi.DecodeStep(step.AppendJSON(nil))
			require.NoError(t, err)
			require.Equal(t, tt.req, back.Request.Core())
		})
	}

	// Set reuses the header list and drops what the new request lacks.
	var w abi.Request
	w.Set(&core.Request{Header: []core.HeaderField{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}})
	w.Set(&core.Request{Header: []core.HeaderField{{Name: "C", Value: "3"}}})
	require.Equal(t, [][2]string{{"C", "3"}}, w.Headers)
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name     string
		meta     string
		wantV    int
		want     core.Reply
		wantErr  string
		fromCore bool // FromReply of want gives meta back (headers lower-cased)
	}{
		{name: "response with headers in order", meta: `{"v":1,"kind":"response","status":200,"headers":{"content-type":"application/json","retry-after":"3"}}`,
			wantV: 1, want: core.Reply{Kind: core.ReplyResponse, Status: 200, Body: []byte("body"),
				Header: []core.HeaderField{{Name: "content-type", Value: "application/json"}, {Name: "retry-after", Value: "3"}}}, fromCore: true},
		{name: "repeated header name takes the last value in its first place", meta: `{"kind":"response","headers":{"a":"1","b":"2","a":"3"}}`,
			want: core.Reply{Kind: core.ReplyResponse, Body: []byte("body"), Header: []core.HeaderField{{Name: "a", Value: "3"}, {Name: "b", Value: "2"}}}},
		{name: "null header value is empty", meta: `{"kind":"response","headers":{"x":null}}`,
			want: core.Reply{Kind: core.ReplyResponse, Body: []byte("body"), Header: []core.HeaderField{{Name: "x", Value: ""}}}},
		{name: "empty headers are nil", meta: `{"kind":"timeout","headers":{}}`, want: core.Reply{Kind: core.ReplyTimeout, Body: []byte("body")}},
		{name: "network failure", meta: `{"v":1,"kind":"network","message":"connection refused"}`, wantV: 1,
			want: core.Reply{Kind: core.ReplyNetwork, Message: "connection refused", Body: []byte("body")}, fromCore: true},
		{name: "unknown kind passes through", meta: `{"kind":"teapot"}`, want: core.Reply{Kind: "teapot", Body: []byte("body")}},
		{name: "header value not a string", meta: `{"headers":{"a":1}}`, wantErr: "a string was expected"},
		{name: "status not an integer", meta: `{"status":"200"}`, wantErr: "a number was expected"},
		{name: "not an object", meta: `[]`, wantErr: "the value is not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, got, err := abi.DecodeCoreReply([]byte(tt.meta), []byte("body"))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantV, v)
			require.Equal(t, tt.want, got)

			var viaJSON abi.Reply
			require.NoError(t, json.Unmarshal([]byte(tt.meta), &viaJSON))
			converted := viaJSON.Core([]byte("body"))
			require.ElementsMatch(t, tt.want.Header, converted.Header)
			converted.Header = tt.want.Header
			require.Equal(t, tt.want, converted, "Reply.Core agrees but for the headers' order")

			if tt.fromCore {
				meta, body := abi.FromReply(got)
				require.Equal(t, []byte("body"), body)
				b, err := json.Marshal(meta)
				require.NoError(t, err)
				require.JSONEq(t, tt.meta, string(b))
			}
		})
	}

	// FromReply lower-cases header names, so a Reply's map matches them
	// case-insensitively.
	meta, _ := abi.FromReply(core.Reply{Kind: core.ReplyResponse, Status: 301, Header: []core.HeaderField{{Name: "Location", Value: "/x"}}})
	require.Equal(t, abi.Reply{V: abi.Version, Kind: "response", Status: 301, Headers: map[string]string{"location": "/x"}}, meta)
}

// null leaves a Start or a Step as it was, as encoding/json's convention
// has it; DecodeInput refuses a type that is not an input even when the
// object has no member to decode.
func TestNullAndForeignInput(t *testing.T) {
	var holder struct {
		S abi.Step `json:"s"`
	}
	holder.S.Step = abi.StepDone
	require.NoError(t, json.Unmarshal([]byte(`{"s":null}`), &holder))
	require.Equal(t, abi.StepDone, holder.S.Step)

	var start abi.Start
	start.Kind = abi.KindSearch
	require.NoError(t, json.Unmarshal([]byte(`null`), &start))
	require.Equal(t, abi.KindSearch, start.Kind)

	for _, in := range []string{`{}`, `null`, `{"query":"q"}`} {
		require.EqualError(t, abi.DecodeInput([]byte(in), &struct{ A int }{}), "abi: DecodeInput takes a pointer to one of this package's input types", in)
	}
}
