package core

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// clip cuts s to at most n code points, never splitting one.
func clip(s string, n int) string {
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

// runeCount counts code points; invalid bytes count one each.
func runeCount(s string) int { return utf8.RuneCountInString(s) }

// collapse trims s and folds every run of white space into one space.
func collapse(s string) string { return collapseN(s, -1) }

// collapseN is collapse stopped once the result holds n code points (n < 0:
// no limit): enough for ellipsize to cut to n-1, at a cost bounded by n
// rather than by s.
func collapseN(s string, n int) string {
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

// ellipsize cuts s to at most n code points; when cut, it ends with "…"
// inside the limit.
func ellipsize(s string, n int) string {
	if runeCount(s) <= n {
		return s
	}
	return strings.TrimRightFunc(clip(s, n-1), unicode.IsSpace) + "…"
}
