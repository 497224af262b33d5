package anthropic

import (
	"strings"
	"testing"
)

// BenchmarkDecodeWorst decodes 5 MiB bodies built to cost the most (the
// module's own figures come from tests/worstbody_test.go).
func BenchmarkDecodeWorst(b *testing.B) {
	const n = 5 << 20
	fill := func(head, unit, tail string) []byte {
		return []byte(head + strings.Repeat(unit+",", (n-len(head)-len(tail))/(len(unit)+1)) + unit + tail)
	}
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"empty blocks", fill(`{"content":[`, `{}`, `]}`)},
		{"tiny results", fill(`{"content":[{"type":"web_search_tool_result","content":[`, `{"type":"web_search_result","url":"https://a.example/"}`, `]}]}`)},
		{"result blocks", fill(`{"content":[`, `{"type":"web_search_tool_result","content":[]}`, `]}`)},
		{"reference empty blocks", nil},
	} {
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			body, decode := c.body, Decode
			if body == nil {
				body, decode = fill(`{"content":[`, `{}`, `]}`), referenceDecode
			}
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				decode(body)
			}
		})
	}
}
