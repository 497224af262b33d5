package abi

import (
	"unsafe"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// DecodeCoreReply decodes the resume export's metadata (a Reply) straight
// into the core's form, with body: what decoding a Reply with
// encoding/json and then Reply.Core give (FuzzDecodeReply checks it),
// except that the headers come in the order their names first appear
// rather than in a map's random order. v is the envelope's "v".
//
// It exists because it runs on every step: a map, a string per header name
// and value, and the slice Core builds were five allocations for the one
// header a response usually has. Here the kind is a constant, and the
// headers are one slice and one string holding every name and value.
func DecodeCoreReply(data, body []byte) (v int, r core.Reply, err error) {
	var kind string
	d := jsonlite.NewDecoder(data)
	err = d.Members(func(name []byte) error {
		switch {
		case jsonlite.EqualFold(name, "v"):
			return d.Int(&v)
		case jsonlite.EqualFold(name, "kind"):
			return knownString(&d, &kind, replyKinds...)
		case jsonlite.EqualFold(name, "status"):
			return d.Int(&r.Status)
		case jsonlite.EqualFold(name, "message"):
			return d.String(&r.Message)
		case jsonlite.EqualFold(name, "headers"):
			if d.Null() {
				r.Header = nil
				return nil
			}
			return d.ObjectMembers(func(name []byte) error {
				value, _, err := d.StringBytes() // null sets "", as in a map
				if err != nil {
					return err
				}
				// The names and values are views of data until the copy
				// below. A repeated name (exactly: map keys) takes the new
				// value; a response has a few dozen headers at most, so the
				// search stays short.
				for i := range r.Header {
					if r.Header[i].Name == string(name) {
						r.Header[i].Value = stringView(value)
						return nil
					}
				}
				r.Header = append(r.Header, core.HeaderField{Name: stringView(name), Value: stringView(value)})
				return nil
			})
		}
		return d.Skip()
	})
	r.Kind, r.Body = core.ReplyKind(kind), body
	if err != nil || len(r.Header) == 0 {
		r.Header = nil
		return v, r, err
	}
	n := 0
	for _, h := range r.Header {
		n += len(h.Name) + len(h.Value)
	}
	all := make([]byte, 0, n) // never grows: the views stay valid
	for i := range r.Header {
		h := &r.Header[i]
		all = append(all, h.Name...)
		h.Name = stringView(all[len(all)-len(h.Name):])
		all = append(all, h.Value...)
		h.Value = stringView(all[len(all)-len(h.Value):])
	}
	return v, r, nil
}

// stringView is b as a string, without a copy: b must not change while the
// string is in use.
func stringView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
