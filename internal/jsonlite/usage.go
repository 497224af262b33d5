package jsonlite

import (
	"strconv"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// AppendUsage appends u as json.Marshal writes a core.Usage (null for nil).
func AppendUsage(b []byte, u *core.Usage) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, u.InputTokens, 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, u.OutputTokens, 10)
	b = append(b, `,"server_tool_use":{"web_search_requests":`...)
	b = strconv.AppendInt(b, u.ServerToolUse.WebSearchRequests, 10)
	b = append(b, `},"requests":`...)
	b = strconv.AppendInt(b, int64(u.Requests), 10)
	return append(b, '}')
}
