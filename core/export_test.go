package core

// The door from the black-box tests (package core_test) to the test
// helpers in helpers_test.go: one definition serves both packages, and
// helpers_external_test.go binds these back to the helpers' own names.
// Nothing here reaches the engine's internals.
const (
	TestKey              = testKey
	RefusedPrivateSuffix = pn
)

var (
	PinnedNow             = pinnedNow
	TestEnv               = testEnv
	IntPtr                = intPtr
	BoolPtr               = boolPtr
	MustConfig            = mustConfig
	OKReply               = okReply
	StatusReply           = statusReply
	ResultsBody           = resultsBody
	SearchStep            = search
	SearchHits            = searchHits
	HitURLs               = hitURLs
	FetchStep             = fetch
	FetchBodyJSON         = fetchBodyJSON
	AssertNoKeyPart       = assertNoKeyPart
	MessagesBackendConfig = messagesConfig
	MessagesSearch        = messagesSearch
	Fixture               = fixture
	CheckedURL            = checkedURL
	InsideURLs            = insideURLs
	Encodings             = encodings
)

// Item is the test helpers' search result for building bodies.
type Item = item
