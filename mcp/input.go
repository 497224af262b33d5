package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/opencode"
)

// decode turns a tool's raw arguments into the operation they ask for, with
// the OpenCode adapter's validation and messages; deepseek_search also takes
// the optional question. Missing arguments count as an empty object, so the
// message names the missing field.
func decode(tool string, args json.RawMessage, cfg *core.Config) (core.Operation, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	op, err := opencode.ToolCall(tool, args, cfg)
	if err != nil || tool != SearchTool {
		return op, err
	}
	var fields struct {
		Question json.RawMessage `json:"question"`
	}
	_ = json.Unmarshal(args, &fields) // ToolCall checked it is an object
	if q := fields.Question; len(q) > 0 && string(q) != "null" {
		if json.Unmarshal(q, &op.OriQuestion) != nil {
			return core.Operation{}, fmt.Errorf("%s: %q must be a string", tool, "question")
		}
	}
	return op, nil
}
