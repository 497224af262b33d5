package install

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// Op is what a Change does.
type Op int

const (
	// OpCreate creates a file or directory that does not exist.
	OpCreate Op = iota + 1
	// OpUpdate replaces a file's content.
	OpUpdate
	// OpDelete deletes a file or an empty directory.
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return "?"
}

func (o Op) past() string {
	switch o {
	case OpCreate:
		return "created"
	case OpUpdate:
		return "updated"
	case OpDelete:
		return "deleted"
	}
	return "?"
}

// PathKind says what a Change's path is.
type PathKind int

const (
	// KindConfig is a host's config file: the plan shows its diff.
	KindConfig PathKind = iota + 1
	// KindFile is a file the installer owns outright (a vendored plugin file).
	KindFile
	// KindRecord is an install record.
	KindRecord
	// KindDir is a directory.
	KindDir
	// KindTree is a directory created whole with Files in it: Apply writes
	// it under a temporary name beside Path and renames it into place, so
	// no reader (and no concurrent run) ever sees it half written.
	KindTree
)

// TreeFile is one file of a KindTree change.
type TreeFile struct {
	// Name is the file's name inside the directory (no separators).
	Name string
	// Data is its content; it is written with mode 0644.
	Data []byte
}

// Change is one file-system step of a Plan.
type Change struct {
	Op   Op
	Kind PathKind
	// Path is absolute; Rel is how the plan names it (relative to the
	// plan's ConfigDir, slash-separated), Path when empty.
	Path, Rel string
	// Old is the current content (OpUpdate, OpDelete of a file); New is the
	// content to write (OpCreate, OpUpdate of a file).
	Old, New []byte
	// Mode is the file mode to create with (an update keeps the file's own).
	Mode fs.FileMode
	// Files are a KindTree's files.
	Files []TreeFile
	// IfEmpty makes a KindDir OpDelete remove the directory only if it is
	// empty when its turn comes; such deletions run after every other
	// change of the run, deepest first (see [Tx]).
	IfEmpty bool
}

// Plan is everything one init or uninstall would do for one host. Rendering
// it changes nothing; Apply performs it.
type Plan struct {
	// Command is "init" or "uninstall".
	Command string
	// Host names the host and the shape written, as the plan shows it.
	Host string
	// Scope is "global" or "project".
	Scope string
	// ConfigDir is the absolute directory the Rel paths are relative to.
	ConfigDir string
	// ConfigFile is the main config file's name, relative to ConfigDir.
	ConfigFile string
	// APIKeyEnv is the variable the key is read from; empty means
	// DefaultAPIKeyEnv.
	APIKeyEnv string
	// Reader is who reads the key ("The plugin", "The MCP server"); empty
	// means "The plugin".
	Reader string
	// TokenEnv, when set, is the variable the host reads a member's gateway
	// token from (an entry pointing at a team gateway): the plan then
	// speaks of the token, not the key, which only the gateway holds.
	TokenEnv string
	// SignIn is set when the host signs in to the gateway itself (init
	// --remote --sign-in): no token to export.
	SignIn bool
	// UpToDate is the sentence an empty init plan prints.
	UpToDate string
	// Changes are applied in order.
	Changes []Change
	// Warnings are things a user would want to know before applying: the
	// traps of the host and conflicts in its config.
	Warnings []string
	// Notes are informational lines (files left alone, and why).
	Notes []string
	// Next are the steps left to the user after applying (one per line).
	Next []string
	// Secrets are extra strings to mask in everything the plan prints, on
	// top of the credentials found in each config change.
	Secrets [][]byte
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 }

// Add appends a change, naming it by Path when Rel is empty.
func (p *Plan) Add(c Change) {
	if c.Rel == "" {
		c.Rel = c.Path
	}
	p.Changes = append(p.Changes, c)
}

// Render writes the plan for a person: a header naming the config, one line
// per change, a unified diff of each config file change (credentials
// masked), warnings, notes and what to do next. applied selects the wording
// after Apply succeeded. The output never contains an API key or any other
// credential found in the files.
func (p *Plan) Render(w io.Writer, applied bool) error {
	var b strings.Builder
	switch {
	case p.Empty() && p.Command == "uninstall":
		b.WriteString("deepseek-web-retrieval uninstall: nothing to uninstall.\n")
	case p.Empty():
		fmt.Fprintf(&b, "deepseek-web-retrieval %s: nothing to do.\n", p.Command)
	case applied:
		fmt.Fprintf(&b, "deepseek-web-retrieval %s: applied.\n", p.Command)
	default:
		fmt.Fprintf(&b, "deepseek-web-retrieval %s: plan only, nothing has been written.\n", p.Command)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  config dir  %s\n", p.ConfigDir)
	fmt.Fprintf(&b, "  config      %s\n", p.ConfigFile)
	fmt.Fprintf(&b, "  host        %s\n", p.Host)
	fmt.Fprintf(&b, "  scope       %s\n", p.Scope)
	if p.Empty() {
		if p.UpToDate != "" {
			fmt.Fprintf(&b, "\n%s\n", p.UpToDate)
		}
	} else {
		b.WriteString("\n")
		if applied {
			b.WriteString("Done:\n")
		} else {
			b.WriteString("Would do:\n")
		}
		var diffs []string
		for _, c := range p.Changes {
			what := c.Op.String()
			if applied {
				what = c.Op.past()
			}
			fmt.Fprintf(&b, "  %-7s %s%s\n", what, c.Rel, describe(c))
			for _, f := range c.Files {
				fmt.Fprintf(&b, "  %-7s %s%s (%d bytes)\n", what, strings.TrimSuffix(c.Rel, "/")+"/", f.Name, len(f.Data))
			}
			if c.Kind == KindConfig {
				diffs = append(diffs, p.diff(c))
			}
		}
		for _, d := range diffs {
			b.WriteString("\n")
			b.WriteString(d)
		}
	}
	list := func(title, mark string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, s := range lines {
			fmt.Fprintf(&b, "  %s %s\n", mark, s)
		}
	}
	list("Warnings", "!", p.Warnings)
	list("Notes", "-", p.Notes)
	if !p.Empty() && applied {
		list("Next", "-", p.Next)
	}
	b.WriteString("\n")
	if !p.Empty() && !applied {
		fmt.Fprintf(&b, "Run the same command with --yes to apply exactly this plan.\n\n")
	}
	env := p.APIKeyEnv
	if env == "" {
		env = DefaultAPIKeyEnv
	}
	reader := p.Reader
	if reader == "" {
		reader = "The plugin"
	}
	switch {
	case p.SignIn && p.Command != "uninstall":
		fmt.Fprintf(&b, "%s signs you in to the gateway through your organisation's identity provider; init writes\n", reader)
		fmt.Fprintf(&b, "no token anywhere, and the DeepSeek key stays on the gateway.\n")
	case p.SignIn:
		fmt.Fprintf(&b, "%s keeps the sign-in to the gateway itself; sign out there if you no longer use it.\n", reader)
	case p.TokenEnv != "" && p.Command == "uninstall":
		fmt.Fprintf(&b, "The gateway token was never written by init; if nothing else uses %s, remove its export from your shell profile.\n", p.TokenEnv)
	case p.TokenEnv != "":
		fmt.Fprintf(&b, "%s sends your gateway token from the %s environment variable each time it connects;\n", reader, p.TokenEnv)
		fmt.Fprintf(&b, "init never writes the token anywhere, and the DeepSeek key stays on the gateway. Set it in your\n")
		fmt.Fprintf(&b, "shell profile (~/.bashrc, ~/.zshrc, ...) to the token `serve token add` printed for you:\n")
		fmt.Fprintf(&b, "  export %s=...\n", p.TokenEnv)
	case p.Command == "uninstall":
		fmt.Fprintf(&b, "The API key was never written by init; if nothing else uses %s, remove its export from your shell profile.\n", env)
	default:
		fmt.Fprintf(&b, "%s reads the DeepSeek API key from the %s environment variable each time it runs;\n", reader, env)
		fmt.Fprintf(&b, "init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):\n")
		fmt.Fprintf(&b, "  export %s=...\n", env)
	}
	_, err := io.WriteString(w, string(Mask([]byte(b.String()), p.Secrets)))
	return err
}

func describe(c Change) string {
	switch c.Kind {
	case KindDir:
		if c.IfEmpty {
			return " (if empty)"
		}
		return ""
	case KindTree:
		return ""
	case KindRecord:
		return " (install record)"
	case KindConfig:
		if c.Op == OpDelete {
			return " (config, created by init)"
		}
		return " (config, diff below)"
	}
	if c.Op == OpDelete {
		return ""
	}
	return fmt.Sprintf(" (%d bytes)", len(c.New))
}

func (p *Plan) diff(c Change) string {
	name := filepath.ToSlash(c.Rel)
	from, to := "a/"+name, "b/"+name
	switch c.Op {
	case OpCreate:
		from = "/dev/null"
	case OpDelete:
		to = "/dev/null"
	}
	// Mask credentials found on either side, so neither the changed lines
	// nor the context lines ever show a literal key the user keeps there.
	secrets := append(Secrets(c.Path, c.Old), Secrets(c.Path, c.New)...)
	secrets = append(secrets, p.Secrets...)
	return unifiedDiff(from, to, Mask(c.Old, secrets), Mask(c.New, secrets))
}
