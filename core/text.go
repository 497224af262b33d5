package core

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ascii"
)

// clip cuts s to at most n code points, never splitting one.
func clip(s string, n int) string { return s[:cutAt(s, n)] }

// cutAt returns the byte offset where s's code point n starts, or len(s)
// when s has at most n code points (0 for n <= 0). Invalid bytes count one
// each, as in a range loop. Leading ASCII is passed over without decoding.
func cutAt(s string, n int) int {
	if n <= 0 {
		return 0
	}
	if len(s) <= n {
		return len(s)
	}
	i := 0
	for i < n && s[i] < utf8.RuneSelf {
		i++
	}
	if i == n {
		return n
	}
	count := i
	for j := range s[i:] {
		if count == n {
			return i + j
		}
		count++
	}
	return len(s)
}

// runeCount counts code points; invalid bytes count one each.
func runeCount(s string) int { return utf8.RuneCountInString(s) }

// collapse trims s and folds every run of white space into one space.
func collapse(s string) string { return collapseN(s, -1) }

// collapseN is collapse stopped once the result holds n code points (n < 0:
// no limit): enough for ellipsize to cut to n-1, at a cost bounded by n
// rather than by s. Invalid UTF-8 bytes become U+FFFD.
//
// It passes over printable ASCII eight bytes at a time, decodes only non-ASCII
// bytes, and copies nothing while the result is a slice of s (white space
// only trimmed, inner runs already single spaces), as summaries and titles
// usually are, instead of writing rune by rune into a strings.Builder
// (BenchmarkCollapseN compares the two).
func collapseN(s string, n int) string {
	var b strings.Builder // the result once it is no longer a slice of s
	copied := false
	start, end := 0, 0 // the result is s[start:end] while not copied
	count := 0         // code points in the result
	space := false     // white space since the last code point kept
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		if c < utf8.RuneSelf {
			if c <= ' ' && (c == ' ' || c >= '\t' && c <= '\r' || c == 0) {
				space = true
				i++
				continue
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				space = true
				i += size
				continue
			}
		}
		if count == n {
			break
		}
		if count == 0 {
			start = i
		} else if space {
			if !copied && (i-end != 1 || s[end] != ' ') {
				copied = startCopy(&b, s[start:end], len(s)-start, n)
			}
			if copied {
				b.WriteByte(' ')
			} else {
				end++
			}
			if count++; count == n {
				break
			}
		}
		space = false
		switch {
		case c > ' ' && c < utf8.RuneSelf:
			// A run of printable ASCII, up to the limit.
			j, stop := i+1, len(s)
			if n >= 0 {
				stop = min(stop, i+n-count)
			}
			for j < stop {
				if j+8 <= stop && keptByCollapse(ascii.Load8(s[j:])) {
					j += 8 // eight bytes that are already collapsed
				} else if c := s[j]; c > ' ' && c < utf8.RuneSelf {
					j++
				} else {
					break
				}
			}
			size = j - i
		case size == 1 && c >= utf8.RuneSelf: // invalid UTF-8
			if !copied {
				copied = startCopy(&b, s[start:i], len(s)-start+2, n)
			}
			b.WriteString("\uFFFD")
			i++
			end = i
			count++
			continue
		}
		if copied {
			b.WriteString(s[i : i+size])
		}
		i += size
		end = i
		if size > 1 && c < utf8.RuneSelf {
			count += size
		} else {
			count++
		}
	}
	if copied {
		return b.String()
	}
	return s[start:end]
}

// keptByCollapse reports whether collapseN keeps the eight bytes in x,
// following a code point it keeps, as they are: printable ASCII (0x20 to
// 0x7f) whose spaces are single and followed by another of the eight bytes
// (SWAR, with the tests of package ascii; sp has the high bit of each space
// byte).
func keptByCollapse(x uint64) bool {
	const lows = 0x7f7f7f7f7f7f7f7f
	if x&ascii.Highs|ascii.BelowByteMask(x, 0x20) != 0 || x>>56 == ' ' {
		return false
	}
	t := x ^ ascii.Ones*' '
	sp := ^(t&lows + lows | t) & ascii.Highs
	return sp&(sp>>8) == 0
}

// startCopy starts collapseN's copy of its result with head, sized for
// the rest of s (rest bytes) or for n code points, whichever is less.
func startCopy(b *strings.Builder, head string, rest, n int) bool {
	if n >= 0 {
		rest = min(rest, n+8)
	}
	b.Grow(max(rest, len(head)+3))
	b.WriteString(head)
	return true
}

// ellipsize cuts s to at most n code points; when cut, it ends with "…"
// inside the limit.
func ellipsize(s string, n int) string {
	if n > 0 && cutAt(s, n) == len(s) || n == 0 && s == "" {
		return s
	}
	return strings.TrimRightFunc(clip(s, n-1), unicode.IsSpace) + "…"
}
