package httpdriver

import (
	"bytes"
	"io"
	"log"
	"strings"
	"sync"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// MaskingWriter masks an API key, in every form [core.Redactor] knows, in
// everything written through it. It masks whole lines: a line is held until
// its newline arrives (or Flush), so a key split across two writes is still
// masked. Safe for concurrent use; the standard logger and net/http's
// internal logging may write from other goroutines.
type MaskingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	red *core.Redactor
	buf []byte
}

// NewMaskingWriter returns a MaskingWriter that writes to w with key
// masked; an empty key masks nothing but still passes lines through.
func NewMaskingWriter(w io.Writer, key string) *MaskingWriter {
	return &MaskingWriter{w: w, red: core.NewRedactor(strings.TrimSpace(key))}
}

// Write masks and writes every complete line in p, holding back a trailing
// partial line. It reports len(p) unless the underlying writer fails.
func (m *MaskingWriter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buf = append(m.buf, p...)
	i := bytes.LastIndexByte(m.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	err := m.emit(m.buf[:i+1])
	m.buf = append(m.buf[:0], m.buf[i+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush masks and writes whatever partial line is held.
func (m *MaskingWriter) Flush() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.buf) == 0 {
		return nil
	}
	err := m.emit(m.buf)
	m.buf = m.buf[:0]
	return err
}

func (m *MaskingWriter) emit(b []byte) error {
	_, err := io.WriteString(m.w, m.red.Mask(string(b)))
	return err
}

// RouteStandardLogger sends the standard logger (which net/http uses for
// lines such as "Unsolicited response received on idle HTTP channel
// starting with …", quoting the server's bytes) through w, so nothing a
// library logs bypasses masking.
func RouteStandardLogger(w *MaskingWriter) { log.SetOutput(w) }
