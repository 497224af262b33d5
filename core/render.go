package core

import (
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/date"
)

// Marker returns the hit's quality marker (SPEC §2.6), e.g.
// "[rerank 2.1 · authority 3 · Site Name]": rerank with one decimal,
// authority as a whole number or "unknown" for -1, then the site name. Parts
// that are missing are left out; with none, Marker returns "".
func (h Hit) Marker() string {
	if !h.hasMarker() {
		return ""
	}
	var b strings.Builder
	b.Grow(len(h.Site) + 48)
	h.writeMarker(&b)
	return b.String()
}

func (h Hit) hasMarker() bool { return h.Rerank != nil || h.Authority != nil || h.Site != "" }

// writeMarker writes the marker of a hit that has one, in one pass rather
// than by joining parts (in WebAssembly, each allocation costs).
func (h Hit) writeMarker(b *strings.Builder) {
	var num [32]byte
	b.WriteByte('[')
	sep := false
	if h.Rerank != nil {
		b.WriteString("rerank ")
		b.Write(strconv.AppendFloat(num[:0], *h.Rerank, 'f', 1, 64))
		sep = true
	}
	if h.Authority != nil {
		if sep {
			b.WriteString(" · ")
		}
		if a := *h.Authority; a == -1 {
			b.WriteString("authority unknown")
		} else {
			b.WriteString("authority ")
			b.Write(strconv.AppendFloat(num[:0], a, 'f', -1, 64))
		}
		sep = true
	}
	if h.Site != "" {
		if sep {
			b.WriteString(" · ")
		}
		b.WriteString(h.Site)
	}
	b.WriteByte(']')
}

// PublishedMs returns the publication time as Unix epoch milliseconds, and
// false when the date is missing or does not parse.
func (h Hit) PublishedMs() (int64, bool) {
	return h.Published, h.HasPublished
}

// ProviderContent is the content of a websearch provider result (SPEC §6):
// the marker, a newline, and the text; just the text when there is no
// marker.
func (h Hit) ProviderContent() string {
	if !h.hasMarker() {
		return h.Text
	}
	var b strings.Builder
	b.Grow(len(h.Site) + 48 + len(h.Text))
	h.writeMarker(&b)
	if h.Text != "" {
		b.WriteByte('\n')
		b.WriteString(h.Text)
	}
	return b.String()
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
		if h.HasPublished {
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
		if h.Text != "" {
			b.WriteString("\n" + h.Text)
		}
	}
	return r.decorate(b.String())
}
