package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// parseArgs turns a tool's raw arguments into the operation they ask for, with
// [tool.Parse]'s validation and messages; deepseek_search also takes the
// optional question. Missing arguments count as an empty object, so the
// message names the missing field.
func parseArgs(name string, args json.RawMessage, cfg *core.Config) ([]core.Operation, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	ops, err := tool.ParseBatch(name, args, cfg)
	if err != nil || name != SearchTool {
		return ops, err
	}
	var fields struct {
		Question json.RawMessage `json:"question"`
	}
	_ = json.Unmarshal(args, &fields) // ParseBatch checked it is an object
	if q := fields.Question; len(q) > 0 && string(q) != "null" {
		var question string
		if json.Unmarshal(q, &question) != nil {
			return nil, fmt.Errorf("%s: %q must be a string", name, "question")
		}
		for i := range ops {
			ops[i].OriQuestion = question
		}
	}
	return ops, nil
}
