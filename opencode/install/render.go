package install

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Render writes the plan for a person: a header naming the config, one line
// per change, a unified diff of each config file change, warnings, notes and
// what to do next. applied selects the wording after Apply succeeded. The
// output never contains an API key.
func (p *Plan) Render(w io.Writer, applied bool) error {
	var b strings.Builder
	switch {
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
	fmt.Fprintf(&b, "  host        %s\n", p.Host.label())
	fmt.Fprintf(&b, "  scope       %s\n", p.Scope)
	if p.Empty() {
		if p.Command == "init" {
			fmt.Fprintf(&b, "\n%s already lists %s with these options, and the vendored files are current.\n", p.ConfigFile, PackagePath)
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
				what = map[Op]string{OpCreate: "created", OpUpdate: "updated", OpDelete: "deleted"}[c.Op]
			}
			fmt.Fprintf(&b, "  %-7s %s%s\n", what, c.Rel, describe(c))
			if c.Kind == KindConfig {
				diffs = append(diffs, p.diff(c))
			}
		}
		for _, d := range diffs {
			b.WriteString("\n")
			b.WriteString(d)
		}
	}
	if len(p.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, s := range p.Warnings {
			fmt.Fprintf(&b, "  ! %s\n", s)
		}
	}
	if len(p.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, s := range p.Notes {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	b.WriteString("\n")
	if !p.Empty() && !applied {
		fmt.Fprintf(&b, "Run the same command with --yes to apply exactly this plan.\n\n")
	}
	env := p.APIKeyEnv
	if env == "" {
		env = DefaultAPIKeyEnv
	}
	if p.Command == "uninstall" {
		fmt.Fprintf(&b, "The API key was never written by init; if nothing else uses %s, remove its export from your shell profile.\n", env)
	} else {
		fmt.Fprintf(&b, "The plugin reads the DeepSeek API key from the %s environment variable each time it runs;\n", env)
		fmt.Fprintf(&b, "init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):\n")
		fmt.Fprintf(&b, "  export %s=...\n", env)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func describe(c Change) string {
	switch c.Kind {
	case KindDir:
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
	// Mask credentials from either side, so the diff's context lines never
	// show a literal key the user keeps in the config.
	sec := append(secrets(c.Old), secrets(c.New)...)
	return unifiedDiff(from, to, redact(c.Old, sec), redact(c.New, sec))
}
