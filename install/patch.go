package install

import "strings"

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
