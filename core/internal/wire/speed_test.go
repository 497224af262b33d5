package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/deepseektest"
)

// refIs is is as first written.
func refIs(name []byte, field string) bool {
	return len(name) >= len(field) && len(name) <= 3*len(field) && bytes.EqualFold(name, []byte(field))
}

var isFields = []string{"url", "title", "snippet", "summary", "date", "site_name", "rerank_score", "authority", "results", "content", "message", "error", "k", "s", "", "_x", "@a", "`a", "\u212a", "é"}

func TestIsMatchesReference(t *testing.T) {
	names := []string{"", "url", "URL", "Url", "uRl", "\u212aey", "ſummary", "SUMMARY", "snippet", "site_name", "SITE_NAME", "site-name", "rerank_score", "authority", "title", "TITLE", "date", "dATE", "k", "K", "\u212a", "s", "S", "ſ", "_x", "_X", "@a", "`a", "@A", "`A", "é", "É", "\xff", "u\xffl", "content"}
	for _, n := range names {
		for _, f := range isFields {
			require.Equal(t, refIs([]byte(n), f), nameSelects([]byte(n), f), "nameSelects(%q, %q)", n, f)
		}
	}
}

func FuzzIsEquivalence(f *testing.F) {
	for _, n := range []string{"url", "URL", "ſummary", "\u212aey", "@a"} {
		f.Add(n, "summary")
	}
	f.Fuzz(func(t *testing.T, name, field string) {
		if got, want := nameSelects([]byte(name), field), refIs([]byte(name), field); got != want {
			t.Fatalf("nameSelects(%q, %q) = %v, want %v", name, field, got, want)
		}
	})
}

func BenchmarkDecodeSearchStep(b *testing.B) {
	body := deepseektest.StepSearchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		items, err := DecodeSearch(body)
		if err != nil || len(items) != 10 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFetch4K(b *testing.B) {
	para := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. "
	body := []byte(`{"title":"Example page","content":"# Example page\n\n` + string(bytes.Repeat([]byte(para), 40)) + `"}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeFetch(body); err != nil {
			b.Fatal(err)
		}
	}
}

// oldDecodeSearch is DecodeSearch before its strings shared one
// allocation: each its own, by stringField.
func oldDecodeSearch(body []byte) ([]SearchItem, error) {
	d := &dec{b: body}
	if !d.bodyIsObject() {
		return nil, d.err
	}
	var items []SearchItem
	notList := false
	ok := d.object(func(name []byte) bool {
		if !nameSelects(name, "results") {
			return d.skip()
		}
		items, notList = nil, false
		switch {
		case d.b[d.i] == '[':
			var ok bool
			items, ok = d.oldResults()
			return ok
		case d.isNull():
			d.i += 4
			return true
		}
		notList = true
		return d.skip()
	})
	if !ok || !d.end() {
		return nil, d.err
	}
	if notList {
		return nil, &Error{Problem: ResultsNotList}
	}
	return items, nil
}

// oldResults is results as it was.
func (d *dec) oldResults() ([]SearchItem, bool) {
	if !d.open() {
		return nil, false
	}
	items := []SearchItem{}
	if d.skipSpace(); d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return items, true
	}
	for n := 1; ; n++ {
		if n > MaxResults {
			d.err = &Error{Problem: TooManyResults}
			return nil, false
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return nil, d.broken()
		}
		if d.b[d.i] == '{' {
			it, ok := d.oldItem()
			if !ok {
				return nil, false
			}
			items = append(items, it)
		} else if !d.skip() {
			return nil, false
		}
		if d.skipSpace(); d.i >= len(d.b) {
			return nil, d.broken()
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return items, true
		default:
			return nil, d.broken()
		}
	}
}

// oldItem is item as it was.
func (d *dec) oldItem() (SearchItem, bool) {
	var it SearchItem
	ok := d.object(func(name []byte) bool {
		var f *string
		switch {
		case nameSelects(name, "url"):
			f = &it.URL
		case nameSelects(name, "title"):
			f = &it.Title
		case nameSelects(name, "snippet"):
			f = &it.Snippet
		case nameSelects(name, "summary"):
			f = &it.Summary
		case nameSelects(name, "date"):
			f = &it.Date
		case nameSelects(name, "site_name"):
			f = &it.SiteName
		case nameSelects(name, "rerank_score"):
			return d.float(&it.Rerank, &it.HasRerank)
		case nameSelects(name, "authority"):
			return d.float(&it.Authority, &it.HasAuthority)
		default:
			return d.skip()
		}
		return d.stringField(f, MaxFieldBytes)
	})
	return it, ok
}

// packSeeds exercise members given twice, in every combination of packed,
// unpacked and non-string values, and lists given twice.
var packSeeds = []string{
	`{"results":[{"url":"a","url":null}]}`,
	`{"results":[{"url":null,"url":"b"}]}`,
	`{"results":[{"url":"a","URL":"b","Url":1}]}`,
	`{"results":[{"title":"a\u00e9","title":"\ud800x"}]}`,
	`{"results":[{"summary":"\xff"}],"results":[{"snippet":"s"},{"url":"u","date":"d"}]}`,
	`{"results":[{"summary":"x"}],"results":null}`,
	`{"results":[1,{"site_name":"s"},null,{"site_name":"t","site_name":"u"}]}`,
}

// DecodeSearch gives exactly what it gave before its strings were packed,
// errors and their offsets included, on any body.
func FuzzDecodeSearchUnchanged(f *testing.F) {
	addEquivalenceSeeds(f)
	for _, s := range packSeeds {
		f.Add([]byte(s))
	}
	f.Add(deepseektest.StepSearchBody())
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := DecodeSearch(body)
		want, werr := oldDecodeSearch(body)
		require.Equal(t, werr, err, "body %q", body)
		require.Equal(t, want, got, "body %q", body)
	})
}

func TestDecodeSearchUnchanged(t *testing.T) {
	bodies := [][]byte{deepseektest.StepSearchBody(), bytes.ReplaceAll(deepseektest.StepSearchBody(), []byte(`"url"`), []byte(`"URL"`))}
	for _, s := range packSeeds {
		bodies = append(bodies, []byte(s))
	}
	// Past packLimit, strings get their own allocation.
	long := bytes.Repeat([]byte("x"), 5000)
	big := []byte(`{"results":[`)
	for i := range 8 {
		if i > 0 {
			big = append(big, ',')
		}
		big = append(big, `{"summary":"`...)
		big = append(big, long...)
		big = append(big, `\n","url":"u","title":"t\u00e9","url":"v"}`...)
	}
	bodies = append(bodies, append(big, "]}"...))
	for _, b := range bodies {
		got, err := DecodeSearch(b)
		want, werr := oldDecodeSearch(b)
		require.Equal(t, werr, err, "body %q", b)
		require.Equal(t, want, got, "body %q", b)
	}
	for n := 0; n <= len(bodies[0]); n++ {
		got, err := DecodeSearch(bodies[0][:n])
		want, werr := oldDecodeSearch(bodies[0][:n])
		require.Equal(t, werr, err, "body %q", bodies[0][:n])
		require.Equal(t, want, got, "body %q", bodies[0][:n])
	}
}

// TestItemNamesApart checks what members' exact match first relies on: no
// two of itemNames match each other.
func TestItemNamesApart(t *testing.T) {
	for i, a := range itemNames {
		for j, b := range itemNames {
			require.Equal(t, i == j, nameSelects([]byte(a), b), "%q %q", a, b)
		}
	}
}
