package abi

import (
	"errors"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
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
	d := jsonlite.NewDecoder(data)
	err := d.Members(func(name []byte) error {
		var err error
		switch {
		case jsonlite.EqualFold(name, "v"):
			err = d.Int(&s.V)
		case jsonlite.EqualFold(name, "kind"):
			err = knownString(&d, &s.Kind, KindSearch, KindFetch, KindWebsearch, KindTool, KindPlan)
		case jsonlite.EqualFold(name, "options"):
			s.Options, err = d.Raw()
		case jsonlite.EqualFold(name, "apiKey"):
			err = d.String(&s.APIKey)
		case jsonlite.EqualFold(name, "input"):
			s.Input, err = d.Raw()
		default:
			err = d.Skip()
		}
		return err
	})
	return s, err
}

// knownString decodes a string as d.String does into *s; a value that is
// one of names costs no allocation.
func knownString(d *jsonlite.Decoder, s *string, names ...string) error {
	v, ok, err := d.StringBytes()
	if !ok {
		return err
	}
	for _, n := range names {
		if string(v) == n {
			*s = n
			return nil
		}
	}
	*s = string(v)
	return nil
}

var replyKinds = []string{string(core.ReplyResponse), string(core.ReplyNetwork), string(core.ReplyTimeout), string(core.ReplyTooLarge), string(core.ReplyCancelled)}

var errNotInput = errors.New("abi: DecodeInput takes a pointer to one of this package's input types")

// DecodeInput decodes a start envelope's input object into one of the
// input types of this package (*SearchInput, *FetchInput, *PlanInput,
// *WebsearchInput, *ToolInput).
func DecodeInput(data []byte, v any) error {
	switch v.(type) {
	case *SearchInput, *FetchInput, *PlanInput, *WebsearchInput, *ToolInput:
	default:
		return errNotInput
	}
	d := jsonlite.NewDecoder(data)
	return d.Members(func(name []byte) error {
		var err error
		switch in := v.(type) {
		case *SearchInput:
			switch {
			case jsonlite.EqualFold(name, "query"):
				err = d.String(&in.Query)
			case jsonlite.EqualFold(name, "oriQuestion"):
				err = d.String(&in.OriQuestion)
			default:
				err = d.Skip()
			}
		case *FetchInput:
			switch {
			case jsonlite.EqualFold(name, "url"):
				err = d.String(&in.URL)
			case jsonlite.EqualFold(name, "format"):
				err = d.String(&in.Format)
			case jsonlite.EqualFold(name, "offset"):
				err = d.Int(&in.Offset)
			default:
				err = d.Skip()
			}
		case *PlanInput:
			if jsonlite.EqualFold(name, "host") {
				return d.String(&in.Host)
			}
			err = d.Skip()
		case *WebsearchInput:
			if jsonlite.EqualFold(name, "query") {
				return d.String(&in.Query)
			}
			err = d.Skip()
		case *ToolInput:
			switch {
			case jsonlite.EqualFold(name, "tool"):
				err = d.String(&in.Tool)
			case jsonlite.EqualFold(name, "args"):
				in.Args, err = d.Raw()
			default:
				err = d.Skip()
			}
		default:
			return errNotInput
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
		b = jsonlite.AppendArray(b, r.Headers, func(b []byte, h *[2]string) []byte { return jsonlite.AppendStrings(b, h[:]) })
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
		b = append(b, `,"warnings":`...)
		b = jsonlite.AppendStrings(b, s.Warnings)
	}
	if len(s.Steps) > 0 {
		b = append(b, `,"steps":`...)
		b = jsonlite.AppendArray(b, s.Steps, func(b []byte, p *Step) []byte { return p.AppendJSON(b) })
	}
	return append(b, '}')
}

// DecodeStep decodes a reply of start, resume or cancel (for hosts written
// in Go); it accepts what json.Unmarshal accepts into a Step whose Result is
// a json.RawMessage, with the same values (FuzzDecodeStep).
func DecodeStep(data []byte) (Step, error) {
	var s Step
	err := jsonlite.DecodeObject(data, s.member)
	return s, err
}

// member decodes the step's member key into s, as json.Unmarshal does into
// a Step that already holds values (a batch's parts reuse the elements of
// Steps).
func (s *Step) member(d *jsonlite.Decoder, key string) error {
	var err error
	switch {
	case strings.EqualFold(key, "v"):
		err = d.Int(&s.V)
	case strings.EqualFold(key, "handle"):
		err = d.Uint32(&s.Handle)
	case strings.EqualFold(key, "step"):
		err = d.String(&s.Step)
	case strings.EqualFold(key, "request"):
		if d.Null() {
			s.Request = nil
			return nil
		}
		if s.Request == nil {
			s.Request = &Request{}
		}
		err = s.Request.decode(d)
	case strings.EqualFold(key, "result"):
		s.Result, err = d.Raw()
	case strings.EqualFold(key, "error"):
		if d.Null() {
			s.Error = nil
			return nil
		}
		if s.Error == nil {
			s.Error = &Error{}
		}
		e := s.Error
		err = d.Object(func(d *jsonlite.Decoder, key string) error {
			switch {
			case strings.EqualFold(key, "code"):
				return d.String(&e.Code)
			case strings.EqualFold(key, "message"):
				return d.String(&e.Message)
			case strings.EqualFold(key, "status"):
				return d.Int(&e.Status)
			}
			return d.Skip()
		})
	case strings.EqualFold(key, "warnings"):
		err = decodeSlice(d, &s.Warnings, func(d *jsonlite.Decoder, w *string) error { return d.String(w) })
	case strings.EqualFold(key, "steps"):
		err = decodeSlice(d, &s.Steps, func(d *jsonlite.Decoder, p *Step) error {
			if d.Null() {
				return nil
			}
			return d.Object(p.member)
		})
	default:
		err = d.Skip()
	}
	return err
}

func (r *Request) decode(d *jsonlite.Decoder) error {
	return d.Object(func(d *jsonlite.Decoder, key string) error {
		switch {
		case strings.EqualFold(key, "delayMs"):
			return d.Int64(&r.DelayMs)
		case strings.EqualFold(key, "method"):
			return d.String(&r.Method)
		case strings.EqualFold(key, "url"):
			return d.String(&r.URL)
		case strings.EqualFold(key, "headers"):
			return decodeSlice(d, &r.Headers, func(d *jsonlite.Decoder, h *[2]string) error {
				if d.Null() {
					return nil
				}
				n := 0
				err := d.Array(func(d *jsonlite.Decoder, i int) error {
					n = i + 1
					if i < len(h) {
						return d.String(&h[i])
					}
					return d.Skip()
				})
				for i := n; i < len(h); i++ {
					h[i] = ""
				}
				return err
			})
		case strings.EqualFold(key, "body"):
			return d.String(&r.Body)
		case strings.EqualFold(key, "timeoutMs"):
			return d.Int64(&r.TimeoutMs)
		case strings.EqualFold(key, "maxBytes"):
			return d.Int64(&r.MaxBytes)
		case strings.EqualFold(key, "redirect"):
			return d.String(&r.Redirect)
		case strings.EqualFold(key, "attempt"):
			return d.Int(&r.Attempt)
		}
		return d.Skip()
	})
}

// decodeSlice decodes an array into *list as encoding/json does: null sets
// nil, [] an empty slice, and elements are decoded into the slice's
// existing elements where it has them (a repeated name merges).
func decodeSlice[E any](d *jsonlite.Decoder, list *[]E, elem func(d *jsonlite.Decoder, e *E) error) error {
	if d.Null() {
		*list = nil
		return nil
	}
	l, n := *list, 0
	err := d.Array(func(d *jsonlite.Decoder, i int) error {
		if i >= cap(l) {
			l = append(l[:cap(l)], *new(E))[:len(l)]
		}
		if i >= len(l) {
			l = l[:i+1]
		}
		n = i + 1
		return elem(d, &l[i])
	})
	switch {
	case n == 0:
		l = []E{}
	case n < len(l):
		l = l[:n]
	}
	*list = l
	return err
}
