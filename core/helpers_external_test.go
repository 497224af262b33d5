package core_test

import "github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"

// The helpers of helpers_test.go under the names the white-box tests use,
// through export_test.go, so a test reads the same in either package.
const (
	testKey = core.TestKey
	pn      = core.RefusedPrivateSuffix
)

var (
	pinnedNow       = core.PinnedNow
	testEnv         = core.TestEnv
	intPtr          = core.IntPtr
	boolPtr         = core.BoolPtr
	mustConfig      = core.MustConfig
	okReply         = core.OKReply
	statusReply     = core.StatusReply
	resultsBody     = core.ResultsBody
	search          = core.SearchStep
	searchHits      = core.SearchHits
	hitURLs         = core.HitURLs
	fetch           = core.FetchStep
	fetchBodyJSON   = core.FetchBodyJSON
	assertNoKeyPart = core.AssertNoKeyPart
	messagesConfig  = core.MessagesBackendConfig
	messagesSearch  = core.MessagesSearch
	fixture         = core.Fixture
	checkedURL      = core.CheckedURL
	insideURLs      = core.InsideURLs
	encodings       = core.Encodings
)

type item = core.Item
