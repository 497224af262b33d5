package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

// OpenCode 2.x shows the model a websearch provider's results and nothing
// else: the note of withheld results ends the last result's content.
func TestProviderResultsSayWhatWasWithheld(t *testing.T) {
	const withheld = "(2 results withheld: their URLs point at private or local addresses or carry a user name or password.)"
	providerResults := func(body string) []opencode.ProviderResult {
		e := newEnv(t, reply(200, body))
		steps := e.run(e.start(abi.KindWebsearch, abi.WebsearchInput{Query: "q"}, e.opts()))
		return result[struct {
			Results []opencode.ProviderResult `json:"results"`
		}](t, steps[len(steps)-1].Step).Results
	}

	got := providerResults(`{"results": [
  {"url": "https://go.dev/doc/", "title": "Go", "summary": "Public.", "authority": 3},
  {"url": "http://169.254.169.254/latest/meta-data/", "title": "Metadata", "summary": "secret"},
  {"url": "https://example.org/", "title": "Example"},
  {"url": "https://user:pass@example.com/", "title": "Credentials", "summary": "secret"}
]}`)
	require.Len(t, got, 2)
	require.Equal(t, "[authority 3]\nPublic.", got[0].Content, "only the last result carries the note")
	require.Equal(t, withheld, got[1].Content, "a result without content gets the note alone")

	got = providerResults(`{"results": [
  {"url": "http://[::1]/", "title": "Loopback"},
  {"url": "https://go.dev/doc/", "title": "Go", "summary": "Public."},
  {"url": "http://10.0.0.1/", "title": "Private"}
]}`)
	require.Len(t, got, 1)
	require.Equal(t, "Public.\n\n"+withheld, got[0].Content)

	got = providerResults(`{"results": [{"url": "https://go.dev/doc/", "title": "Go", "summary": "Public."}]}`)
	require.Equal(t, "Public.", got[0].Content, "no note when nothing was withheld")

	// Nothing left: OpenCode says it found nothing; there is no result to
	// carry the note, and none is made up (a model might fetch its URL).
	require.Empty(t, providerResults(`{"results": [{"url": "http://127.0.0.1/"}]}`))
}
