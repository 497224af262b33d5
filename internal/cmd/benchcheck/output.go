package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// benchHeadings returns the headings the Makefile's bench recipes echo
// (`@echo "== module size: plugin/core.wasm"` gives "module size: plugin/core.wasm"),
// in order.
func benchHeadings(makefile string) []string {
	var headings []string
	for _, line := range benchRecipe(makefile) {
		_, rest, ok := strings.Cut(line, "echo ")
		if !ok {
			continue
		}
		rest = strings.Trim(strings.TrimSpace(rest), `"'`)
		if h, ok := strings.CutPrefix(rest, "== "); ok {
			headings = append(headings, strings.TrimSpace(h))
		}
	}
	return headings
}

// benchTarget is a rule line of a bench target: bench, bench-run, bench-load...
var benchTarget = regexp.MustCompile(`^bench(-[\w-]+)?\s*:`)

// benchRecipe returns the recipe lines of the Makefile's bench targets, in order.
func benchRecipe(makefile string) []string {
	var recipe []string
	in := false
	for line := range strings.Lines(makefile) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "\t"):
			if in {
				recipe = append(recipe, strings.TrimSpace(line))
			}
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			in = in && strings.TrimSpace(line) == ""
		default:
			in = benchTarget.MatchString(line) && !strings.Contains(line, "=")
		}
	}
	return recipe
}

// resolveHeading returns the one Makefile heading that starts with prefix.
func resolveHeading(prefix string, headings []string) (string, error) {
	var found []string
	for _, h := range headings {
		if strings.HasPrefix(h, prefix) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("heading %q: the Makefile's bench recipe echoes no such heading", prefix)
	}
	return "", fmt.Errorf("heading %q: matches %d headings (%s); write more of it", prefix, len(found), strings.Join(found, "; "))
}

// section returns the lines under "== heading" up to the next heading in headings.
func section(lines []string, heading string, headings []string) ([]string, bool) {
	isHeading := func(l string) bool {
		h, ok := strings.CutPrefix(strings.TrimSpace(l), "== ")
		return ok && slices.Contains(headings, strings.TrimSpace(h))
	}
	for i, l := range lines {
		if strings.TrimSpace(l) != "== "+heading {
			continue
		}
		end := i + 1
		for end < len(lines) && !isHeading(lines[end]) {
			end++
		}
		return lines[i+1 : end], true
	}
	return nil, false
}

// benchLine is one result line of `go test -bench`.
type benchLine struct {
	name    string             // as printed, "BenchmarkFirstOpen/new-2"
	n       int64              // iterations
	metrics map[string]float64 // by unit: "ns/op", "B/op", "allocs/op", and every b.ReportMetric
}

// parseBenchLine reads "BenchmarkX/sub-2  1000  1234 ns/op  56 B/op  3 allocs/op  2.5 MB-rss".
func parseBenchLine(line string) (benchLine, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return benchLine{}, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return benchLine{}, false
	}
	b := benchLine{name: f[0], n: n, metrics: map[string]float64{}}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return benchLine{}, false
		}
		b.metrics[f[i+1]] = v
	}
	return b, true
}

// sameBenchmark reports whether a printed name is want, with or without Go's -N GOMAXPROCS suffix.
func sameBenchmark(printed, want string) bool {
	if printed == want {
		return true
	}
	rest, ok := strings.CutPrefix(printed, want+"-")
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.Atoi(rest)
	return err == nil
}

// patternRE compiles a printed line with {} for the value: white space matches any run of it.
func patternRE(pattern string) *regexp.Regexp {
	anchored := strings.HasPrefix(pattern, "^")
	pattern = strings.TrimPrefix(pattern, "^")
	before, after, _ := strings.Cut(pattern, "{}")
	quote := func(s string) string {
		return strings.Join(strings.Fields(regexp.QuoteMeta(s)), `\s+`)
	}
	expr := quote(before)
	if strings.HasSuffix(before, " ") {
		expr += `\s+`
	}
	expr += `(` + numberRE.String() + `)`
	if strings.HasPrefix(after, " ") {
		expr += `\s+`
	}
	expr += quote(after)
	if anchored {
		expr = `^\s*` + expr
	}
	return regexp.MustCompile(expr)
}

// measure finds the row's value in its section, in the unit the output prints it.
func measure(r row, sec []string) (float64, error) {
	if r.within != "" {
		i := slices.IndexFunc(sec, func(l string) bool { return strings.Contains(l, r.within) })
		if i < 0 {
			return 0, fmt.Errorf("no line %q under the heading", r.within)
		}
		sec = sec[i+1:]
	}
	if r.bench != "" {
		var values []float64
		seen := false
		for _, l := range sec {
			b, ok := parseBenchLine(l)
			if !ok || !sameBenchmark(b.name, r.bench) {
				continue
			}
			seen = true
			if v, ok := b.metrics[r.unit]; ok {
				values = append(values, v)
			}
		}
		switch {
		case !seen:
			return 0, fmt.Errorf("no line of %s", r.bench)
		case len(values) == 0:
			return 0, fmt.Errorf("%s prints no %s", r.bench, r.unit)
		}
		slices.Sort(values)
		return values[len(values)/2], nil
	}
	re := patternRE(r.pattern)
	for _, l := range sec {
		if m := re.FindStringSubmatch(l); m != nil {
			return parseNumber(m[1])
		}
	}
	return 0, fmt.Errorf("no line matching %q", r.pattern)
}

// state is how a row fared.
type state int

const (
	ok      state = iota
	drift         // measured, but past the tolerance
	missing       // nothing in the output printed it
)

// result is one row checked.
type result struct {
	row      row
	state    state
	measured float64 // in the written unit
	ratio    float64 // measured / written
	why      string  // for missing
}

// check finds every row in out. It fails only when the table names a heading
// the Makefile does not echo; a row the output lacks is a missing result.
func check(rows []row, headings []string, out string) ([]result, error) {
	lines := strings.Split(out, "\n")
	var results []result
	for _, r := range rows {
		heading, err := resolveHeading(r.heading, headings)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		res := result{row: r}
		sec, found := section(lines, heading, headings)
		if !found {
			res.state, res.why = missing, "no heading == "+heading
			results = append(results, res)
			continue
		}
		v, err := measure(r, sec)
		if err != nil {
			res.state, res.why = missing, err.Error()
			results = append(results, res)
			continue
		}
		res.measured, _, err = convert(v, r.printedUnit(), r.writtenUnit)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", r.line, err)
		}
		res.ratio = res.measured / r.value
		if !r.tolerance.within(res.ratio) {
			res.state = drift
		}
		results = append(results, res)
	}
	return results, nil
}
