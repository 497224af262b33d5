package opencodehost

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

// openCode1 is OpenCode 1.x: plugins are listed under "plugin", each a
// string or a ["./vendor/deepseek-web-retrieval", {...}] tuple whose second
// element holds the options; the first may be an npm spec
// ("@deepseek-web-retrieval/opencode@1.2.3"), which OpenCode installs.
var openCode1 = generation{
	key:      "plugin",
	label:    `OpenCode 1.x ("plugin" key)`,
	form:     "tuple",
	planHost: opencode.V1,
	entry:    func(name string, o install.Options) any { return []any{name, o} },
}
