package core

import (
	"strings"
	"unicode"
)

// This file keeps the implementations that the faster ones in text.go and
// redact.go replaced, as the reference their equivalence tests and fuzz
// targets compare with (speed_test.go).

// refCollapseN is collapseN as first written: a rune at a time into a
// strings.Builder.
func refCollapseN(s string, n int) string {
	var b strings.Builder
	space := false
	count := 0
	for _, r := range s {
		if unicode.IsSpace(r) || r == 0 {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			if count == n {
				break
			}
			b.WriteByte(' ')
			count++
		}
		if count == n {
			break
		}
		space = false
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// refEllipsize is ellipsize as first written.
func refEllipsize(s string, n int) string {
	if runeCount(s) <= n {
		return s
	}
	return strings.TrimRightFunc(clip(s, n-1), unicode.IsSpace) + "…"
}

// refClip is clip as first written.
func refClip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
