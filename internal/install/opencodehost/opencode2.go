package opencodehost

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/opencode"
)

// openCode2 is OpenCode 2.x: plugins are listed under "plugins", each an
// object {"package": "./vendor/deepseek-web-retrieval", "options": {...}}
// whose options reach the plugin's server function; "package" may be an
// npm spec ("@deepseek-web-retrieval/opencode@1.2.3"), which OpenCode
// installs.
var openCode2 = generation{
	key:      "plugins",
	label:    `OpenCode 2.x ("plugins" key)`,
	form:     "object",
	planHost: opencode.V2,
	entry: func(name string, o install.Options) any {
		return struct {
			Package string          `json:"package"`
			Options install.Options `json:"options"`
		}{name, o}
	},
}
