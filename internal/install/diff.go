package install

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff (3 lines of context) from a to b, or ""
// when they are equal. aName and bName label the two sides.
func unifiedDiff(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	ops := diffLines(al, bl)
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// Walk the edit script, emitting hunks around changes.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		aStart, bStart := ops[start].a, ops[start].b
		var na, nb int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, na), hunkRange(bStart, nb))
		for _, o := range ops[start:end] {
			line := o.line
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	// start is the 0-based index of the first line; unified diffs count from
	// 1, and an empty range names the line before it.
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
	a, b int // index of the line in a and b (for '+', a is where it is inserted; for '-', b likewise)
}

func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// diffLines computes a shortest edit script from a to b: common prefix and
// suffix are trimmed, the middle is diffed by longest common subsequence.
// Config files are small; a middle too large for the quadratic table is
// shown as a whole replacement.
func diffLines(a, b []string) []diffOp {
	prefixLen := 0
	for prefixLen < len(a) && prefixLen < len(b) && a[prefixLen] == b[prefixLen] {
		prefixLen++
	}
	suffixLen := 0
	for suffixLen < len(a)-prefixLen && suffixLen < len(b)-prefixLen && a[len(a)-1-suffixLen] == b[len(b)-1-suffixLen] {
		suffixLen++
	}
	var ops []diffOp
	for i := 0; i < prefixLen; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ma, mb := a[prefixLen:len(a)-suffixLen], b[prefixLen:len(b)-suffixLen]
	if len(ma)*len(mb) > 4_000_000 {
		for i, l := range ma {
			ops = append(ops, diffOp{'-', l, prefixLen + i, prefixLen})
		}
		for j, l := range mb {
			ops = append(ops, diffOp{'+', l, prefixLen + len(ma), prefixLen + j})
		}
	} else {
		// lcs[i][j] = length of the LCS of ma[i:] and mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', ma[i], prefixLen + i, prefixLen + j})
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				ops = append(ops, diffOp{'-', ma[i], prefixLen + i, prefixLen + j})
				i++
			default:
				ops = append(ops, diffOp{'+', mb[j], prefixLen + i, prefixLen + j})
				j++
			}
		}
	}
	for k := 0; k < suffixLen; k++ {
		ia, ib := len(a)-suffixLen+k, len(b)-suffixLen+k
		ops = append(ops, diffOp{' ', a[ia], ia, ib})
	}
	return ops
}
