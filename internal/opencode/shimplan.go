package opencode

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/jsonlite"
)

// The parts of a plan below tell the shim in plugin/ how to adapt to the
// host it runs in, as data it applies without knowing why: which tools to
// register on a 2.x host that lacks the websearch provider API, and how to
// edit a 1.x host's loaded config so that a forced tier's built-in tool is
// switched off. OpenCode's rules behind them live here, not in JavaScript.

// Fallback is what an OpenCode 2.x host without the websearch provider API
// registers instead of Plan.Websearch.
type Fallback struct {
	// Tools are registered beside Plan.Tools: deepseek_search as a tool of
	// our own, unless Plan.Tools holds it already (forced search).
	Tools []Tool `json:"tools"`
	// Warning is the line for the user's log that says so.
	Warning string `json:"warning"`
}

// ConfigEdit is one edit of the config object OpenCode 1.x hands the
// plugin's config hook. The value Path names is replaced by a copy of it in
// which each member of Set comes last, replacing any member of that name.
type ConfigEdit struct {
	// Path leads from the config's root to the value to edit. A "*"
	// segment stands for every member of the object there; a segment
	// that meets anything but an object (null and absent included) leads
	// nowhere, and nothing is edited on that way.
	Path []string `json:"path"`
	// Set holds the members to put last, with their values (bools or
	// strings). Their order among themselves does not matter.
	Set map[string]any `json:"set"`
	// Scalar, when not "", names the member a string value stands for:
	// permission "ask" is {"*": "ask"}. Without it a string is edited as
	// an object of its own (OpenCode rejects either).
	Scalar string `json:"scalar,omitempty"`
	// Existing leaves an absent value (undefined) alone; otherwise it is
	// edited as {}.
	Existing bool `json:"existing,omitempty"`
}

// noWebsearchAPI is the fallback of a 2.x plan with a websearch provider
// and tools: search as a tool unless tools has it, and the warning.
func noWebsearchAPI(tools []Tool, search Tool) *Fallback {
	f := &Fallback{Tools: []Tool{}}
	has := false
	for _, t := range tools {
		has = has || t.Name == search.Name
	}
	if !has {
		f.Tools = append(f.Tools, search)
	}
	f.Warning = "this OpenCode has no websearch provider API, so DeepSeek search is offered to the model as the " + search.Name +
		` tool instead; update OpenCode to have DeepSeek behind its websearch tool, or set search to "off" to not offer it`
	return f
}

// disableBuiltins returns the config edits that switch the built-in tools
// names off in OpenCode 1.x. 1.18.33 turns `tools: {x: false}` into
// permission rules while it loads the config, before any plugin runs, and
// later filters the tools it offers by permission only: a tool whose last
// matching rule is "deny" for "*" is not offered. So the tools are set to
// false and denied, last, in the global rules and in the rules of every
// configured agent that has some (agent rules are merged after them).
func disableBuiltins(names []string) []ConfigEdit {
	if len(names) == 0 {
		return nil
	}
	off, deny := map[string]any{}, map[string]any{}
	for _, n := range names {
		off[n], deny[n] = false, "deny"
	}
	return []ConfigEdit{
		{Path: []string{"tools"}, Set: off},
		{Path: []string{"permission"}, Set: deny, Scalar: "*"},
		{Path: []string{"agent", "*", "permission"}, Set: deny, Scalar: "*", Existing: true},
	}
}

func (f *Fallback) appendJSON(b []byte) []byte {
	b = append(b, `{"tools":`...)
	b = jsonlite.AppendArray(b, f.Tools, func(b []byte, t *Tool) []byte { return t.appendJSON(b) })
	b = append(b, `,"warning":`...)
	b = jsonlite.AppendString(b, f.Warning)
	return append(b, '}')
}

func (e *ConfigEdit) appendJSON(b []byte) []byte {
	b = append(b, `{"path":`...)
	b = jsonlite.AppendStrings(b, e.Path)
	b = append(b, `,"set":`...)
	b = appendScalars(b, e.Set, "ConfigEdit.Set")
	if e.Scalar != "" {
		b = append(b, `,"scalar":`...)
		b = jsonlite.AppendString(b, e.Scalar)
	}
	if e.Existing {
		b = append(b, `,"existing":true`...)
	}
	return append(b, '}')
}

// appendScalars appends m, whose values must be bools or strings, as a JSON
// object with its keys sorted; what names m in the panic for another value.
func appendScalars(b []byte, m map[string]any, what string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonlite.AppendString(b, k)
		b = append(b, ':')
		switch v := m[k].(type) {
		case bool:
			b = jsonlite.AppendBool(b, v)
		case string:
			b = jsonlite.AppendString(b, v)
		default:
			panic("opencode: " + what + " holds a value that is not a bool or a string")
		}
	}
	return append(b, '}')
}
