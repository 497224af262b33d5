// Package otlptest is an OTLP/HTTP trace receiver for tests: it takes what
// an exporter sends to /v1/traces (protobuf, gzip or not) and keeps the
// spans.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collector "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span.
type Span struct {
	Name                     string
	TraceID, SpanID, Parent  string // hex; Parent "" for a root
	Kind                     string
	Attrs                    map[string]any
	StatusCode, StatusReason string
}

// Receiver is a running receiver.
type Receiver struct {
	// URL is the base URL: an exporter sends to URL + "/v1/traces".
	URL string

	mu    sync.Mutex
	spans []Span
}

// Start runs a receiver until the test ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collector.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Name: s.Name, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
					Parent: hex.EncodeToString(s.ParentSpanId), Kind: s.Kind.String(), Attrs: attrs(s.Attributes)}
				if s.Status != nil {
					sp.StatusCode, sp.StatusReason = s.Status.Code.String(), s.Status.Message
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collector.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func attrs(kvs []*common.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.GetValue().(type) {
		case *common.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *common.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *common.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		case *common.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		default:
			m[kv.Key] = kv.Value.String()
		}
	}
	return m
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}
