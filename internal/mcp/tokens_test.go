package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
)

// maxToolTokens bounds what the two tool definitions cost every request a
// host sends its model, in o200k_base tokens (GPT-4o's and later models'
// encoding): 578 before deepseek_search took "queries" and deepseek_fetch
// "urls".
const maxToolTokens = 650

// The tool definitions, as tools/list sends them, stay within
// maxToolTokens for every tier a host may be given (the preferred and
// forced descriptions say more).
func TestToolDefinitionsTokens(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	require.NoError(t, err)
	for _, tier := range []core.Tier{core.TierOptional, core.TierPreferred, core.TierForced} {
		cfg, _, err := core.NewConfig(core.Options{Search: tier, Fetch: tier})
		require.NoError(t, err)
		data, err := json.Marshal(Tools(cfg))
		require.NoError(t, err)
		ids, _, err := enc.Encode(string(data))
		require.NoError(t, err)
		t.Logf("%s: %d o200k tokens (%d bytes)", tier, len(ids), len(data))
		require.LessOrEqual(t, len(ids), maxToolTokens, "tier %s", tier)
	}
}
