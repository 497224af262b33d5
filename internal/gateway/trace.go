package gateway

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// OpenTelemetry traces of the gateway's calls: a span per tool call (the
// member, the tool, the outcome), a child for the shared cache (hit,
// coalesced or computed) and, under it, one per DeepSeek request (its
// status, its attempt, whether DeepSeek bills it). A W3C traceparent is
// taken from the MCP request's _meta, else from the HTTP request. No
// attribute holds a key or a token, and a query or URL only with
// Content: they are what members searched for and read.

// Tracing makes the spans; the zero of a *Tracing (nil) makes none.
type Tracing struct {
	tracer trace.Tracer
	// content adds the call's query or URL to its span.
	content bool
}

// NewTracing traces with tp's tracer; content (--trace-content) adds each
// call's query or URL to its span.
func NewTracing(tp trace.TracerProvider, content bool) *Tracing {
	return &Tracing{tracer: tp.Tracer("github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"), content: content}
}

// traceContext reads W3C trace context.
var traceContext = propagation.TraceContext{}

// Attribute keys of the spans.
const (
	attrMember  = attribute.Key("dwr.member")
	attrTool    = attribute.Key("dwr.tool")
	attrOutcome = attribute.Key("dwr.outcome")
	attrSource  = attribute.Key("dwr.cache.source")
	attrAttempt = attribute.Key("dwr.attempt")
	attrRetry   = attribute.Key("dwr.retry")
	attrBilled  = attribute.Key("dwr.billed")
	attrQuery   = attribute.Key("dwr.query")
	attrURL     = attribute.Key("dwr.url")
	attrStatus  = attribute.Key("http.response.status_code")
)

// startCall starts a call's span under the trace context its client sent.
func (t *Tracing) startCall(ctx context.Context, c *mcp.Call, member string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	var carrier propagation.TextMapCarrier
	if tp, ok := c.Meta["traceparent"].(string); ok {
		m := propagation.MapCarrier{"traceparent": tp}
		if ts, ok := c.Meta["tracestate"].(string); ok {
			m["tracestate"] = ts
		}
		carrier = m
	} else if c.Extra != nil && c.Extra.Header != nil {
		carrier = propagation.HeaderCarrier(c.Extra.Header)
	}
	if carrier != nil {
		ctx = traceContext.Extract(ctx, carrier)
	}
	attrs := []attribute.KeyValue{attrMember.String(member), attrTool.String(c.Tool)}
	if t.content && c.Valid {
		if c.Op.Query != "" {
			attrs = append(attrs, attrQuery.String(c.Op.Query))
		}
		if c.Op.URL != "" {
			attrs = append(attrs, attrURL.String(c.Op.URL))
		}
	}
	return t.tracer.Start(ctx, "tools/call "+c.Tool, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// endCall ends a call's span with its outcome.
func endCall(span trace.Span, outcome CallOutcome, src Source) {
	if span == nil {
		return
	}
	span.SetAttributes(attrOutcome.String(string(outcome)), attrSource.String(src.String()))
	if outcome != OutcomeOK {
		span.SetStatus(codes.Error, string(outcome))
	}
	span.End()
}

// startCache starts the span of a call's answer from the shared cache.
func (t *Tracing) startCache(ctx context.Context) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	return t.tracer.Start(ctx, "cache", trace.WithSpanKind(trace.SpanKindInternal))
}

// endCache ends it with where the answer came from.
func endCache(span trace.Span, src Source, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attrSource.String(src.String()))
	if err != nil {
		span.SetStatus(codes.Error, "not answered")
	}
	span.End()
}

// startRequest starts the span of one DeepSeek request, attempt n of its
// call.
func (t *Tracing) startRequest(ctx context.Context, r *http.Request, tool string, n int) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	return t.tracer.Start(ctx, "deepseek "+tool, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attrAttempt.Int(n), attrRetry.Bool(n > 1)))
}

// endRequest ends it with the response's status (0: none came) and
// whether DeepSeek bills it.
func endRequest(span trace.Span, status int, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attrStatus.Int(status), attrBilled.Bool(status >= 200 && status < 300))
	switch {
	case err != nil:
		span.SetStatus(codes.Error, "no response")
	case status >= 400:
		span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(status))
	}
	span.End()
}
