package mcphosts

import (
	"fmt"
	"os"
	"path/filepath"

	shared "github.com/deepseek-web-retrieval/deepseek-web-retrieval/install"
	ocinstall "github.com/deepseek-web-retrieval/deepseek-web-retrieval/opencode/install"
)

// Check is what doctor found for one host and scope.
type Check struct {
	// Host and Scope say where.
	Host  string
	Scope string
	// File is the config file holding the entry.
	File string
	// Installed reports whether the entry is there.
	Installed bool
	// Lines describe the state, one fact each; Problems are what stops the
	// server from working; Traps are the plan's warnings for the entry's
	// own options.
	Lines, Problems, Traps []string
	// KeyEnv is the variable the entry passes the key in.
	KeyEnv string
}

// MainFile returns the file holding the server entry for the host and scope.
func MainFile(req Request) (string, error) {
	rs, err := resolve(req)
	if err != nil {
		return "", err
	}
	return adapters[req.Host].targets(rs)[0].path, nil
}

// Doctor inspects one host and scope: whether the entry is there and
// parses, whether the binary it starts still exists (moved or deleted),
// and which traps are active for its options.
func Doctor(req Request) Check {
	rs, err := resolve(req)
	c := Check{Host: string(req.Host), Scope: string(req.Scope)}
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
		return c
	}
	c.Host = adapters[req.Host].label
	rs.args = Args(req.Options)
	ts := adapters[req.Host].targets(rs)
	c.File = ts[0].path
	cur, _, err := readTarget(ts[0])
	switch {
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return c
	case !cur.exists:
		c.Lines = append(c.Lines, c.File+" does not exist")
		return c
	case cur.err != nil:
		c.Problems = append(c.Problems, fmt.Sprintf("%s does not parse: %v", c.File, cur.err))
		return c
	}
	entry, _ := lookup(cur.plain, ts[0].serverPath...).(map[string]any)
	if entry == nil {
		c.Lines = append(c.Lines, "no "+shared.Name+" entry in "+c.File)
		return c
	}
	c.Installed = true
	c.Lines = append(c.Lines, "entry present in "+c.File)
	cmd, _ := entry["command"].(string)
	if fi, err := os.Stat(cmd); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		c.Problems = append(c.Problems, fmt.Sprintf("the entry starts %s, which does not exist or is not executable (moved or deleted?): run `make install`, or init again from the binary's new place", cmd))
	} else {
		c.Lines = append(c.Lines, "starts "+cmd)
	}
	// The entry's own options, as far as doctor needs them.
	o := ocinstall.Options{}
	if args, ok := entry["args"].([]any); ok {
		for i := 0; i+1 < len(args); i++ {
			v, _ := args[i+1].(string)
			switch args[i] {
			case "--search":
				o.Search = v
			case "--fetch":
				o.Fetch = v
			case "--api-key-env":
				o.APIKeyEnv = v
			}
		}
	}
	c.KeyEnv = o.APIKeyVar()
	if filepath.IsAbs(cmd) {
		req.Options, req.Binary = o, cmd
		if p, err := PlanInit(req); err == nil {
			c.Traps = p.Warnings
			for _, ch := range p.Changes {
				if ch.Kind == shared.KindConfig && ch.Path == c.File {
					c.Problems = append(c.Problems, "the entry differs from what init writes for its options (edited by hand?): `init` shows the difference")
				}
			}
		} else {
			c.Problems = append(c.Problems, err.Error())
		}
	}
	return c
}
