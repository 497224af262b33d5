package core

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/wire"
)

// excerptChars is how much of a malformed body an error message quotes.
const excerptChars = 60

// maxFormBytes is the longest text a masked form of any valid key spans
// (see Redactor.MaxLen): a window this much longer than what is shown is
// masked before it is cut.
const maxFormBytes = maxUnitLen * 1024

// malformedMessage says what is wrong with a 2xx body that could not be
// used, in terms a user can act on, quoting its first bytes (masked, then
// cut). name is the operation ("DeepSeek Search").
func malformedMessage(name string, err error, body []byte, cfg *Config, redact func(string) string) string {
	we, ok := errors.AsType[*wire.Error](err)
	if !ok {
		return name + " failed: DeepSeek returned a response that could not be read"
	}
	first := " (first bytes: " + excerpt(body, excerptChars, redact) + ")"
	var msg string
	switch we.Problem {
	case wire.NotJSON:
		if len(bytes.TrimSpace(body)) == 0 {
			return name + " failed: DeepSeek returned an empty response"
		}
		msg = "DeepSeek returned a response that is not JSON" + first
		if cfg != nil && cfg.BaseURL != DefaultBaseURL {
			msg += "; check that baseURL " + strconv.Quote(cfg.BaseURL) + " is DeepSeek's API"
		}
	case wire.Broken:
		if we.Offset >= len(body) {
			msg = "DeepSeek returned JSON that breaks off after " + thousands(len(body)) + " bytes (the response was cut short; try again)" + first
		} else {
			msg = "DeepSeek returned invalid JSON (at byte " + thousands(we.Offset+1) + " of " + thousands(len(body)) + ")" + first
		}
	case wire.NotObject:
		msg = "DeepSeek returned JSON that is not an object" + first
	case wire.ResultsNotList:
		return name + ` failed: DeepSeek returned "results" that is not a list` + first
	case wire.TooManyResults:
		return name + " failed: DeepSeek returned more than " + strconv.Itoa(wire.MaxResults) + " results (it sends at most " + "50" + "), so the response was not used"
	default:
		return name + " failed: DeepSeek returned a response that could not be read" + first
	}
	return name + " failed: " + msg
}

// excerpt gives the first n code points of body with white space and
// control characters collapsed. Only a bounded prefix is read; it is
// masked before it is cut, and long enough past the cut that a key
// straddling the cut is masked whole.
func excerpt(body []byte, n int, redact func(string) string) string {
	limit := 4*n + maxFormBytes
	var b strings.Builder
	space, more := false, false
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		i += size
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if b.Len() >= limit {
			more = true
			break
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	s := b.String()
	if redact != nil {
		s = redact(s)
	}
	cut := clip(s, n)
	if cut != s || more {
		cut += "…"
	}
	return cut
}
