package wire

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestDecodeSearch(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []SearchItem
		wantErr string
	}{
		{name: "empty object", body: `{}`, want: nil},
		{name: "null results", body: `{"results":null}`, want: nil},
		{name: "empty results", body: `{"results":[]}`, want: []SearchItem{}},
		{name: "surrounding white space", body: " \n\t{\"results\":[]}\r\n", want: []SearchItem{}},
		{
			name: "full item",
			body: `{"results":[{"url":"https://go.dev/","title":"Go","snippet":"s","summary":"sum","content":"ignored","rerank_score":2.13,"authority":3,"date":"2024-05-01T10:00:00Z","site_name":"Go Site","site_icon":"x"}]}`,
			want: []SearchItem{{URL: "https://go.dev/", Title: "Go", Snippet: "s", Summary: "sum", Date: "2024-05-01T10:00:00Z", SiteName: "Go Site", Rerank: 2.13, Authority: 3, HasRerank: true, HasAuthority: true}},
		},
		{
			name: "every field null",
			body: `{"results":[{"url":null,"title":null,"snippet":null,"summary":null,"content":null,"rerank_score":null,"authority":null,"date":null,"site_name":null,"site_icon":null}]}`,
			want: []SearchItem{{}},
		},
		{name: "every field missing", body: `{"results":[{}]}`, want: []SearchItem{{}}},
		{
			name: "wrong types count as missing",
			body: `{"results":[{"url":1,"title":["t"],"snippet":{},"summary":true,"date":20240501,"site_name":false,"rerank_score":true,"authority":{"v":1}}]}`,
			want: []SearchItem{{}},
		},
		{
			name: "numbers as strings are accepted",
			body: `{"results":[{"rerank_score":" 1.5 ","authority":"-1"}]}`,
			want: []SearchItem{{Rerank: 1.5, Authority: -1, HasRerank: true, HasAuthority: true}},
		},
		{
			name: "unparsable numeric strings are missing",
			body: `{"results":[{"rerank_score":"high","authority":"NaN"},{"rerank_score":"Inf","authority":""}]}`,
			want: []SearchItem{{}, {}},
		},
		{
			name: "zero is present",
			body: `{"results":[{"rerank_score":0,"authority":0}]}`,
			want: []SearchItem{{HasRerank: true, HasAuthority: true}},
		},
		{
			name: "entries that are not objects are skipped",
			body: `{"results":[1,"x",null,[],{"url":"https://a.example/"},true]}`,
			want: []SearchItem{{URL: "https://a.example/"}},
		},
		{
			name: "number out of float range is missing",
			body: `{"results":[{"rerank_score":1e400}]}`,
			want: []SearchItem{{}},
		},
		{
			name: "fields over the size limit are missing, and not decoded",
			body: `{"results":[{"url":"https://a.example/","summary":"` + strings.Repeat("x", MaxFieldBytes+1) + `","snippet":"` + strings.Repeat("y", MaxFieldBytes) + `","rerank_score":1` + strings.Repeat("0", MaxFieldBytes) + `,"authority":"` + strings.Repeat(" ", MaxFieldBytes) + `"}]}`,
			want: []SearchItem{{URL: "https://a.example/", Snippet: strings.Repeat("y", MaxFieldBytes)}},
		},
		{name: "200 results are read", body: `{"results":[` + strings.Repeat(`{"url":"u"},`, 199) + `{"url":"u"}]}`, want: slices.Repeat([]SearchItem{{URL: "u"}}, 200)},
		{name: "201 results are too many", body: `{"results":[` + strings.Repeat(`1,`, 200) + `1]}`, wantErr: "more than 200 results"},
		{name: "nesting to encoding/json's limit", body: `{"results":[],"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, want: []SearchItem{}},
		{name: "nesting past encoding/json's limit", body: `{"results":[],"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, wantErr: "not a JSON object: the body is not valid JSON at byte 10017"},
		{name: "unknown top-level fields ignored", body: `{"id":"x","results":[],"usage":{"n":1}}`, want: []SearchItem{}},
		{name: "results is an object", body: `{"results":{}}`, wantErr: `"results" is not a list`},
		{name: "results is a string", body: `{"results":"none"}`, wantErr: `"results" is not a list`},
		{name: "array body", body: `[]`, wantErr: "not a JSON object"},
		{name: "empty body", body: ``, wantErr: "not a JSON object"},
		{name: "html body", body: `<html>502</html>`, wantErr: "not a JSON object"},
		{name: "truncated object", body: `{"results":[{"url":"x"}`, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeSearch([]byte(tt.body))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeSearchNotJSONIsErrNotJSON(t *testing.T) {
	for _, body := range []string{``, `   `, `[]`, `"x"`, `nul`, `{`, `{"results":[}`} {
		_, err := DecodeSearch([]byte(body))
		require.True(t, errors.Is(err, ErrNotJSON), "body %q: %v", body, err)
	}
}

func TestDecodeFetch(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    FetchPage
		wantErr bool
	}{
		{name: "title and content", body: `{"title":"Go","content":"# Go\n\ntext"}`, want: FetchPage{Title: "Go", Content: "# Go\n\ntext"}},
		{name: "missing fields", body: `{}`, want: FetchPage{}},
		{name: "null fields", body: `{"title":null,"content":null}`, want: FetchPage{}},
		{name: "wrong types", body: `{"title":1,"content":["a"]}`, want: FetchPage{}},
		{name: "escapes decoded", body: `{"content":"a\u00e9\ud83d\ude00"}`, want: FetchPage{Content: "aé😀"}},
		{name: "not an object", body: `"content"`, wantErr: true},
		{name: "empty", body: ``, wantErr: true},
		{name: "broken", body: `{"content":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeFetch([]byte(tt.body))
			if tt.wantErr {
				require.ErrorIs(t, err, ErrNotJSON)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestErrorMessage(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name string
		body string
		want string
	}{
		{name: "error.message", body: `{"error":{"message":"Insufficient Balance","type":"x"}}`, want: "Insufficient Balance"},
		{name: "error string", body: `{"error":"Authentication Fails"}`, want: "Authentication Fails"},
		{name: "top-level message", body: `{"message":"Not Found"}`, want: "Not Found"},
		{name: "error.message wins over message", body: `{"message":"outer","error":{"message":"inner"}}`, want: "inner"},
		{name: "blank error.message falls to message", body: `{"error":{"message":"  "},"message":"outer"}`, want: "outer"},
		{name: "error object without message is the raw body", body: `{"error":{"code":5}}`, want: `{"error":{"code":5}}`},
		{name: "message of wrong type is the raw body", body: `{"message":42}`, want: `{"message":42}`},
		{name: "white space collapsed", body: "{\"error\":{\"message\":\" Rate \\n\\t limit  reached \"}}", want: "Rate limit reached"},
		{name: "raw body trimmed", body: "  Service Unavailable\r\n", want: "Service Unavailable"},
		{name: "raw html collapsed", body: "<html>\n  <body>502 Bad Gateway</body>\n</html>", want: "<html> <body>502 Bad Gateway</body> </html>"},
		{name: "empty body", body: ``, want: ""},
		{name: "blank body", body: " \n\t ", want: ""},
		{name: "control characters dropped", body: "bad\x00\x01\x7fthing", want: "bad thing"},
		{name: "invalid UTF-8 dropped", body: "bad\xff\xfething", want: "bad thing"},
		{name: "raw body cut to 300 code points", body: long, want: strings.Repeat("é", 300)},
		{name: "message cut to 300 code points", body: `{"error":{"message":"` + long + `"}}`, want: strings.Repeat("é", 300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorMessage([]byte(tt.body))
			require.Equal(t, tt.want, got)
			require.LessOrEqual(t, utf8.RuneCountInString(got), 300)
			require.True(t, utf8.ValidString(got))
		})
	}
}
