// Package rpcid is the check both MCP servers, the stdio one (package mcp)
// and the gateway's over HTTP (package gateway), make of a JSON-RPC call's
// id before the SDK reads it. The SDK reads a numeric id as a float64 and
// answers with that float, so 1.5 would come back as 1, 9007199254740993 as
// 9007199254740992 and 18446744073709551615 as another number: the answer
// would name another call. Such a call is refused with an invalid-request
// error (-32600) that echoes the id byte for byte; string ids and whole
// numbers within ±(2^53-1) are answered as sent.
package rpcid

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// CodeInvalidRequest is JSON-RPC's invalid-request error code.
const CodeInvalidRequest = -32600

// maxSafe is the largest integer id the SDK echoes exactly (2^53-1).
const maxSafe = 1<<53 - 1

// Refusal returns, for one JSON-RPC message, the id of a call the SDK
// would answer under another id and the error message refusing it; text
// is empty when the message is no call (no method or no id), its id is a
// string, or a number the SDK echoes exactly, or the message is not JSON
// (the SDK answers that itself).
func Refusal(msg []byte) (id json.RawMessage, text string) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(msg, &probe) != nil || probe.Method == nil || len(probe.ID) == 0 {
		return nil, ""
	}
	if c := probe.ID[0]; (c == '-' || c >= '0' && c <= '9') && !safeInteger(probe.ID) {
		return probe.ID, "invalid request: the id " + clip(string(probe.ID), 40) +
			" is not a whole number from -9007199254740991 to 9007199254740991 written without a fraction or exponent; use such a number or a string"
	}
	return nil, ""
}

// safeInteger reports whether a JSON number is written as a plain integer
// (no fraction, exponent or -0) within ±(2^53-1), so that the SDK answers
// with the same digits.
func safeInteger(num []byte) bool {
	digits := bytes.TrimPrefix(num, []byte("-"))
	if len(digits) == 0 || len(digits) > 16 || digits[0] == '0' && (len(digits) > 1 || len(num) > 1) {
		return false
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	return err == nil && n <= maxSafe
}

// clip cuts s to n bytes and an ellipsis.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ErrorLine is a JSON-RPC error response with id (as sent, or null), code
// and msg, ending with a newline.
func ErrorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: rpcError{code, msg}})
	return append(b, '\n')
}
