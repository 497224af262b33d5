package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// tableHeader is the header row of a Figures table, cell by cell, lower-cased.
var tableHeader = []string{"figure", "written", "cited in", "heading", "printed by", "tolerance"}

// row is one row of a Figures table.
type row struct {
	line        int    // in the record, from 1
	figure      string // what the figure is
	written     string // the value as the prose writes it, "21.3 MB"
	value       float64
	writtenUnit string // "MB"; empty for a bare count
	citedFile   string // the record that quotes it, "internal/gateway/RATIONALE.md"
	cited       string // the whole cell: the file and its section
	heading     string // a prefix of a make bench heading, without "== "
	within      string // a line of the section the search starts after; empty for all of it
	bench       string // "BenchmarkFirstOpen/new", or empty for a printed line
	unit        string // the benchmark's unit, "ns/op"
	pattern     string // the printed line with {} for the value, when bench is empty
	tolerance   tolerance
}

// tolerance is how far a measured value may be from the written one.
type tolerance struct {
	text    string  // as written, "±10%"
	percent float64 // ±percent, or 0
	factor  float64 // ×factor, or 0
}

// within reports whether ratio (measured / written) is inside the tolerance.
func (t tolerance) within(ratio float64) bool {
	if t.factor > 0 {
		return ratio >= 1/t.factor && ratio <= t.factor
	}
	return math.Abs(ratio-1) <= t.percent/100
}

func parseTolerance(s string) (tolerance, error) {
	t := tolerance{text: s}
	switch {
	case strings.HasPrefix(s, "±") && strings.HasSuffix(s, "%"):
		v, err := strconv.ParseFloat(strings.TrimSpace(s[len("±"):len(s)-1]), 64)
		if err != nil || v <= 0 {
			return t, fmt.Errorf("tolerance %q: want ±N%% with N > 0", s)
		}
		t.percent = v
	case strings.HasPrefix(s, "×"):
		v, err := strconv.ParseFloat(strings.TrimSpace(s[len("×"):]), 64)
		if err != nil || v <= 1 {
			return t, fmt.Errorf("tolerance %q: want ×N with N > 1", s)
		}
		t.factor = v
	default:
		return t, fmt.Errorf("tolerance %q: want ±N%% or ×N", s)
	}
	return t, nil
}

// readTable reads every Figures table of the record at path.
func readTable(path string) ([]row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rows, err := parseTables(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// parseTables reads the rows of every table in text whose header is tableHeader.
// A record without one is an error: the checker would check nothing.
func parseTables(text string) ([]row, error) {
	lines := strings.Split(text, "\n")
	var rows []row
	var errs []error
	tables := 0
	for i := 0; i < len(lines); i++ {
		cells, ok := tableCells(lines[i])
		if !ok || !isHeader(cells) {
			continue
		}
		tables++
		i++ // the |---| line
		if i >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i]), "|-") {
			errs = append(errs, fmt.Errorf("line %d: a Figures table header without its |---| line", i))
			continue
		}
		for i+1 < len(lines) {
			cells, ok := tableCells(lines[i+1])
			if !ok {
				break
			}
			i++
			r, err := parseRow(cells, i+1)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			rows = append(rows, r)
		}
	}
	if tables == 0 {
		return nil, errors.New("no Figures table (a header | " + strings.Join(tableHeader, " | ") + " |)")
	}
	return rows, errors.Join(errs...)
}

// tableCells splits a Markdown table line into its trimmed cells.
func tableCells(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	if len(line) < 2 || line[0] != '|' || line[len(line)-1] != '|' {
		return nil, false
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells, true
}

func isHeader(cells []string) bool {
	if len(cells) != len(tableHeader) {
		return false
	}
	for i, c := range cells {
		if strings.ToLower(c) != tableHeader[i] {
			return false
		}
	}
	return true
}

// codeSpans returns the texts between backticks in cell.
func codeSpans(cell string) []string {
	parts := strings.Split(cell, "`")
	var spans []string
	for i := 1; i < len(parts); i += 2 {
		spans = append(spans, parts[i])
	}
	return spans
}

// numberRE is a number as prose and benchmarks write it: 21.3, 1,024, 0.5, -3.
var numberRE = regexp.MustCompile(`[-+]?[0-9][0-9,]*(?:\.[0-9]+)?`)

// parseNumber reads a number written with optional thousands separators.
func parseNumber(s string) (float64, error) {
	return strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
}

// parseWritten reads "21.3 MB", "about 115 MB" or "12": the first number and the word after it.
func parseWritten(s string) (float64, string, error) {
	loc := numberRE.FindStringIndex(s)
	if loc == nil {
		return 0, "", fmt.Errorf("written value %q has no number", s)
	}
	v, err := parseNumber(s[loc[0]:loc[1]])
	if err != nil {
		return 0, "", fmt.Errorf("written value %q: %w", s, err)
	}
	rest := strings.Fields(s[loc[1]:])
	unit := ""
	if len(rest) > 0 {
		unit = strings.TrimRight(rest[0], ".,;:)")
	}
	return v, unit, nil
}

func parseRow(cells []string, line int) (row, error) {
	r := row{line: line}
	fail := func(format string, args ...any) (row, error) {
		return r, fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
	}
	if len(cells) != len(tableHeader) {
		return fail("%d cells, want %d", len(cells), len(tableHeader))
	}
	r.figure, r.written, r.cited = cells[0], cells[1], cells[2]
	if r.figure == "" {
		return fail("no figure named")
	}
	var err error
	if r.value, r.writtenUnit, err = parseWritten(r.written); err != nil {
		return fail("%v", err)
	}
	if r.value == 0 {
		return fail("written value %q is zero: a ratio to it means nothing", r.written)
	}
	if spans := codeSpans(r.cited); len(spans) > 0 {
		r.citedFile = spans[0]
	} else {
		return fail("cited in %q: name the record in backticks", r.cited)
	}
	heading := strings.Trim(cells[3], "` ")
	heading = strings.TrimSpace(strings.TrimPrefix(heading, "=="))
	heading, r.within, _ = strings.Cut(heading, "›")
	r.heading, r.within = strings.TrimSpace(heading), strings.Trim(strings.TrimSpace(r.within), "`")
	if r.heading == "" {
		return fail("no heading")
	}
	spans := codeSpans(cells[4])
	switch {
	case len(spans) == 2 && strings.HasPrefix(spans[0], "Benchmark"):
		r.bench, r.unit = spans[0], spans[1]
		if strings.ContainsAny(r.bench, " \t") || strings.ContainsAny(r.unit, " \t") || r.unit == "" {
			return fail("printed by %q: a benchmark name and a unit, each in backticks", cells[4])
		}
	case len(spans) == 1 && strings.Count(spans[0], "{}") == 1:
		r.pattern = spans[0]
	default:
		return fail("printed by %q: want `BenchmarkName` `unit`, or a printed line in backticks with {} for the number", cells[4])
	}
	if r.tolerance, err = parseTolerance(strings.Trim(cells[5], "` ")); err != nil {
		return fail("%v", err)
	}
	if _, _, err := convert(1, r.printedUnit(), r.writtenUnit); err != nil {
		return fail("%v", err)
	}
	return r, nil
}

// printedUnit is the unit the output prints the value in: the benchmark's, or the word after {}.
func (r row) printedUnit() string {
	if r.bench != "" {
		return r.unit
	}
	_, after, _ := strings.Cut(r.pattern, "{}")
	if f := strings.Fields(after); len(f) > 0 {
		return strings.TrimRight(f[0], ".,;:)")
	}
	return ""
}

// scales are the units a value converts between, by dimension, in the dimension's base unit.
var scales = map[string]struct {
	dim   string
	scale float64
}{
	"ns": {"time", 1}, "µs": {"time", 1e3}, "us": {"time", 1e3}, "ms": {"time", 1e6}, "s": {"time", 1e9},
	"B": {"size", 1}, "byte": {"size", 1}, "bytes": {"size", 1},
	"KB": {"size", 1e3}, "KiB": {"size", 1 << 10}, "MB": {"size", 1e6}, "MiB": {"size", 1 << 20},
	"GB": {"size", 1e9}, "GiB": {"size", 1 << 30},
}

// unitOf finds the unit in a benchmark's unit or a written one: "ns/op" is ns,
// "MB-binary" MB, "mem-initial-bytes" bytes; ok is false for a unit it does not know.
func unitOf(u string) (dim string, scale float64, ok bool) {
	for _, tok := range strings.FieldsFunc(u, func(r rune) bool { return r == '-' || r == '/' || r == ' ' }) {
		if s, ok := scales[tok]; ok {
			return s.dim, s.scale, true
		}
	}
	return "", 1, false
}

// convert turns v in unit from into unit to. Units it does not know must be the same on both sides.
func convert(v float64, from, to string) (float64, bool, error) {
	fd, fs, fok := unitOf(from)
	td, ts, tok := unitOf(to)
	switch {
	case fok && tok && fd == td:
		return v * fs / ts, true, nil
	case fok && tok:
		return 0, false, fmt.Errorf("printed in %s (%s) but written in %s (%s)", from, fd, to, td)
	case fok != tok && to != "":
		return 0, false, fmt.Errorf("printed in %q but written in %q: write it in the printed unit", from, to)
	}
	return v, false, nil
}

// formatValue prints a measured value (already in the written unit) with its unit.
func formatValue(v float64, unit string) string {
	var s string
	switch {
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(v, 'g', 3, 64)
	}
	if unit == "" {
		return s
	}
	return s + " " + unit
}
