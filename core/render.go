package core

import (
	"math"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/date"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// Marker returns the hit's quality marker (SPEC §2.6), e.g.
// "[rerank 2.1 · authority 3 · Site Name]": rerank with one decimal,
// authority as a whole number or "unknown" for -1, then the site name. Parts
// that are missing are left out; with none, Marker returns "".
func (h Hit) Marker() string {
	if !h.hasMarker() {
		return ""
	}
	var buf [96]byte
	return string(h.appendMarker(buf[:0], false))
}

func (h Hit) hasMarker() bool { return h.Rerank != nil || h.Authority != nil || h.Site != "" }

// appendScore is strconv.AppendFloat(b, x, 'f', prec, 64) for prec 1 (a
// rerank score) or -1 (an authority), with a fast path for usual scores:
// 0 <= x < 1e6, for prec 1 not within 1e-6 of a tie between two tenths,
// for prec -1 whole, since every result's markers go through it.
// FuzzMarkerNumbers checks it against strconv.
func appendScore(b []byte, x float64, prec int) []byte {
	if x >= 0 && x < 1e6 && !math.Signbit(x) {
		t := x
		if prec == 1 {
			t *= 10 // within an ulp (< 2e-9) of the exact product
		}
		n := math.Floor(t)
		f := t - n
		if prec == 1 && (f < 0.5-1e-6 || f > 0.5+1e-6) || prec == -1 && f == 0 {
			k := uint64(n)
			if prec == 1 && f > 0.5 {
				k++
			}
			q := k
			if prec == 1 {
				q /= 10
			}
			b = strconv.AppendUint(b, q, 10)
			if prec == 1 {
				b = append(b, '.', byte('0'+k%10))
			}
			return b
		}
	}
	return strconv.AppendFloat(b, x, 'f', prec, 64)
}

// appendMarker appends the marker of a hit that has one, in one pass rather
// than by joining parts (in WebAssembly, each allocation costs). With
// jsonBody, the site name is escaped as inside a JSON string (the rest of
// the marker needs no escaping).
func (h Hit) appendMarker(b []byte, jsonBody bool) []byte {
	b = append(b, '[')
	sep := false
	if h.Rerank != nil {
		b = append(b, "rerank "...)
		b = appendScore(b, *h.Rerank, 1)
		sep = true
	}
	if h.Authority != nil {
		if sep {
			b = append(b, " · "...)
		}
		if a := *h.Authority; a == -1 {
			b = append(b, "authority unknown"...)
		} else {
			b = append(b, "authority "...)
			b = appendScore(b, a, -1)
		}
		sep = true
	}
	if h.Site != "" {
		if sep {
			b = append(b, " · "...)
		}
		if jsonBody {
			b = jsonlite.AppendStringBody(b, h.Site)
		} else {
			b = append(b, h.Site...)
		}
	}
	return append(b, ']')
}

// PublishedMs returns the publication time as Unix epoch milliseconds, and
// false when the date is missing or does not parse.
func (h Hit) PublishedMs() (int64, bool) {
	return h.Published, h.Published != 0
}

// ProviderContent is the content of a websearch provider result (SPEC §6):
// the marker, a newline, and the text; just the text when there is no
// marker.
func (h Hit) ProviderContent() string {
	if !h.hasMarker() {
		return h.Text
	}
	var buf [96]byte
	m := h.appendMarker(buf[:0], false)
	var b strings.Builder
	b.Grow(len(m) + 1 + len(h.Text))
	b.Write(m)
	if h.Text != "" {
		b.WriteByte('\n')
		b.WriteString(h.Text)
	}
	return b.String()
}

// AppendProviderContentJSON appends ProviderContent as a JSON string, as
// jsonlite.AppendString(b, h.ProviderContent()) would, without building the
// content first: a search step writes ten of them, and joining each would
// allocate a string per result (BenchmarkProviderContent).
func (h Hit) AppendProviderContentJSON(b []byte) []byte {
	b = append(b, '"')
	if h.hasMarker() {
		b = h.appendMarker(b, true)
		if h.Text != "" {
			b = append(b, '\\', 'n')
		}
	}
	b = jsonlite.AppendStringBody(b, h.Text)
	return append(b, '"')
}

// Text renders the results as a search tool's text for hosts without a
// websearch-provider API (SPEC §6): per result "N. Title", the URL, the
// marker and date line, the summary, with a blank line between results.
func (r *SearchResult) Text() string {
	if len(r.Hits) == 0 {
		return r.decorate("No results found for " + strconv.Quote(r.Query) + ".")
	}
	var b strings.Builder
	for i, h := range r.Hits {
		if i > 0 {
			b.WriteString("\n\n")
		}
		title := h.Title
		if title == "" {
			title = h.URL
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + title + "\n" + h.URL)
		meta := h.Marker()
		if h.Published != 0 {
			published := "published " + date.FormatDay(h.Published)
			if meta != "" {
				meta += " · " + published
			} else {
				meta = published
			}
		}
		if meta != "" {
			b.WriteString("\n" + meta)
		}
		if h.FoundBy != "" {
			b.WriteString("\nfound by " + strconv.Quote(h.FoundBy))
		}
		if h.Text != "" {
			b.WriteString("\n" + h.Text)
		}
	}
	return r.decorate(b.String())
}
