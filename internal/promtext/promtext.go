// Package promtext writes metrics in the Prometheus text exposition
// format (version 0.0.4): counters and histograms with labels, gauges and
// fixed buckets, without a client library.
package promtext

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry holds metrics and writes them in the Prometheus text
// exposition format (version 0.0.4): families in the order they were
// registered, series sorted by label values. It is small on purpose:
// counters and histograms with labels, gauges, fixed buckets; no client
// library. Safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	families []family
}

type family interface {
	write(w *bufio.Writer)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

func (r *Registry) add(f family) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.families = append(r.families, f)
}

// ContentType is the Content-Type of the exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteTo writes every metric in the text exposition format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	r.mu.Lock()
	fs := append([]family(nil), r.families...)
	r.mu.Unlock()
	for _, f := range fs {
		f.write(bw)
	}
	err := bw.Flush()
	return cw.n, err
}

// ServeHTTP serves the metrics (for /metrics).
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	_, _ = r.WriteTo(w)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func header(w *bufio.Writer, name, help, typ string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, escapeHelp(help), name, typ)
}

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
var labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }

// labelText renders {a="x",b="y"} plus extra (already rendered) pairs.
func labelText(names, values []string, extra string) string {
	if len(names) == 0 && extra == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(values[i]))
		b.WriteByte('"')
	}
	if extra != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extra)
	}
	b.WriteByte('}')
	return b.String()
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// seriesKey joins label values; \xff cannot occur in UTF-8 text.
func seriesKey(values []string) string { return strings.Join(values, "\xff") }

// Counter is one monotonically increasing series.
type Counter struct{ n atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Add adds n.
func (c *Counter) Add(n uint64) { c.n.Add(n) }

// Value returns the count.
func (c *Counter) Value() uint64 { return c.n.Load() }

// CounterVec is a counter family with labels.
type CounterVec struct {
	name, help string
	labels     []string

	mu     sync.Mutex
	series map[string]*Counter
	values map[string][]string
}

// NewCounter registers a counter family; name should end in _total.
// With no labels, [CounterVec.With] takes no values.
func (r *Registry) NewCounter(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{name: name, help: help, labels: labels, series: map[string]*Counter{}, values: map[string][]string{}}
	r.add(c)
	return c
}

// With returns the series for the label values, in the order the labels
// were registered; it panics on a wrong number of values (a programming
// error).
func (c *CounterVec) With(values ...string) *Counter {
	if len(values) != len(c.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", c.name, len(c.labels), len(values)))
	}
	k := seriesKey(values)
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.series[k]
	if !ok {
		s = &Counter{}
		c.series[k] = s
		c.values[k] = append([]string(nil), values...)
	}
	return s
}

// Inc adds one to the series for the label values.
func (c *CounterVec) Inc(values ...string) { c.With(values...).Inc() }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (c *CounterVec) write(w *bufio.Writer) {
	header(w, c.name, c.help, "counter")
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.labels) == 0 && len(c.series) == 0 {
		fmt.Fprintf(w, "%s 0\n", c.name)
		return
	}
	for _, k := range sortedKeys(c.series) {
		fmt.Fprintf(w, "%s%s %d\n", c.name, labelText(c.labels, c.values[k], ""), c.series[k].Value())
	}
}

// Gauge is a value that goes up and down.
type Gauge struct {
	name, help string
	v          atomic.Int64
}

// NewGauge registers a gauge without labels.
func (r *Registry) NewGauge(name, help string) *Gauge {
	g := &Gauge{name: name, help: help}
	r.add(g)
	return g
}

// Add adds d (which may be negative).
func (g *Gauge) Add(d int64) { g.v.Add(d) }

// Set sets the value.
func (g *Gauge) Set(v int64) { g.v.Store(v) }

// Value returns the value.
func (g *Gauge) Value() int64 { return g.v.Load() }

func (g *Gauge) write(w *bufio.Writer) {
	header(w, g.name, g.help, "gauge")
	fmt.Fprintf(w, "%s %d\n", g.name, g.Value())
}

// HistogramVec is a histogram family with labels and fixed buckets.
type HistogramVec struct {
	name, help string
	labels     []string
	buckets    []float64

	mu     sync.Mutex
	series map[string]*histogram
	values map[string][]string
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// NewHistogram registers a histogram family with the given upper bounds
// (ascending; +Inf is added).
func (r *Registry) NewHistogram(name, help string, buckets []float64, labels ...string) *HistogramVec {
	if !sort.Float64sAreSorted(buckets) {
		panic("metrics: " + name + " buckets are not ascending")
	}
	h := &HistogramVec{name: name, help: help, labels: labels, buckets: append([]float64(nil), buckets...),
		series: map[string]*histogram{}, values: map[string][]string{}}
	r.add(h)
	return h
}

// Observe records v in the series for the label values.
func (h *HistogramVec) Observe(v float64, values ...string) {
	if len(values) != len(h.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", h.name, len(h.labels), len(values)))
	}
	k := seriesKey(values)
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.series[k]
	if !ok {
		s = &histogram{counts: make([]uint64, len(h.buckets)+1)}
		h.series[k] = s
		h.values[k] = append([]string(nil), values...)
	}
	i := sort.SearchFloat64s(h.buckets, v) // first bound ≥ v
	s.counts[i]++
	s.sum += v
	s.count++
}

func (h *HistogramVec) write(w *bufio.Writer) {
	header(w, h.name, h.help, "histogram")
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range sortedKeys(h.series) {
		s, vals := h.series[k], h.values[k]
		var cum uint64
		for i, c := range s.counts {
			cum += c
			le := math.Inf(1)
			if i < len(h.buckets) {
				le = h.buckets[i]
			}
			fmt.Fprintf(w, "%s_bucket%s %d\n", h.name, labelText(h.labels, vals, `le="`+formatFloat(le)+`"`), cum)
		}
		fmt.Fprintf(w, "%s_sum%s %s\n", h.name, labelText(h.labels, vals, ""), formatFloat(s.sum))
		fmt.Fprintf(w, "%s_count%s %d\n", h.name, labelText(h.labels, vals, ""), s.count)
	}
}
