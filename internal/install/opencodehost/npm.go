package opencodehost

import (
	"fmt"
	"regexp"
	"strings"
)

// npmPackage is the plugin's npm package name, as npm/packages.json names
// it (a test holds the two equal). With request.Package set, init writes
// npmPackage@<version> into the config instead of vendoring the plugin,
// and OpenCode installs that package itself.
const npmPackage = "@deepseek-web-retrieval/opencode"

// exactVersion is a semantic version with no range operator and no build
// metadata: OpenCode 1.x checks an unpinned spec against the public
// registry on every start, so only an exact pin is written.
var exactVersion = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// PackageSpec returns the exact npm spec of the plugin at version:
// npmPackage@version. A version that is not an exact semantic version
// (a range, a tag, "dev") is an error.
func PackageSpec(version string) (string, error) {
	if !exactVersion.MatchString(version) {
		return "", fmt.Errorf("cannot pin %s to version %q: not an exact version (x.y.z); a release build has one", npmPackage, version)
	}
	return npmPackage + "@" + version, nil
}

// isOurPath reports whether a plugin list names our plugin: the vendored
// path, or the npm package with or without a version.
func isOurPath(name string) bool {
	if strings.TrimRight(name, "/") == packagePath {
		return true
	}
	return name == npmPackage || strings.HasPrefix(name, npmPackage+"@")
}

// sameName reports whether an entry naming name already names want.
func sameName(name, want string) bool {
	return strings.TrimRight(name, "/") == want
}
