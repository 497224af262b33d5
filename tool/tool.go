package tool

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The tools' names, the same on every host.
const (
	SearchName = "deepseek_search"
	FetchName  = "deepseek_fetch"
)

// Parse turns a tool's raw input into the core operation it asks for,
// validating it (hosts may not validate input against the schema). Unknown
// fields are ignored. args is JSON text. The messages start with the tool's
// name.
func Parse(name string, args []byte, cfg *core.Config) (core.Operation, error) {
	fields, ok := readArgs(args)
	if !ok {
		return core.Operation{}, errors.New(name + ": the input must be a JSON object")
	}
	stringArg := func(arg int, required bool) (string, error) {
		field, v := argNames[arg], fields[arg]
		if v == nil || string(v) == "null" {
			if required {
				return "", errors.New(name + ": the input needs " + strconv.Quote(field) + " (a string)")
			}
			return "", nil
		}
		s, ok := jsonlite.Unquote(v)
		if !ok {
			return "", errors.New(name + ": " + strconv.Quote(field) + " must be a string")
		}
		return s, nil
	}
	switch name {
	case FetchName:
		u, err := stringArg(argURL, true)
		if err != nil {
			return core.Operation{}, err
		}
		f, err := stringArg(argFormat, false)
		if err != nil {
			return core.Operation{}, err
		}
		off, err := parseOffset(name, fields[argOffset])
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindFetch, URL: u, Format: f, Offset: off, Config: cfg}, nil
	case SearchName:
		q, err := stringArg(argQuery, true)
		if err != nil {
			return core.Operation{}, err
		}
		return core.Operation{Kind: core.KindSearch, Query: q, Config: cfg}, nil
	}
	return core.Operation{}, errors.New("unknown tool " + strconv.Quote(name))
}

// argNames are the members Parse reads, indexed by the arg constants.
var argNames = [...]string{"url", "format", "offset", "query", "queries", "urls"}

const (
	argURL = iota
	argFormat
	argOffset
	argQuery
	argQueries
	argURLs
)

// ParseBatch is Parse for a call that may name several queries
// ("queries", 1–4 strings, for deepseek_search) or pages ("urls", 1–5, for
// deepseek_fetch) instead of one: it returns one operation per query or
// page, in order, a repeated one dropped. The one and the several forms
// exclude each other, and several pages take no offset (each starts at
// 0, cut to its share of core.BatchFetchChars). An empty list, an empty
// string and an offset of 0 count as absent, so a host that marks every
// argument required (OpenCode 1.x) can still call with one form only.
func ParseBatch(name string, args []byte, cfg *core.Config) ([]core.Operation, error) {
	fields, ok := readArgs(args)
	if !ok {
		return nil, errors.New(name + ": the input must be a JSON object")
	}
	one, many, most := argQuery, argQueries, core.MaxBatchQueries
	if name == FetchName {
		one, many, most = argURL, argURLs, core.MaxBatchURLs
	}
	bad := errors.New(name + ": " + strconv.Quote(argNames[many]) + " must be a list of 1 to " + strconv.Itoa(most) + " strings")
	if name != SearchName && name != FetchName || absent(fields[many]) {
		if (name == SearchName || name == FetchName) && absent(fields[one]) && !absent(fields[many], "null") {
			return nil, bad // an empty list alone
		}
		op, err := Parse(name, args, cfg)
		if err != nil {
			return nil, err
		}
		return []core.Operation{op}, nil
	}
	if !absent(fields[one]) {
		return nil, errors.New(name + ": give " + strconv.Quote(argNames[one]) + " or " + strconv.Quote(argNames[many]) + ", not both")
	}
	if name == FetchName && !absent(fields[argOffset]) {
		return nil, errors.New(name + `: "offset" works with one "url", not with "urls"`)
	}
	var list []string
	d := jsonlite.NewDecoder(fields[many])
	err := d.Array(func(d *jsonlite.Decoder, i int) error {
		var s string
		if err := d.String(&s); err != nil {
			return err
		}
		if s = strings.TrimSpace(s); s == "" {
			return bad
		}
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
		return nil
	})
	if err != nil || len(list) == 0 || len(list) > most {
		return nil, bad
	}
	ops := make([]core.Operation, len(list))
	for i, s := range list {
		if name == SearchName {
			ops[i] = core.Operation{Kind: core.KindSearch, Query: s, Config: cfg}
			continue
		}
		f, err := parseFormat(name, fields[argFormat])
		if err != nil {
			return nil, err
		}
		ops[i] = core.Operation{Kind: core.KindFetch, URL: s, Format: f, Config: core.BatchConfig(cfg, len(list))}
	}
	return ops, nil
}

// absent reports whether an argument's JSON text means "not given": none,
// or one of only (by default null, "", [] and 0), white space aside.
func absent(v []byte, only ...string) bool {
	if len(only) == 0 {
		only = []string{"null", `""`, "[]", "0"}
	}
	t := strings.Join(strings.Fields(string(v)), "")
	return t == "" || slices.Contains(only, t)
}

// parseFormat reads deepseek_fetch's optional format.
func parseFormat(name string, v []byte) (string, error) {
	if v == nil || string(v) == "null" {
		return "", nil
	}
	s, ok := jsonlite.Unquote(v)
	if !ok {
		return "", errors.New(name + `: "format" must be a string`)
	}
	return s, nil
}

// readArgs decodes args, which must be a JSON object, into the text of the
// members Parse reads (nil when absent), matched by exact name (the last of
// repeated names wins), as json.Unmarshal does into a
// map[string]json.RawMessage; FuzzReadArgs checks it against that map,
// which it replaced: the map and a string per name were a tenth of a fetch
// step's start in WebAssembly.
func readArgs(args []byte) (fields [len(argNames)][]byte, ok bool) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || a[0] != '{' {
		return fields, false
	}
	d := jsonlite.NewDecoder(a)
	err := d.Members(func(name []byte) error {
		v, err := d.Raw()
		for i, n := range argNames {
			if string(name) == n {
				fields[i] = v
			}
		}
		return err
	})
	return fields, err == nil
}

// parseOffset reads deepseek_fetch's optional offset: a whole number ≥ 0,
// also accepted as a string of digits (models sometimes quote numbers).
// Absent or null means 0. name starts the message.
func parseOffset(name string, v []byte) (int, error) {
	raw := strings.TrimSpace(string(v))
	if raw == "" || raw == "null" {
		return 0, nil
	}
	bad := errors.New(name + `: "offset" must be a whole number of characters, 0 or more (the number the last part's "[content truncated: …]" line names), got ` + clip(raw))
	if s, ok := jsonlite.Unquote(v); ok {
		raw = strings.TrimSpace(s)
	}
	// Decimal only: ParseFloat also reads hex floats ("0x1p4" is 16).
	if strings.Trim(raw, "0123456789.eE+-") != "" {
		return 0, bad
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, bad
	}
	return int(f), nil
}

// clip cuts an argument quoted in a message to 40 code points.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
