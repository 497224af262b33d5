package core_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// longPage is a 91,234-code-point document: "# Spec\n\n" (8) and 91,226
// code points of text.
func longPage() *core.Page {
	return core.NewPage("Spec", strings.Repeat("abcdefghi\n", 9122)+"abcdef")
}

func TestPagePartsOfALongPage(t *testing.T) {
	p := longPage()
	require.Equal(t, 91234, p.Chars())
	tests := []struct {
		name       string
		offset     int
		wantStart  string
		wantLine   string // "" for the last part
		next       int
		chars      int
		truncation bool
	}{
		// The line at its longest, at end 16,000, is 106 code points; the
		// part keeps 16,000 - 106 - 1 = 15,893 of the page.
		{name: "first part keeps the title", offset: 0, wantStart: "# Spec\n\nabcdefghi\n",
			wantLine: "[content truncated: showing 0–15,893 of 91,234 characters; call deepseek_fetch with offset 15893 for more]",
			next:     15893, chars: 16000, truncation: true},
		{name: "a middle part has no title", offset: 16000, wantStart: "cdefghi\nabcdefghi",
			wantLine: "[content truncated: showing 16,000–31,888 of 91,234 characters; call deepseek_fetch with offset 31888 for more]",
			next:     31888, chars: 15999, truncation: true}, // a newline before the cut is dropped
		{name: "the last part has no line", offset: 80000, wantStart: "cdefghi\nabcdefghi", next: 0, chars: 11234},
		{name: "one code point from the end", offset: 91233, wantStart: "f", next: 0, chars: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := p.Part(tt.offset, 16000, "")
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(r.Text, tt.wantStart), "%q", r.Text[:min(len(r.Text), 40)])
			if tt.wantLine != "" {
				require.True(t, strings.HasSuffix(r.Text, "\n"+tt.wantLine), "%q", r.Text[max(0, len(r.Text)-140):])
			} else {
				require.NotContains(t, r.Text, "[content truncated")
			}
			require.Equal(t, tt.offset, r.Offset)
			require.Equal(t, tt.next, r.NextOffset)
			require.Equal(t, 91234, r.TotalChars)
			require.Equal(t, tt.truncation, r.Truncated)
			require.Equal(t, tt.chars, r.Chars)
			require.Equal(t, utf8.RuneCountInString(r.Text), r.Chars)
			require.LessOrEqual(t, r.Chars, 16000)
			require.Equal(t, "Spec", r.Title)
		})
	}
}

func TestPageOffsetErrors(t *testing.T) {
	p := longPage()
	for _, tt := range []struct {
		offset int
		want   string
	}{
		{91234, "offset 91234 is the end of the page: it has 91,234 characters and nothing follows"},
		{91235, "offset 91235 is past the end of the page: it has 91,234 characters (the last offset is 91233)"},
		{1 << 40, "offset 1099511627776 is past the end of the page: it has 91,234 characters (the last offset is 91233)"},
		{-1, "offset -1 is negative; use 0 for the start of the page"},
	} {
		_, err := p.Part(tt.offset, 16000, "")
		require.EqualError(t, err, tt.want)
		var oe *core.OffsetError
		require.ErrorAs(t, err, &oe)
	}
	// Offset 0 of an empty document is the (empty) document, as before paging.
	r, err := core.NewPage("", "").Part(0, 200, "")
	require.NoError(t, err)
	require.Equal(t, core.FetchResult{}, r)
}

func TestPageExactlyAtTheLimit(t *testing.T) {
	// 200 code points in all, title heading included: whole, no line.
	p := core.NewPage("T", strings.Repeat("语", 195))
	r, err := p.Part(0, 200, "")
	require.NoError(t, err)
	require.Equal(t, "# T\n\n"+strings.Repeat("语", 195), r.Text)
	require.False(t, r.Truncated)
	require.Zero(t, r.NextOffset)
	// One more and the line appears.
	r, err = core.NewPage("T", strings.Repeat("语", 196)).Part(0, 200, "")
	require.NoError(t, err)
	require.Equal(t, "# T\n\n"+strings.Repeat("语", 96)+"\n[content truncated: showing 0–101 of 201 characters; call deepseek_fetch with offset 101 for more]", r.Text)
	// The rest, exactly at the limit from an offset, is whole.
	r, err = core.NewPage("", strings.Repeat("x", 250)).Part(50, 200, "")
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("x", 200), r.Text)
	require.Zero(t, r.NextOffset)
}

func TestPagePartBoundaries(t *testing.T) {
	astral := strings.Repeat("𝔸", 500) // U+1D538: a surrogate pair in UTF-16, one code point here
	tests := []struct {
		name         string
		page         *core.Page
		offset, max  int
		want         string
		next         int
		wantTruncate bool
	}{
		{name: "starts on an astral code point", page: core.NewPage("", astral), offset: 150, max: 200,
			want: strings.Repeat("𝔸", 99) + "\n[content truncated: showing 150–249 of 500 characters; call deepseek_fetch with offset 249 for more]", next: 249, wantTruncate: true},
		{name: "ends on the last astral code point", page: core.NewPage("", astral), offset: 400, max: 200, want: strings.Repeat("𝔸", 100)},
		{name: "starts on a combining mark the caller chose", page: core.NewPage("", "e\u0301"+strings.Repeat("z", 10)), offset: 1, max: 200, want: "\u0301" + strings.Repeat("z", 10)},
		{name: "a cut before a run of marks moves before their base", page: core.NewPage("", strings.Repeat("a", 198)+"o\u0308\u0301"+strings.Repeat("z", 300)), offset: 100, max: 200,
			want: strings.Repeat("a", 98) + "\n[content truncated: showing 100–198 of 501 characters; call deepseek_fetch with offset 198 for more]", next: 198, wantTruncate: true},
		{name: "a degenerate run of marks is cut where the limit says", page: core.NewPage("", "a"+strings.Repeat("\u0301", 400)), offset: 0, max: 200,
			want: "a" + strings.Repeat("\u0301", 100) + "\n[content truncated: showing 0–101 of 401 characters; call deepseek_fetch with offset 101 for more]", next: 101, wantTruncate: true},
		{name: "a part of white space only is the line alone", page: core.NewPage("", "a"+strings.Repeat(" ", 300)+"b"), offset: 1, max: 200,
			want: "[content truncated: showing 1–102 of 302 characters; call deepseek_fetch with offset 102 for more]", next: 102, wantTruncate: true},
		{name: "the host's hint", page: core.NewPage("", strings.Repeat("x", 300)), offset: 0, max: 200,
			want: strings.Repeat("x", 118) + "\n[content truncated: showing 0–118 of 300 characters; run again with --offset 118]", next: 118, wantTruncate: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hint := ""
			if strings.HasPrefix(tt.name, "the host") {
				hint = "run again with --offset {offset}"
			}
			r, err := tt.page.Part(tt.offset, tt.max, hint)
			require.NoError(t, err)
			require.Equal(t, tt.want, r.Text)
			require.Equal(t, tt.next, r.NextOffset)
			require.Equal(t, tt.wantTruncate, r.Truncated)
			require.LessOrEqual(t, r.Chars, tt.max)
			require.True(t, utf8.ValidString(r.Text))
		})
	}
}
