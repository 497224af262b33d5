package core

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
)

// truncationMarker ends fetched text that was cut to FetchMaxChars.
const truncationMarker = "[content truncated]"

// checkFetch applies the format rule and the URL policy (SPEC §3.1–3.4) and
// returns the URL to send.
func checkFetch(raw, format string, cfg *Config) (string, *Error) {
	switch f := strings.ToLower(strings.TrimSpace(format)); f {
	case "", "markdown":
	case "text", "html":
		return "", &Error{Code: CodeInvalidInput, Message: fmt.Sprintf("DeepSeek Fetch: format %q is not available; DeepSeek Fetch returns Markdown only (use \"markdown\" or leave format out)", f)}
	default:
		return "", &Error{Code: CodeInvalidInput, Message: fmt.Sprintf("DeepSeek Fetch: unknown format %q; DeepSeek Fetch returns Markdown only (use \"markdown\" or leave format out)", clip(format, 40))}
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: the URL is empty"}
	}
	send, _, err := checkFetchURL(raw, cfg.AllowedDomains, cfg.BlockedDomains)
	if err != nil {
		code := CodeInvalidInput
		if errors.Is(err, ErrURLRefused) {
			code = CodeURLRefused
		}
		return "", &Error{Code: code, Message: "DeepSeek Fetch: " + err.Error()}
	}
	return send, nil
}

// processFetch decodes a fetch response and formats it.
// redact masks the API key before the page is cut to its limit.
func processFetch(body []byte, pageURL string, cfg *Config, redact func(string) string) (*FetchResult, *Error) {
	page, err := wire.DecodeFetch(body)
	if err != nil {
		return nil, &Error{Code: CodeMalformed, Message: malformedMessage("DeepSeek Fetch", err, body, cfg, redact)}
	}
	if strings.TrimSpace(page.Content) == "" {
		return nil, &Error{Code: CodeNoContent, Message: fmt.Sprintf("DeepSeek Fetch failed: no readable content at %s", clip(pageURL, 200))}
	}
	r := FormatFetch(redact(page.Title), redact(page.Content), cfg.FetchMaxChars)
	r.URL = pageURL
	return &r, nil
}

// FormatFetch renders a fetched page for the model (SPEC §3.5): "# title",
// a blank line and the content, unless the title is empty or the content
// already opens with that heading; cut to maxChars code points with
// "[content truncated]" on its own line when there is room for it. maxChars
// <= 0 means DefaultFetchMaxChars.
func FormatFetch(title, content string, maxChars int) FetchResult {
	if maxChars <= 0 {
		maxChars = DefaultFetchMaxChars
	}
	title = collapse(title)
	// Only a bounded prefix can reach the output: CRLF → LF at most halves
	// it, so 2·maxChars+2 code points are enough to decide and to cut, and a
	// 5 MiB page costs no more than a short one.
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
	pre, _, whole := prefixRunes(content, 2*maxChars+2)
	if !whole && allSpace(content[len(pre):]) {
		pre, whole = content, true // only trailing white space was left out
	}
	content = strings.ReplaceAll(pre, "\r\n", "\n")
	if whole {
		content = strings.TrimRightFunc(content, unicode.IsSpace)
	}
	text := content
	if addTitle {
		text = "# " + title + "\n\n" + content
	}
	r := FetchResult{Title: title}
	cut, n, fits := prefixRunes(text, maxChars)
	if fits && whole {
		r.Text, r.Chars = text, n
		return r
	}
	r.Truncated = true
	room := maxChars - runeCount(truncationMarker) - 1 // the marker and its newline
	if room <= 0 {
		r.Text, r.Chars = cut, maxChars
		return r
	}
	head, _, _ := prefixRunes(text, room)
	head = strings.TrimRightFunc(head, unicode.IsSpace)
	r.Text = head + "\n" + truncationMarker
	r.Chars = runeCount(r.Text)
	return r
}

func notSpace(r rune) bool { return !unicode.IsSpace(r) }

// opensWithHeading reports whether the first non-blank line of content is
// "# title" (trimmed, case-insensitive).
func opensWithHeading(content, title string) bool {
	for len(content) > 0 {
		line := content
		if i := strings.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = ""
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if line[0] != '#' || len(line) > 4*len(title)+64 {
			return false // not a heading, or far too long to be this one
		}
		return strings.EqualFold(collapse(line), "# "+title)
	}
	return false
}

// prefixRunes returns the first n code points of s, the count, and whether
// s fits entirely. It stops scanning at n+1 code points, so a long s costs
// only what is kept.
func prefixRunes(s string, n int) (string, int, bool) {
	count := 0
	for i := 0; i < len(s); {
		if count == n {
			return s[:i], count, false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s, count, true
}
