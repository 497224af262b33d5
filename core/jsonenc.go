package core

import (
	"errors"
	"slices"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// This file writes the request bodies sent to DeepSeek without
// encoding/json (which pulls reflect into the WebAssembly module), byte
// for byte as json.Marshal wrote them: the same member order, omitempty
// members left out, strings escaped the way Marshal escapes them (<, >, &,
// U+2028 and U+2029 as \u escapes, invalid UTF-8 as \ufffd), raw content
// blocks compacted. jsonenc_test.go holds each body equal to json.Marshal
// of the struct it replaced, and fuzzes the string and raw writers.

// appendJSON appends the body's JSON to dst.
func (b searchBody) appendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, 96+len(b.Query)+len(b.OriQuestion)+len(b.Location))
	dst = append(dst, `{"query":`...)
	dst = jsonlite.AppendString(dst, b.Query)
	dst = append(dst, `,"count":`...)
	dst = strconv.AppendInt(dst, int64(b.Count), 10)
	dst = append(dst, `,"need_content":`...)
	dst = strconv.AppendBool(dst, b.NeedContent)
	if b.OriQuestion != "" {
		dst = append(dst, `,"ori_question":`...)
		dst = jsonlite.AppendString(dst, b.OriQuestion)
	}
	if b.Location != "" {
		dst = append(dst, `,"localization":`...)
		dst = jsonlite.AppendString(dst, b.Location)
	}
	return append(dst, '}')
}

func (b fetchBody) appendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, 16+len(b.URL))
	dst = append(dst, `{"url":`...)
	dst = jsonlite.AppendString(dst, b.URL)
	return append(dst, '}')
}

// appendJSON appends the Messages request; the error is json.Marshal's
// for a content block that is not JSON (the decoder hands over only valid
// ones).
func (b messagesBody) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"model":`...)
	dst = jsonlite.AppendString(dst, b.Model)
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(b.MaxTokens), 10)
	dst = append(dst, `,"messages":[{"role":"user","content":`...)
	dst = jsonlite.AppendString(dst, b.Prompt)
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
	dst = jsonlite.AppendString(dst, t.Type)
	dst = append(dst, `,"name":`...)
	dst = jsonlite.AppendString(dst, t.Name)
	dst = append(dst, `,"max_uses":`...)
	dst = strconv.AppendInt(dst, int64(t.MaxUses), 10)
	if len(t.AllowedDomains) > 0 {
		dst = append(dst, `,"allowed_domains":`...)
		dst = jsonlite.AppendStrings(dst, t.AllowedDomains)
	}
	if len(t.BlockedDomains) > 0 {
		dst = append(dst, `,"blocked_domains":`...)
		dst = jsonlite.AppendStrings(dst, t.BlockedDomains)
	}
	return append(dst, '}')
}

// AppendJSON appends u as json.Marshal writes it (null for nil); the hosts
// write it into their results.
func (u *Usage) AppendJSON(b []byte) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, u.InputTokens, 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, u.OutputTokens, 10)
	b = append(b, `,"server_tool_use":{"web_search_requests":`...)
	b = strconv.AppendInt(b, u.ServerToolUse.WebSearchRequests, 10)
	b = append(b, `},"requests":`...)
	b = strconv.AppendInt(b, int64(u.Requests), 10)
	return append(b, '}')
}

const jsonHexDigits = "0123456789abcdef"

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
