// Package wire decodes DeepSeek's Search and Fetch response bodies leniently:
// every field may be missing, null or of an unexpected type, and only a body
// that is not a JSON object at all is an error.
//
// The decoders are hand-written and stream over the body once (decode.go):
// they allocate only what they keep, stop at MaxResults, skip fields over
// their size limit without decoding them, and nest to encoding/json's
// depth limit without recursion. On valid JSON they give what encoding/json
// gives (FuzzDecodeSearchEquivalence checks it).
package wire

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrNotJSON is returned for bodies that are not a JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// SearchItem is one entry of a search response's results array. Missing or
// ill-typed fields are zero, with the Has* flags telling numbers apart.
type SearchItem struct {
	URL, Title, Snippet, Summary, Date, SiteName string
	Rerank, Authority                            float64
	HasRerank, HasAuthority                      bool
}

// FetchPage is a decoded fetch response.
type FetchPage struct {
	Title, Content string
}

// ErrorMessage extracts DeepSeek's error message from an error body:
// {"error":{"message":...}}, {"error":"..."} or {"message":...}. When none is
// found it falls back to the raw body, whitespace-collapsed and cut to 300
// code points. It returns "" for an empty body.
func ErrorMessage(body []byte) string { return ErrorMessageRedacted(body, nil) }

// ErrorMessageRedacted is ErrorMessage with redact applied to the message
// before it is cut, so nothing redact removes can survive as a prefix at the
// cut. A nil redact changes nothing.
func ErrorMessageRedacted(body []byte, redact func(string) string) string {
	if e, ok := decodeError(body); ok {
		for _, m := range []string{e.inner, e.str, e.message} {
			if m := clean([]byte(m), redact); m != "" {
				return m
			}
		}
	}
	return clean(body, redact)
}

// errorBody is what an error body may say: error.message, error (a
// string) and message.
type errorBody struct{ inner, str, message string }

func decodeError(body []byte) (errorBody, bool) {
	var e errorBody
	d := &dec{b: body}
	if !d.bodyIsObject() {
		return e, false
	}
	ok := d.object(func(name []byte) bool {
		switch {
		case nameSelects(name, "error"):
			e.inner, e.str = "", ""
			if d.b[d.i] == '{' {
				return d.object(func(name []byte) bool {
					if nameSelects(name, "message") {
						return d.stringField(&e.inner, len(d.b))
					}
					return d.skip()
				})
			}
			return d.stringField(&e.str, len(d.b))
		case nameSelects(name, "message"):
			return d.stringField(&e.message, len(d.b))
		}
		return d.skip()
	})
	return e, ok && d.end()
}

// maxMessage is the most code points of an error message shown.
const maxMessage = 300

// maskSlack is the longest text one masked form of a key can span (six
// bytes per key byte, keys of at most 1,024 bytes): a window that much
// longer than what is shown is redacted before it is cut, so a key
// straddling the cut is masked whole.
const maskSlack = 6*1024 + 16

// clean collapses white space and control characters, redacts, and cuts to
// 300 code points. Only a bounded prefix of b is read, so a 5 MiB body
// costs what a short one does.
func clean(b []byte, redact func(string) string) string {
	window := 4*maxMessage + maskSlack
	out := make([]byte, 0, min(len(b), window+4))
	space := false
	for i := 0; i < len(b) && len(out) < window; {
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r <= ' ' || r == 0x7f || r == utf8.RuneError {
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = utf8.AppendRune(out, r)
	}
	s := string(out)
	if redact != nil {
		s = redact(s)
	}
	if n := 0; len(s) > maxMessage {
		for i := range s {
			if n == maxMessage {
				return strings.TrimRight(s[:i], " ")
			}
			n++
		}
	}
	return s
}

func isNaNOrInf(f float64) bool { return f != f || f > 1e308 || f < -1e308 }
