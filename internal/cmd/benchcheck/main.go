// Command benchcheck holds the figures the design records quote to what
// `make bench` printed: it reads the "Figures" table of RATIONALE.md, finds
// each row's line in a saved `make bench` output (under the row's heading),
// and prints per row the value as written, the value measured, their ratio,
// and ok or drift. make bench saves its output to bin/bench.txt and ends with
// this check; make bench-check BENCH_OUT=FILE checks an output saved before.
//
// A row names where its figure is printed in one of two ways:
//
//   - a Go benchmark and one of its units: `BenchmarkFirstOpen/new` `ns/op`
//     reads the ns/op of the line `BenchmarkFirstOpen/new-2  1000  ...`
//     (the -N GOMAXPROCS suffix is optional; a benchmark printed several
//     times, as with -count, gives its median);
//   - a printed line, with {} where the number is: `raw {} bytes` reads the
//     first line of the section that contains it (runs of spaces match any
//     white space; a leading ^ anchors it at the line's start).
//
// The heading is a prefix of one heading the Makefile's bench recipe echoes
// (`== module size`); the section it names runs to the next such heading. A
// heading may narrow the section with › and a text of a line inside it
// (`the plugin under Node and Bun › plugin benchmark — bun`): the search
// starts after the first line containing that text.
//
// Units: the written and the printed value are compared after converting
// between ns, µs, ms and s, and between bytes, KB, KiB, MB, MiB, GB and GiB;
// other units (allocs/op, hit rates) must be written as printed. Tolerance
// is ±N% (the measured value within N% of the written one) or ×N (within a
// factor of N either way).
//
// Exit status: 1 when a row's line is missing from the output (a figure
// nothing printed: the benchmark was renamed, removed or failed) or a row
// drifted past its tolerance, 2 when the table or the arguments are wrong.
// With -warn, drift is reported but does not fail: timings on a busy machine
// move, and a missing line still fails.
//
// Usage:
//
//	go run ./internal/cmd/benchcheck [-rationale RATIONALE.md] [-makefile Makefile] [-warn] [bench.txt]
//
// Without a file, or with -, the output is read from stdin.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
)

func main() {
	rationale := flag.String("rationale", "RATIONALE.md", "the record holding the Figures table")
	makefile := flag.String("makefile", "Makefile", "the Makefile whose bench recipe echoes the headings")
	warn := flag.Bool("warn", false, "report drift past a row's tolerance without failing")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchcheck [-rationale RATIONALE.md] [-makefile Makefile] [-warn] [bench.txt | -]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	os.Exit(run(*rationale, *makefile, flag.Arg(0), *warn, os.Stdout, os.Stderr))
}

// run checks the output at path (stdin when empty or "-") and returns the exit status.
func run(rationalePath, makefilePath, outPath string, warn bool, stdout, stderr io.Writer) int {
	rows, err := readTable(rationalePath)
	if err != nil {
		fmt.Fprintln(stderr, "benchcheck:", err)
		return 2
	}
	mk, err := os.ReadFile(makefilePath)
	if err != nil {
		fmt.Fprintln(stderr, "benchcheck:", err)
		return 2
	}
	headings := benchHeadings(string(mk))
	if len(headings) == 0 {
		fmt.Fprintf(stderr, "benchcheck: %s: no bench recipe echoing == headings\n", makefilePath)
		return 2
	}
	var out []byte
	if outPath == "" || outPath == "-" {
		out, err = io.ReadAll(os.Stdin)
	} else {
		out, err = os.ReadFile(outPath)
	}
	if err != nil {
		fmt.Fprintln(stderr, "benchcheck:", err)
		return 2
	}
	results, err := check(rows, headings, string(out))
	if err != nil {
		fmt.Fprintln(stderr, "benchcheck:", err)
		return 2
	}
	report(stdout, results)
	return status(results, warn, stderr)
}

// report prints one line per row.
func report(w io.Writer, results []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\twritten\tmeasured\tratio\t")
	for _, r := range results {
		switch r.state {
		case missing:
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tMISSING: %s\n", r.row.figure, r.row.written, r.why)
		default:
			state := "ok"
			if r.state == drift {
				state = "DRIFT past " + r.row.tolerance.text
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\n", r.row.figure, r.row.written, formatValue(r.measured, r.row.writtenUnit), r.ratio, state)
		}
	}
	tw.Flush()
}

// status is the exit status for results, with a closing line on stderr when it is not 0.
func status(results []result, warn bool, stderr io.Writer) int {
	var nMissing, nDrift int
	for _, r := range results {
		switch r.state {
		case missing:
			nMissing++
		case drift:
			nDrift++
		}
	}
	switch {
	case nMissing > 0:
		fmt.Fprintf(stderr, "benchcheck: %d figure(s) missing from the output, %d drifted: fix the table or what prints it\n", nMissing, nDrift)
		return 1
	case nDrift > 0 && warn:
		fmt.Fprintf(stderr, "benchcheck: %d figure(s) drifted past their tolerance (-warn: not failing)\n", nDrift)
		return 0
	case nDrift > 0:
		fmt.Fprintf(stderr, "benchcheck: %d figure(s) drifted past their tolerance: update the prose and the table, or rerun on a quieter machine (-warn reports without failing)\n", nDrift)
		return 1
	}
	return 0
}
