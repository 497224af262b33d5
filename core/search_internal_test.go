package core

import (
	"strings"
	"testing"
)

// FuzzRefusedResult holds refusedResult's shortcut for plainly written URLs
// to CheckFetchURL itself.
func FuzzRefusedResult(f *testing.F) {
	for _, u := range append(insideURLs, "https://go.dev/doc/", "http://a.b/c?d#e", "https://x.localhost/", "http://a-b.c:80/", " https://go.dev ", "https://GO.dev/") {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, err := CheckFetchURL(strings.TrimSpace(raw), nil, nil)
		if got := refusedResult(raw); got != (err != nil) {
			t.Fatalf("refusedResult(%q) = %v, CheckFetchURL error %v", raw, got, err)
		}
	})
}
