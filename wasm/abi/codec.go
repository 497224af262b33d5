package abi

import (
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The envelopes are decoded and encoded by hand, not with encoding/json:
// they are read and written on every call into the module, and reflection
// made them a noticeable part of a step's time. The decoders accept exactly
// what json.Unmarshal accepts into the same structs and produce the same
// values (field names matched case-insensitively, the last of repeated
// names winning, unknown names skipped, null leaving a field unset, invalid
// UTF-8 in strings replaced by U+FFFD); FuzzDecodeStart and FuzzDecodeReply
// check that against encoding/json. Their error messages are their own.

// DecodeStart decodes the start export's envelope.
func DecodeStart(data []byte) (Start, error) {
	var s Start
	err := jsonlite.DecodeObject(data, func(d *jsonlite.Decoder, key string) error {
		var err error
		switch {
		case strings.EqualFold(key, "v"):
			err = d.Int(&s.V)
		case strings.EqualFold(key, "kind"):
			err = d.String(&s.Kind)
		case strings.EqualFold(key, "options"):
			s.Options, err = d.Raw()
		case strings.EqualFold(key, "apiKey"):
			err = d.String(&s.APIKey)
		case strings.EqualFold(key, "input"):
			s.Input, err = d.Raw()
		default:
			err = d.Skip()
		}
		return err
	})
	return s, err
}

// DecodeReply decodes the resume export's metadata.
func DecodeReply(data []byte) (Reply, error) {
	var r Reply
	err := jsonlite.DecodeObject(data, func(d *jsonlite.Decoder, key string) error {
		switch {
		case strings.EqualFold(key, "v"):
			return d.Int(&r.V)
		case strings.EqualFold(key, "kind"):
			return d.String(&r.Kind)
		case strings.EqualFold(key, "status"):
			return d.Int(&r.Status)
		case strings.EqualFold(key, "message"):
			return d.String(&r.Message)
		case strings.EqualFold(key, "headers"):
			if d.Null() {
				r.Headers = nil
				return nil
			}
			if r.Headers == nil {
				r.Headers = map[string]string{}
			}
			return d.Object(func(d *jsonlite.Decoder, name string) error {
				v := ""
				if err := d.String(&v); err != nil {
					return err
				}
				r.Headers[name] = v
				return nil
			})
		}
		return d.Skip()
	})
	return r, err
}

// DecodeInput decodes a start envelope's input object into one of the
// input types of this package (*SearchInput, *FetchInput, *PlanInput,
// *WebsearchInput, *ToolInput).
func DecodeInput(data []byte, v any) error {
	return jsonlite.DecodeObject(data, func(d *jsonlite.Decoder, key string) error {
		var err error
		switch in := v.(type) {
		case *SearchInput:
			switch {
			case strings.EqualFold(key, "query"):
				err = d.String(&in.Query)
			case strings.EqualFold(key, "oriQuestion"):
				err = d.String(&in.OriQuestion)
			default:
				err = d.Skip()
			}
		case *FetchInput:
			switch {
			case strings.EqualFold(key, "url"):
				err = d.String(&in.URL)
			case strings.EqualFold(key, "format"):
				err = d.String(&in.Format)
			case strings.EqualFold(key, "offset"):
				err = d.Int(&in.Offset)
			default:
				err = d.Skip()
			}
		case *PlanInput:
			if strings.EqualFold(key, "host") {
				return d.String(&in.Host)
			}
			err = d.Skip()
		case *WebsearchInput:
			if strings.EqualFold(key, "query") {
				return d.String(&in.Query)
			}
			err = d.Skip()
		case *ToolInput:
			switch {
			case strings.EqualFold(key, "tool"):
				err = d.String(&in.Tool)
			case strings.EqualFold(key, "args"):
				in.Args, err = d.Raw()
			default:
				err = d.Skip()
			}
		default:
			return errors.New("abi: DecodeInput takes a pointer to one of this package's input types")
		}
		return err
	})
}

// AppendJSON appends the step as JSON, byte for byte what json.Marshal
// writes for it (Result is written as it is: it must be compact JSON
// already, as json.Marshal writes it).
func (s *Step) AppendJSON(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(s.V), 10)
	if s.Handle != 0 {
		b = append(b, `,"handle":`...)
		b = strconv.AppendUint(b, uint64(s.Handle), 10)
	}
	b = append(b, `,"step":`...)
	b = jsonlite.AppendString(b, s.Step)
	if r := s.Request; r != nil {
		b = append(b, `,"request":{"delayMs":`...)
		b = strconv.AppendInt(b, r.DelayMs, 10)
		b = append(b, `,"method":`...)
		b = jsonlite.AppendString(b, r.Method)
		b = append(b, `,"url":`...)
		b = jsonlite.AppendString(b, r.URL)
		b = append(b, `,"headers":`...)
		if r.Headers == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, h := range r.Headers {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, '[')
				b = jsonlite.AppendString(b, h[0])
				b = append(b, ',')
				b = jsonlite.AppendString(b, h[1])
				b = append(b, ']')
			}
			b = append(b, ']')
		}
		b = append(b, `,"body":`...)
		b = jsonlite.AppendString(b, r.Body)
		b = append(b, `,"timeoutMs":`...)
		b = strconv.AppendInt(b, r.TimeoutMs, 10)
		b = append(b, `,"maxBytes":`...)
		b = strconv.AppendInt(b, r.MaxBytes, 10)
		b = append(b, `,"redirect":`...)
		b = jsonlite.AppendString(b, r.Redirect)
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
		b = append(b, '}')
	}
	if len(s.Result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, s.Result...)
	}
	if e := s.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = jsonlite.AppendString(b, e.Code)
		b = append(b, `,"message":`...)
		b = jsonlite.AppendString(b, e.Message)
		if e.Status != 0 {
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(e.Status), 10)
		}
		b = append(b, '}')
	}
	if len(s.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range s.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonlite.AppendString(b, w)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
