package install

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Patch is a hash-anchored reverse patch: what init changed in a file, as
// line hunks, so uninstall can put the file back byte for byte while it
// still is exactly as init left it, without the record holding a copy of
// the file. A file that holds credentials is never snapshotted; its patch
// holds only the lines init replaced, and is left out when one of those
// holds a credential (uninstall then removes the entry structurally).
type Patch struct {
	// AfterSHA256 is the SHA-256 of the content init left in the file.
	AfterSHA256 string `json:"afterSHA256"`
	// Hunks, in order; each replaces lines of the written file by the
	// lines that were there before.
	Hunks []Hunk `json:"hunks"`
}

// Hunk replaces Del lines of the written file, starting at line At
// (0-based, counted in the written file), by Old.
type Hunk struct {
	At  int    `json:"at"`
	Del int    `json:"del"`
	Old string `json:"old"`
}

// hunkJSON is a Hunk as records and journals hold it: Old as a string when
// it is valid UTF-8, else as oldBytes (base64) with old empty, since
// encoding/json would write U+FFFD for each invalid byte, and the file
// would not come back byte for byte.
type hunkJSON struct {
	At       int    `json:"at"`
	Del      int    `json:"del"`
	Old      string `json:"old"`
	OldBytes []byte `json:"oldBytes,omitempty"`
}

// InvalidUTF8At returns the offset of the first byte of b that is not
// valid UTF-8, or -1.
func InvalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// MarshalJSON writes the hunk as hunkJSON.
func (h Hunk) MarshalJSON() ([]byte, error) {
	v := hunkJSON{At: h.At, Del: h.Del, Old: h.Old}
	if !utf8.ValidString(h.Old) {
		v.Old, v.OldBytes = "", []byte(h.Old)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n"), err
}

// UnmarshalJSON reads a hunk written by MarshalJSON, or by an earlier
// version (Old always a string).
func (h *Hunk) UnmarshalJSON(data []byte) error {
	var v hunkJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*h = Hunk{At: v.At, Del: v.Del, Old: v.Old}
	if v.OldBytes != nil {
		h.Old = string(v.OldBytes)
	}
	return nil
}

// MakePatch returns the patch that turns after back into before.
func MakePatch(before, after []byte) *Patch {
	p := &Patch{AfterSHA256: SHA(after)}
	ops := diffLines(splitLines(string(before)), splitLines(string(after)))
	var cur *Hunk
	line := 0 // index in after
	for _, o := range ops {
		switch o.kind {
		case ' ':
			if cur != nil {
				p.Hunks = append(p.Hunks, *cur)
				cur = nil
			}
			line++
		case '-':
			if cur == nil {
				cur = &Hunk{At: line}
			}
			cur.Old += o.line
		case '+':
			if cur == nil {
				cur = &Hunk{At: line}
			}
			cur.Del++
			line++
		}
	}
	if cur != nil {
		p.Hunks = append(p.Hunks, *cur)
	}
	return p
}

// Reverse returns the content before init, when cur is exactly what init
// wrote; ok is false otherwise.
func (p *Patch) Reverse(cur []byte) (before []byte, ok bool) {
	if p == nil || SHA(cur) != p.AfterSHA256 {
		return nil, false
	}
	lines := splitLines(string(cur))
	var b strings.Builder
	next := 0
	for _, h := range p.Hunks {
		if h.At < next || h.Del < 0 || h.At+h.Del > len(lines) {
			return nil, false
		}
		for _, l := range lines[next:h.At] {
			b.WriteString(l)
		}
		b.WriteString(h.Old)
		next = h.At + h.Del
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	return []byte(b.String()), true
}

// Old returns the text of every replaced line, to check it for secrets.
func (p *Patch) Old() string {
	var b strings.Builder
	for _, h := range p.Hunks {
		b.WriteString(h.Old)
	}
	return b.String()
}
