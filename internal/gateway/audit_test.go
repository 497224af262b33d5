package gateway_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway"
)

func TestAuditLine(t *testing.T) {
	var buf bytes.Buffer
	a := gateway.NewAudit(&buf, nil)
	require.NoError(t, a.Log(gateway.AuditRecord{
		Time: time.Date(2026, 12, 2, 6, 1, 2, 345_000_000, time.FixedZone("CET", 3600)), Member: "alice",
		Tool: "search", Query: `go "generics" <b>`, Outcome: "ok", Status: 200, Bytes: 5120,
		Billed: true, Cache: gateway.Computed, Duration: 1234567 * time.Microsecond,
	}))
	require.NoError(t, a.Log(gateway.AuditRecord{
		Time: time.Date(2026, 12, 2, 6, 1, 3, 0, time.UTC), Member: "bob", Tool: "fetch",
		URL: "https://go.dev/", Outcome: "error", Error: "fetch failed: 404", Cache: gateway.Coalesced,
	}))
	require.Equal(t, `{"time":"2026-12-02T05:01:02.345Z","member":"alice","tool":"search","query":"go \"generics\" <b>","outcome":"ok","deepseek_status":200,"bytes":5120,"billed":true,"cache_hit":false,"coalesced":false,"duration_ms":1234}
{"time":"2026-12-02T06:01:03.000Z","member":"bob","tool":"fetch","url":"https://go.dev/","outcome":"error","error":"fetch failed: 404","deepseek_status":0,"bytes":0,"billed":false,"cache_hit":false,"coalesced":true,"duration_ms":0}
`, buf.String())
}

// TestAuditMasksSecrets: a key or token pasted into any field never
// reaches the audit log, whatever form it takes there.
func TestAuditMasksSecrets(t *testing.T) {
	const key = "sk-0123456789abcdef0123456789abcdef"
	token := gateway.NewToken()
	red := core.NewRedactor(key)
	mask := func(s string) string { return strings.ReplaceAll(red.Mask(s), token, "[token]") }
	tests := []struct {
		name string
		rec  gateway.AuditRecord
	}{
		{"key in the query", gateway.AuditRecord{Query: "why does " + key + " fail"}},
		{"key in a URL parameter", gateway.AuditRecord{URL: "https://example.com/?api_key=" + key}},
		{"key percent-encoded in a URL", gateway.AuditRecord{URL: "https://example.com/?q=%20" + key}},
		{"key in the error", gateway.AuditRecord{Error: `DeepSeek said: invalid key "` + key + `"`}},
		{"token in the query", gateway.AuditRecord{Query: "Bearer " + token}},
		{"token as the member", gateway.AuditRecord{Member: token}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.rec.Tool, tt.rec.Outcome = "search", "ok"
			require.NoError(t, gateway.NewAudit(&buf, mask).Log(tt.rec))
			line := buf.String()
			require.NotContains(t, line, key)
			require.NotContains(t, line, key[3:])
			require.NotContains(t, line, token)
			require.True(t, json.Valid([]byte(line)), line)
		})
	}
	// Without a mask the same record shows the key: the masking above is
	// the mask's doing.
	var buf bytes.Buffer
	require.NoError(t, gateway.NewAudit(&buf, nil).Log(gateway.AuditRecord{Query: key}))
	require.Contains(t, buf.String(), key)
}

func TestAuditConcurrent(t *testing.T) {
	var buf bytes.Buffer
	a := gateway.NewAudit(&buf, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				require.NoError(t, a.Log(gateway.AuditRecord{Member: "m", Tool: "fetch", URL: strings.Repeat("x", g*100+i), Outcome: "ok"}))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 800)
	for _, l := range lines {
		require.True(t, json.Valid([]byte(l)), "interleaved line: %.80s", l)
	}
}

// A field over 1 KiB is cut there, masked first, on a character boundary,
// and says how long it was; the line stays one valid JSON line. (Before, a
// 3.9 MB query made a 3.9 MB line.)
func TestAuditTruncatesLongFields(t *testing.T) {
	const key = "sk-0123456789abcdef0123456789abcdef"
	mask := core.NewRedactor(key).Mask
	for _, tc := range []struct {
		name, value, want string
	}{
		{"short", "go generics", "go generics"},
		{"exactly 1 KiB", strings.Repeat("a", 1024), strings.Repeat("a", 1024)},
		{"long", strings.Repeat("a", 3_900_000), strings.Repeat("a", 1024) + "… (3900000 bytes, truncated)"},
		{"a key across the cut", strings.Repeat("a", 1010) + key + strings.Repeat("b", 2000),
			mask(strings.Repeat("a", 1010) + key + strings.Repeat("b", 2000))[:1024] + "… (3045 bytes, truncated)"},
		{"a character across the cut", "a" + strings.Repeat("é", 1000), "a" + strings.Repeat("é", 511) + "… (2001 bytes, truncated)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			a := gateway.NewAudit(&buf, mask)
			require.NoError(t, a.Log(gateway.AuditRecord{Member: "alice", Tool: "deepseek_search", Query: tc.value, URL: tc.value, Error: tc.value, Outcome: "error"}))
			line := buf.String()
			require.Equal(t, 1, strings.Count(line, "\n"))
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &got), line)
			require.Equal(t, tc.want, got["query"])
			require.Equal(t, tc.want, got["url"])
			require.Equal(t, tc.want, got["error"])
			require.NotContains(t, line, key[:12])
			require.Less(t, len(line), 4<<10)
		})
	}
}
