//go:build wasip1

package main

import "strconv"

// panicText is what fmt's %v prints for a recovered panic value of the
// kinds a panic carries (runtime errors, errors, strings, numbers);
// anything else, which fmt would print with reflection, is named only.
func panicText(v any) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case bool:
		return strconv.FormatBool(v)
	}
	return "a panic value of an unprintable type"
}
