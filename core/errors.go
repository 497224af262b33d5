package core

import "errors"

// Code classifies an operation's failure. Codes cross the WebAssembly ABI
// and are stable: add new ones, never rename.
type Code string

// Failure codes.
const (
	// CodeInvalidInput: the query, URL, format or options were unusable; no
	// request was made.
	CodeInvalidInput Code = "invalid_input"
	// CodeURLRefused: the fetch URL failed the local URL policy.
	CodeURLRefused Code = "url_refused"
	// CodeMissingKey: no API key was available.
	CodeMissingKey Code = "missing_key"
	// CodeAPI: DeepSeek answered with an error status.
	CodeAPI Code = "api"
	// CodeRedirect: DeepSeek answered with a 3xx, which is never followed.
	CodeRedirect Code = "redirect"
	// CodeTimeout: an attempt ran out of time.
	CodeTimeout Code = "timeout"
	// CodeNetwork: the request failed below HTTP.
	CodeNetwork Code = "network"
	// CodeTooLarge: the response body was over 5 MiB.
	CodeTooLarge Code = "too_large"
	// CodeMalformed: the response body was not what DeepSeek sends.
	CodeMalformed Code = "malformed"
	// CodeNoContent: Fetch returned no readable content.
	CodeNoContent Code = "no_content"
	// CodeCancelled: the host cancelled the operation.
	CodeCancelled Code = "cancelled"
	// CodeBudget: the host's daily budget of billed requests is spent; no
	// request was made.
	CodeBudget Code = "budget"
	// CodeInternal: a bug; the message says what.
	CodeInternal Code = "internal"
)

// Error is an operation's failure. Its message is a complete sentence meant
// for the user or model, and never contains the API key.
type Error struct {
	Code Code
	// Status is the HTTP status for CodeAPI and CodeRedirect, else 0.
	Status int
	// Message is the full text, e.g. "DeepSeek Search failed: HTTP 402:
	// Insufficient Balance".
	Message string
}

func (e *Error) Error() string { return e.Message }

// Is matches the sentinel errors below by code, so callers can write
// errors.Is(err, core.ErrCancelled).
func (e *Error) Is(target error) bool {
	if target == ErrURLRefused {
		return e.Code == CodeURLRefused
	}
	if t, ok := errors.AsType[*Error](target); ok {
		return t.Message == "" && t.Code == e.Code
	}
	return false
}

// Sentinels for errors.Is, one per code.
var (
	ErrInvalidInput = &Error{Code: CodeInvalidInput}
	ErrMissingKey   = &Error{Code: CodeMissingKey}
	ErrAPI          = &Error{Code: CodeAPI}
	ErrRedirect     = &Error{Code: CodeRedirect}
	ErrTimeout      = &Error{Code: CodeTimeout}
	ErrNetwork      = &Error{Code: CodeNetwork}
	ErrTooLarge     = &Error{Code: CodeTooLarge}
	ErrMalformed    = &Error{Code: CodeMalformed}
	ErrNoContent    = &Error{Code: CodeNoContent}
	ErrCancelled    = &Error{Code: CodeCancelled}
)
