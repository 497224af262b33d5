package abi_test

import (
	"fmt"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
)

// The module answers start and resume with a step; a Go host decodes it,
// performs its request, and passes the reply back.
func ExampleStep_AppendJSON() {
	req := core.Request{Method: "GET", URL: "https://api.example/search?q=go", Attempt: 1, TimeoutMs: 30000, MaxBytes: 1 << 20,
		Header: []core.HeaderField{{Name: "Accept", Value: "application/json"}}}
	var wire abi.Request
	wire.Set(&req)
	step := abi.Step{V: abi.Version, Handle: 1, Step: abi.StepHTTP, Request: &wire}
	data := step.AppendJSON(nil)
	fmt.Println(string(data))

	back, err := abi.DecodeStep(data)
	if err != nil {
		panic(err)
	}
	got := back.Request.Core()
	fmt.Println(back.Step, back.Handle, got.Method, got.URL, got.Header[0].Name)
	// Output:
	// {"v":1,"handle":1,"step":"http","request":{"delayMs":0,"method":"GET","url":"https://api.example/search?q=go","headers":[["Accept","application/json"]],"body":"","timeoutMs":30000,"maxBytes":1048576,"redirect":"manual","attempt":1}}
	// http 1 GET https://api.example/search?q=go Accept
}

// The start envelope carries the kind's input as raw JSON, decoded in a
// second step into the kind's input type.
func ExampleDecodeStart() {
	s, err := abi.DecodeStart([]byte(`{"v":1,"kind":"fetch","options":{"fetch":"forced"},"input":{"url":"https://go.dev/","offset":2000}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.V, s.Kind, string(s.Options))
	var in abi.FetchInput
	if err := abi.DecodeInput(s.Input, &in); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", in)

	_, err = abi.DecodeStart([]byte(`{"v":"1"}`))
	fmt.Println(err)
	// Output:
	// 1 fetch {"fetch":"forced"}
	// {URL:https://go.dev/ Format: Offset:2000}
	// a number was expected
}

// The resume export's metadata, decoded straight into the core's reply.
func ExampleDecodeCoreReply() {
	v, r, err := abi.DecodeCoreReply([]byte(`{"v":1,"kind":"response","status":429,"headers":{"retry-after":"2"}}`), []byte(`{"error":"slow"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(v, r.Kind, r.Status, r.Get("Retry-After"), string(r.Body))
	// Output:
	// 1 response 429 2 {"error":"slow"}
}
