package opencode

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/opencode"
)

// openCode1 is OpenCode 1.x: plugins are listed under "plugin", each a
// string or a ["./vendor/deepseek-web-retrieval", {...}] tuple whose second
// element holds the options.
var openCode1 = generation{
	key:      "plugin",
	label:    `OpenCode 1.x ("plugin" key)`,
	form:     "tuple",
	planHost: opencode.HostV1,
	entry:    func(o install.Options) any { return []any{PackagePath, o} },
}
