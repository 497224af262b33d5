package core

import (
	"errors"
	"strconv"
	"strings"

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
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: format " + strconv.Quote(f) + " is not available; DeepSeek Fetch returns Markdown only (use \"markdown\" or leave format out)"}
	default:
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: unknown format " + strconv.Quote(clip(format, 40)) + "; DeepSeek Fetch returns Markdown only (use \"markdown\" or leave format out)"}
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: the URL is empty"}
	}
	send, err := CheckFetchURL(raw, cfg.AllowedDomains, cfg.BlockedDomains)
	if err != nil {
		code := CodeInvalidInput
		if errors.Is(err, ErrURLRefused) {
			code = CodeURLRefused
		}
		return "", &Error{Code: code, Message: "DeepSeek Fetch: " + err.Error()}
	}
	return send, nil
}

// decodePage decodes a fetch response into the page it holds. redact
// masks the API key before anything is measured or cut.
func decodePage(body []byte, pageURL string, cfg *Config, redact func(string) string) (*Page, *Error) {
	page, err := wire.DecodeFetch(body)
	if err != nil {
		return nil, &Error{Code: CodeMalformed, Message: malformedMessage("DeepSeek Fetch", err, body, cfg, redact)}
	}
	if strings.TrimSpace(page.Content) == "" {
		return nil, &Error{Code: CodeNoContent, Message: "DeepSeek Fetch failed: no readable content at " + clip(pageURL, 200)}
	}
	return NewPage(redact(page.Title), redact(page.Content)), nil
}

// partOf cuts the part an operation asked for out of a page.
func partOf(p *Page, pageURL string, offset int, cfg *Config, hint string) (*FetchResult, *Error) {
	r, err := p.Part(offset, cfg.FetchMaxChars, hint)
	if err != nil {
		return nil, &Error{Code: CodeInvalidInput, Message: "DeepSeek Fetch: " + err.Error()}
	}
	r.URL = pageURL
	return &r, nil
}

// FormatFetch renders a fetched page for the model (SPEC §3.5): "# title",
// a blank line and the content, unless the title is empty or the content
// already opens with that heading; cut to maxChars code points, ending with
// the continue line of [Page.Part] when more follows. It is the first part
// of [NewPage](title, content). maxChars <= 0 means DefaultFetchMaxChars.
func FormatFetch(title, content string, maxChars int) FetchResult {
	r, _ := NewPage(title, content).Part(0, maxChars, "")
	return r
}

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
