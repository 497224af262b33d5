package abi

import (
	"bytes"
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The envelopes' encoding/json methods, for hosts written in Go; the
// module itself writes and reads them with codec.go.

// MarshalJSON writes the envelope as encoding/json would if Options and
// Input were json.RawMessage (for hosts written in Go).
func (s Start) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"v":`), strconv.Itoa(s.V)...)
	b = append(b, `,"kind":`...)
	b = jsonlite.AppendString(b, s.Kind)
	if len(s.Options) > 0 {
		b = append(b, `,"options":`...)
		b = append(b, s.Options...)
	}
	if s.APIKey != "" {
		b = append(b, `,"apiKey":`...)
		b = jsonlite.AppendString(b, s.APIKey)
	}
	if len(s.Input) > 0 {
		b = append(b, `,"input":`...)
		b = append(b, s.Input...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes the envelope with [DecodeStart], keeping a copy of
// Options and Input.
func (s *Start) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // encoding/json's convention: null leaves the value as it is
	}
	v, err := DecodeStart(bytes.Clone(data))
	if err == nil {
		*s = v
	}
	return err
}

// MarshalJSON writes the input as encoding/json would if Args were
// json.RawMessage.
func (t ToolInput) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"tool":`), jsonlite.AppendString(nil, t.Tool)...)
	b = append(b, `,"args":`...)
	b = jsonlite.AppendRaw(b, t.Args)
	return append(b, '}'), nil
}

// UnmarshalJSON decodes the input with [DecodeInput], keeping a copy of
// Args.
func (t *ToolInput) UnmarshalJSON(data []byte) error {
	return DecodeInput(bytes.Clone(data), t)
}

// MarshalJSON writes the step with [Step.AppendJSON].
func (s Step) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// UnmarshalJSON decodes the step with [DecodeStep], keeping a copy of
// Result.
func (s *Step) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // encoding/json's convention: null leaves the value as it is
	}
	v, err := DecodeStep(bytes.Clone(data))
	if err == nil {
		*s = v
	}
	return err
}
