package core

import (
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// This file writes the request bodies sent to DeepSeek without
// encoding/json (which pulls reflect into the WebAssembly module), byte
// for byte as json.Marshal wrote them: the same member order, omitempty
// members left out, strings escaped the way Marshal escapes them (<, >, &,
// U+2028 and U+2029 as \u escapes, invalid UTF-8 as \ufffd), raw content
// blocks compacted. jsonenc_test.go holds each body equal to json.Marshal
// of the struct it replaced, and fuzzes the string and raw writers.

// requestBody is a request body that writes its own JSON.
type requestBody interface {
	// appendJSON appends the body's JSON to dst.
	appendJSON(dst []byte) []byte
}

func (b searchBody) appendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, 96+len(b.Query)+len(b.OriQuestion)+len(b.Location))
	dst = append(dst, `{"query":`...)
	dst = appendRequestString(dst, b.Query)
	dst = append(dst, `,"count":`...)
	dst = strconv.AppendInt(dst, int64(b.Count), 10)
	dst = append(dst, `,"need_content":`...)
	dst = strconv.AppendBool(dst, b.NeedContent)
	if b.OriQuestion != "" {
		dst = append(dst, `,"ori_question":`...)
		dst = appendRequestString(dst, b.OriQuestion)
	}
	if b.Location != "" {
		dst = append(dst, `,"localization":`...)
		dst = appendRequestString(dst, b.Location)
	}
	return append(dst, '}')
}

func (b fetchBody) appendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, 16+len(b.URL))
	dst = append(dst, `{"url":`...)
	dst = appendRequestString(dst, b.URL)
	return append(dst, '}')
}

// appendJSON appends the Messages request; the error is json.Marshal's
// for a content block that is not JSON (the decoder hands over only valid
// ones).
func (b messagesBody) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"model":`...)
	dst = appendRequestString(dst, b.Model)
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(b.MaxTokens), 10)
	dst = append(dst, `,"messages":[{"role":"user","content":`...)
	dst = appendRequestString(dst, b.Prompt)
	dst = append(dst, '}')
	if len(b.Blocks) > 0 {
		dst = append(dst, `,{"role":"assistant","content":[`...)
		for i, raw := range b.Blocks {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendRequestRaw(dst, raw); err != nil {
				return nil, err
			}
		}
		dst = append(dst, "]}"...)
	}
	dst = append(dst, `],"tools":[`...)
	dst = b.Tool.appendJSON(dst)
	return append(dst, "]}"...), nil
}

func (t webSearchTool) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendRequestString(dst, t.Type)
	dst = append(dst, `,"name":`...)
	dst = appendRequestString(dst, t.Name)
	dst = append(dst, `,"max_uses":`...)
	dst = strconv.AppendInt(dst, int64(t.MaxUses), 10)
	for _, l := range []struct {
		name string
		list []string
	}{{`,"allowed_domains":[`, t.AllowedDomains}, {`,"blocked_domains":[`, t.BlockedDomains}} {
		if len(l.list) == 0 {
			continue
		}
		dst = append(dst, l.name...)
		for i, s := range l.list {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendRequestString(dst, s)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

const jsonHexDigits = "0123456789abcdef"

// appendRequestString appends s as a JSON string, escaped as json.Marshal
// escapes it.
func appendRequestString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHexDigits[c>>4], jsonHexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendRequestRaw appends raw JSON the way json.Marshal writes a
// json.RawMessage: nil as null, white space outside strings dropped, and
// <, >, &, U+2028 and U+2029 escaped. Text that is not JSON is
// json.Marshal's error.
func appendRequestRaw(dst, raw []byte) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	if _, _, err := parseJSON(raw); err != nil {
		return nil, errors.New("json: error calling MarshalJSON for type json.RawMessage: " + err.Error())
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !inString:
			if c == '"' {
				inString = true
			} else if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
		case c == '"':
			inString = false
		case c == '\\':
			// An escape's second byte is ASCII and never ends the string.
			dst = append(dst, c, raw[i+1])
			i++
			continue
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', jsonHexDigits[c>>4], jsonHexDigits[c&0xf])
			continue
		case c == 0xe2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xa8:
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHexDigits[raw[i+2]&0xf])
			i += 2
			continue
		}
		dst = append(dst, c)
	}
	return dst, nil
}
