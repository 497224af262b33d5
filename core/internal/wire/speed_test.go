package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
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
			require.Equal(t, refIs([]byte(n), f), is([]byte(n), f), "is(%q, %q)", n, f)
		}
	}
}

func FuzzIsEquivalence(f *testing.F) {
	for _, n := range []string{"url", "URL", "ſummary", "\u212aey", "@a"} {
		f.Add(n, "summary")
	}
	f.Fuzz(func(t *testing.T, name, field string) {
		if got, want := is([]byte(name), field), refIs([]byte(name), field); got != want {
			t.Fatalf("is(%q, %q) = %v, want %v", name, field, got, want)
		}
	})
}

// stepBody is the search body of /work/wt/steps.mjs's step benchmark: ten
// results of about 500 bytes.
func stepBody() []byte {
	var b bytes.Buffer
	b.WriteString(`{"results":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		d := string(rune('0' + i))
		b.WriteString(`{"url":"https://example.com/article/` + d + `","title":"Result number ` + d + ` about effective Go","snippet":"Tips for writing clear, idiomatic Go code.","summary":"Result ` + d + `: ` +
			string(bytes.Repeat([]byte("Effective Go gives tips for writing clear, idiomatic Go code and explains the conventions of the language. "), 3)) +
			`","rerank_score":2.` + d + `,"authority":` + d + `,"date":"2024-01-15T00:00:00Z","site_name":"example.com"}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func BenchmarkDecodeSearchStep(b *testing.B) {
	body := stepBody()
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

// ascii8 is true exactly for eight ASCII bytes without a backslash.
func TestASCII8(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			require.Equal(t, c < 0x80 && c != '\\', ascii8(load8(b)), "byte %#x at %d", c, pos)
			b[(pos+3)%8] = '\\'
			require.False(t, ascii8(load8(b)), "backslash with %#x at %d", c, pos)
		}
	}
}
