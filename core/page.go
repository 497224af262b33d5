package core

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// DefaultContinueHint is the end of the continue line when a host names no
// other way to read on; "{offset}" stands for the next part's offset.
const DefaultContinueHint = "call deepseek_fetch with offset {offset} for more"

// pageStride is the distance, in code points, between two entries of a
// Page's offset index.
const pageStride = 1024

// maxMarkBacktrack bounds how far a cut moves back to keep combining marks
// with their base character.
const maxMarkBacktrack = 32

// Page is a fetched page as the model reads it: "# title", a blank line and
// the content (unless the title is empty or the content already opens with
// it), with CRLF turned into LF, leading blank lines and trailing white space
// removed. Offsets count code points into this document. A Page is
// immutable and safe to share; [Page.Part] cuts it into parts.
type Page struct {
	title string  // collapsed
	doc   string  // the whole document
	chars int     // code points in doc
	index []int32 // byte offset of code point i·pageStride
}

// NewPage builds the document of SPEC §3.5 from a fetched title and content.
func NewPage(title, content string) *Page {
	title = collapse(title)
	for {
		if strings.HasPrefix(content, "\n") {
			content = content[1:]
		} else if strings.HasPrefix(content, "\r\n") {
			content = content[2:]
		} else {
			break
		}
	}
	addTitle := title != "" && !opensWithHeading(content, title)
	if hasByte(content, '\r') {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	content = strings.TrimRightFunc(content, unicode.IsSpace)
	doc := content
	if addTitle {
		doc = "# " + title + "\n\n" + content
	}
	p := &Page{title: title, doc: doc}
	p.index, p.chars = pageIndex(doc)
	return p
}

// hasByte reports whether s holds c, looking at eight bytes at a time
// (strings.IndexByte, which ReplaceAll starts with, is a byte loop in
// WebAssembly).
func hasByte(s string, c byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if ascii.ZeroByteMask(ascii.Load8(s[i:])^ascii.Ones*uint64(c)) != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// pageIndex returns the byte offset of every pageStride-th code point of
// doc and the number of code points in it (invalid bytes count one each).
// Eight ASCII bytes are eight code points: they are passed over at once
// when no index entry falls inside them.
func pageIndex(doc string) ([]int32, int) {
	index := make([]int32, 0, len(doc)/pageStride+1)
	n := 0
	for i := 0; i < len(doc); n++ {
		if n%pageStride == 0 {
			index = append(index, int32(i))
		}
		if n%pageStride <= pageStride-8 && i+8 <= len(doc) && ascii.Load8(doc[i:])&0x8080808080808080 == 0 {
			i += 8
			n += 7
		} else if doc[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(doc[i:])
			i += size
		}
	}
	return index, n
}

// Title is the page's title, white space collapsed.
func (p *Page) Title() string { return p.title }

// Chars is the document's length in code points.
func (p *Page) Chars() int { return p.chars }

// size estimates the bytes the page holds, for the cache's budget.
func (p *Page) size() int64 {
	return int64(len(p.doc)+len(p.title)+4*cap(p.index)) + 64
}

// byteAt returns the byte offset of code point n (0 ≤ n ≤ Chars).
func (p *Page) byteAt(n int) int {
	if n >= p.chars {
		return len(p.doc)
	}
	i := int(p.index[n/pageStride])
	for k := n % pageStride; k > 0; k-- {
		_, size := utf8.DecodeRuneInString(p.doc[i:])
		i += size
	}
	return i
}

// OffsetError is an offset outside the page; its message names the page's
// length.
type OffsetError struct {
	Offset, Chars int
}

func (e *OffsetError) Error() string {
	switch {
	case e.Offset < 0:
		return "offset " + strconv.Itoa(e.Offset) + " is negative; use 0 for the start of the page"
	case e.Offset == e.Chars:
		return "offset " + strconv.Itoa(e.Offset) + " is the end of the page: it has " + thousands(e.Chars) + " characters and nothing follows"
	}
	return "offset " + strconv.Itoa(e.Offset) + " is past the end of the page: it has " + thousands(e.Chars) + " characters (the last offset is " + strconv.Itoa(max(e.Chars-1, 0)) + ")"
}

// Part returns the part of the page that starts at offset (code points)
// and is at most maxChars code points long, everything included. The title
// heading, being the document's start, is only ever in the part at offset
// 0. When more follows, the part ends with a line that says where the
// reader is and how to go on:
//
//	[content truncated: showing 16,000–31,888 of 91,234 characters; call deepseek_fetch with offset 31888 for more]
//
// The line is counted inside maxChars, as SPEC §3.5 counts
// "[content truncated]": the content kept is maxChars minus the line and its
// newline, with the line's length taken at the largest numbers it could
// show, so the whole part never exceeds maxChars. White space before the
// cut is dropped; a cut never splits a code point, and it moves back (at
// most 32 code points) rather than separate a combining mark or a
// zero-width joiner from the character before it. hint ends the line;
// "{offset}" in it becomes the next offset ("" means
// [DefaultContinueHint]). maxChars <= 0 means [DefaultFetchMaxChars].
//
// When maxChars is too small for the line and one character of content,
// the part ends with "[content truncated]" instead, or is a bare cut when
// even that does not fit (only for maxChars below 130, which options never
// allow).
//
// An offset below 0, or at or past the end of a non-empty page, is an
// [*OffsetError].
func (p *Page) Part(offset, maxChars int, hint string) (FetchResult, error) {
	if maxChars <= 0 {
		maxChars = DefaultFetchMaxChars
	}
	if hint == "" {
		hint = DefaultContinueHint
	}
	if offset < 0 || offset > 0 && offset >= p.chars {
		return FetchResult{}, &OffsetError{Offset: offset, Chars: p.chars}
	}
	r := FetchResult{Title: p.title, Offset: offset, TotalChars: p.chars}
	from := p.byteAt(offset)
	if p.chars-offset <= maxChars {
		r.Text, r.Chars = p.doc[from:], p.chars-offset
		return r, nil
	}
	r.Truncated = true
	line := func(end int) string {
		return "[content truncated: showing " + thousands(offset) + "–" + thousands(end) + " of " + thousands(p.chars) + " characters; " +
			strings.ReplaceAll(hint, "{offset}", strconv.Itoa(end)) + "]"
	}
	// Digits only shrink as the end moves back, so the line measured at the
	// largest end is the longest it can be.
	marker := line(offset + maxChars)
	if room := maxChars - runeCount(marker) - 1; room < 1 {
		marker = ""
		if room = maxChars - runeCount(truncationMarker) - 1; room >= 1 {
			marker = truncationMarker
		}
	}
	room := maxChars
	if marker != "" {
		room = maxChars - runeCount(marker) - 1
	}
	end := p.keepTogether(offset, offset+room)
	head := p.doc[from:p.byteAt(end)]
	r.NextOffset = end
	if marker == "" {
		r.Text, r.Chars = head, end-offset
		return r, nil
	}
	if marker != truncationMarker {
		marker = line(end)
	}
	// Count what is kept rather than the text: a part is up to 16,000 code
	// points, the white space dropped a few.
	trimmed := strings.TrimRightFunc(head, unicode.IsSpace)
	kept := end - offset - runeCount(head[len(trimmed):])
	if r.Chars = runeCount(marker); trimmed != "" {
		r.Text, r.Chars = trimmed+"\n"+marker, kept+1+r.Chars
	} else {
		r.Text = marker
	}
	return r, nil
}

// keepTogether moves a cut at end back so it does not fall before a
// combining mark or just after a zero-width joiner, staying above start.
func (p *Page) keepTogether(start, end int) int {
	b, cut := p.byteAt(end), end
	for k := 0; k < maxMarkBacktrack && cut > start+1; k++ {
		next, _ := utf8.DecodeRuneInString(p.doc[b:])
		prev, size := utf8.DecodeLastRuneInString(p.doc[:b])
		if !unicode.In(next, unicode.Mn, unicode.Me, unicode.Mc) && next != zwj && prev != zwj {
			return cut
		}
		cut--
		b -= size
	}
	return end // a degenerate run of marks: cut where the limit says
}

const zwj = '\u200d'
