package opencodehost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

// planFile is the stored registration plan, a vendored file beside the
// plugin's server.js (recorded and hashed like the others, so uninstall
// removes it). With it the plugin registers its tools at setup without
// touching core.wasm; see plugin/README.md, "Startup".
const planFile = "plan.json"

// planFormat is the version of the stored plan's format (2: the options
// digest is of the options' text as the plugin sends it, see optionsDigest).
const planFormat = 2

// planDoc is the content of planFile: the plan the module would answer
// to {"kind": "opencode.plan"} for these options on this host, and the
// stamp the plugin checks before using it. Any difference (other options,
// another host, another core.wasm, another format) and the plugin asks the
// module instead, so a stale or hand-edited file is never used.
type planDoc struct {
	// Format is planFormat.
	Format int `json:"format"`
	// Host is the plan's host: "opencode2" or "opencode1".
	Host string `json:"host"`
	// ModuleSHA256 is the hex SHA-256 of the core.wasm installed beside it.
	ModuleSHA256 string `json:"moduleSHA256"`
	// OptionsSHA256 is the hex SHA-256 of the options' JSON text as the
	// plugin sends it to the module (see [optionsDigest]).
	OptionsSHA256 string `json:"optionsSHA256"`
	// Plan is the registration plan.
	Plan *opencode.Plan `json:"plan"`
}

// optionsDigest returns the hex SHA-256 of an options value's JSON text as
// the plugin sends it to the module: JavaScript's JSON.stringify of the
// object the host parsed from the config entry, which keeps the members in
// the order written and has no whitespace. The plugin hashes those bytes
// and compares; it re-implements nothing. Options written in another order,
// or values the two languages write differently (a U+2028 in a string,
// say), only make the digests differ, and the plugin then asks the module.
func optionsDigest(raw []byte) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// planHost is the plan's name of an install host.
func planHost(h Host) string { return h.generation().planHost }

// storedPlan builds planFile's content for options o (already validated)
// on host h, beside the core.wasm wasm. It resolves the options exactly as
// the module does (core.ParseOptions, core.NewConfig, opencode.NewPlan), so
// a validation failure here is an error, never a plan.
func storedPlan(h Host, o install.Options, wasm []byte) ([]byte, error) {
	raw := install.Marshal(o, "", "", true)
	co, warnings, err := core.ParseOptions(raw)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	cfg, more, err := core.NewConfig(co)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	plan, err := opencode.NewPlan(planHost(h), cfg, append(warnings, more...))
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	digest, err := optionsDigest(raw)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	sp := planDoc{Format: planFormat, Host: planHost(h), ModuleSHA256: install.SHA(wasm), OptionsSHA256: digest, Plan: plan}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sp); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return buf.Bytes(), nil
}

// withPlan returns files with planFile for h and o added (replacing one of
// that name).
func withPlan(files []pluginFile, h Host, o install.Options) ([]pluginFile, error) {
	var wasm []byte
	out := files[:0:0]
	for _, f := range files {
		if f.name == "core.wasm" {
			wasm = f.data
		}
		if f.name != planFile {
			out = append(out, f)
		}
	}
	data, err := storedPlan(h, o, wasm)
	if err != nil {
		return nil, err
	}
	out = append(out, pluginFile{planFile, data})
	slices.SortFunc(out, func(a, b pluginFile) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
