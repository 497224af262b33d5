package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

// tracing returns serve's OpenTelemetry tracing as the standard variables
// ask (getenv reads them): none unless OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and none with
// OTEL_SDK_DISABLED=true or an OTEL_TRACES_EXPORTER other than otlp. The
// exporter reads the rest of OTEL_EXPORTER_OTLP_* itself (headers,
// timeout, compression, certificates); only the http/protobuf protocol is
// built in. stop flushes the spans not yet sent.
func tracing(ctx context.Context, getenv func(string) string, content bool) (t *gateway.Tracing, stop func(), err error) {
	endpoint := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") + getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	exporter := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	if endpoint == "" || strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || exporter != "" && exporter != "otlp" {
		return nil, func() {}, nil
	}
	protocol := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if protocol != "" && protocol != "http/protobuf" {
		return nil, nil, errors.New("OTEL_EXPORTER_OTLP_PROTOCOL " + protocol + ": this build exports traces over http/protobuf only; set http/protobuf and the collector's OTLP/HTTP endpoint (port 4318)")
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, errors.New("OpenTelemetry exporter: " + err.Error())
	}
	// service.name defaults to ours; OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES override it.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "deepseek-web-retrieval"), attribute.String("service.version", versionString())),
		resource.WithFromEnv())
	if err != nil {
		return nil, nil, errors.New("OpenTelemetry resource: " + err.Error())
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return gateway.NewTracing(tp, content), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}, nil
}
