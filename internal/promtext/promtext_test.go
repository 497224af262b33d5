package promtext_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/promtext"
)

func TestRegistryEscapingAndHTTP(t *testing.T) {
	r := promtext.NewRegistry()
	c := r.NewCounter("x_total", "Help with a \\ and a\nnewline.", "v")
	c.Inc("a \"quoted\" \\ value\nwith a newline")
	r.NewCounter("empty_total", "No series yet.")
	r.NewHistogram("h_seconds", "Unlabelled.", []float64{1}).Observe(0.5)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Equal(t, `# HELP x_total Help with a \\ and a\nnewline.
# TYPE x_total counter
x_total{v="a \"quoted\" \\ value\nwith a newline"} 1
# HELP empty_total No series yet.
# TYPE empty_total counter
empty_total 0
# HELP h_seconds Unlabelled.
# TYPE h_seconds histogram
h_seconds_bucket{le="1"} 1
h_seconds_bucket{le="+Inf"} 1
h_seconds_sum 0.5
h_seconds_count 1
`, rec.Body.String())
	require.Panics(t, func() { c.Inc() }, "a missing label value passed")
}
