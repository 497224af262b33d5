package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/atomicfile"
)

var installHelp = helpText{
	usage: "deepseek-web-retrieval install [--bin-dir DIR] [init flags]",
	about: `Puts this binary at a stable place, then runs init with the same flags and
--binary naming that copy, so MCP hosts start a binary that stays. Use it
when this binary came from npm or npx (their directories are emptied and
replaced; init refuses to record a path there) or from a release archive.

Without --yes it only prints what it would do: the copy and init's plan.
With --yes it copies (atomically: a temporary file in DIR, then a rename,
mode 0755) and applies the plan. It takes every flag of init but --binary;
--plugin-source defaults to npm when this binary came from npm (OpenCode's
config then names @deepseek-web-retrieval/opencode@VERSION), else vendor.`,
	examples: []string{
		"npx -y deepseek-web-retrieval install                  # the plan",
		"npx -y deepseek-web-retrieval install --yes            # every host found",
		"deepseek-web-retrieval install --host codex --search forced --yes",
	},
	groups: []flagGroup{
		{"Flags:", []string{"bin-dir"}},
		{`Init's flags ("deepseek-web-retrieval help init"):`, nil},
		{"Init's options:", optionFlags()},
	},
	exit: "0 plan printed or applied, 1 refused or failed, 2 usage error.",
}

// newInstallFlags returns install's flags, for its help: --bin-dir and
// init's but --binary. installArgs reads them (and passes init's on).
func newInstallFlags() *flag.FlagSet {
	fl := flag.NewFlagSet("install", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.String("bin-dir", defaultBinDirText(), "`DIR` where the binary goes")
	newInitFlags(new(initFlags)).VisitAll(func(f *flag.Flag) {
		if f.Name != "binary" {
			fl.Var(f.Value, f.Name, f.Usage)
			setDefault(fl, f.Name, f.DefValue)
		}
	})
	return fl
}

// defaultBinDir is where install puts the binary: ~/.local/bin, on Windows
// %LOCALAPPDATA%\Programs\deepseek-web-retrieval.
func defaultBinDir() (string, error) {
	if runtime.GOOS == "windows" {
		d := os.Getenv("LOCALAPPDATA")
		if d == "" {
			return "", errors.New("LOCALAPPDATA is not set: pass --bin-dir")
		}
		return filepath.Join(d, "Programs", "deepseek-web-retrieval"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: pass --bin-dir", err)
	}
	return filepath.Join(h, ".local", "bin"), nil
}

func defaultBinDirText() string {
	if runtime.GOOS == "windows" {
		return `%LOCALAPPDATA%\Programs\deepseek-web-retrieval`
	}
	return "~/.local/bin"
}

// installArgs splits install's command line into --bin-dir and the flags
// for init, and reports whether --yes is among them.
func installArgs(args []string) (binDir string, initArgs []string, yes bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "-" {
			initArgs = append(initArgs, a)
			continue
		}
		if a == "--" {
			initArgs = append(initArgs, args[i:]...)
			break
		}
		switch name {
		case "bin-dir":
			if !hasValue {
				if i+1 == len(args) {
					return "", nil, false, errors.New("flag needs an argument: --bin-dir")
				}
				i++
				value = args[i]
			}
			if value == "" {
				return "", nil, false, errors.New("--bin-dir is empty")
			}
			binDir = value
			continue
		case "binary":
			return "", nil, false, errors.New("--binary is install's to choose (the copy in --bin-dir); to record another binary, run init --binary")
		case "yes":
			yes = true
			if hasValue {
				if yes, err = strconv.ParseBool(value); err != nil {
					return "", nil, false, fmt.Errorf("invalid boolean value %q for --yes", value)
				}
			}
		}
		initArgs = append(initArgs, a)
	}
	return binDir, initArgs, yes, nil
}

// runInstall is the install command: parseInstall reads the command
// line and finds the copy to make, then init plans (without --yes) or
// copy copies and init applies.
func runInstall(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			printHelp(stdout, newInstallFlags(), installHelp)
			return exitOK
		}
	}
	in, code, ok := parseInstall(args, stderr)
	if !ok {
		return code
	}
	in.initArgs = append(in.initArgs, "--binary", in.dst)
	initArgs, note := withPluginSource(in.initArgs, in.src)
	in.initArgs = initArgs
	if note != "" {
		fmt.Fprintln(stdout, "deepseek-web-retrieval install: "+note)
	}
	if !in.yes {
		fmt.Fprintf(stdout, "deepseek-web-retrieval install: would copy %s to %s (mode 0755)\n", in.src, in.dst)
		return runInit(ctx, in.initArgs, stdout, stderr)
	}
	if code, ok := in.copy(ctx, stdout, stderr); !ok {
		return code
	}
	return runInit(ctx, in.initArgs, stdout, stderr)
}

// installRun is install's command line, read: the copy to make and init's
// flags.
type installRun struct {
	binDir   string // absolute
	dst, src string // the copy, and this binary (symlinks resolved)
	initArgs []string
	yes      bool
}

// parseInstall reads install's command line and finds this binary and
// where its copy goes; when ok is false the command ends with code (the
// reason was printed).
func parseInstall(args []string, stderr io.Writer) (in installRun, code int, ok bool) {
	binDir, initArgs, yes, err := installArgs(args)
	if err != nil {
		return in, usageErr(stderr, "install", err.Error()), false
	}
	if binDir == "" {
		if binDir, err = defaultBinDir(); err != nil {
			fmt.Fprintf(stderr, "deepseek-web-retrieval install: %v\n", err)
			return in, exitFailed, false
		}
	}
	if binDir, err = filepath.Abs(binDir); err != nil {
		return in, usageErr(stderr, "install", "--bin-dir: "+err.Error()), false
	}
	name := "deepseek-web-retrieval"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	dst := filepath.Join(binDir, name)
	if why := packageManaged(dst); why != "" {
		return in, usageErr(stderr, "install", fmt.Sprintf("--bin-dir: %s is %s", binDir, why)), false
	}
	src, err := os.Executable()
	if err == nil {
		src, err = filepath.EvalSymlinks(src)
	}
	if err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval install: cannot find this binary: %v\n", err)
		return in, exitFailed, false
	}
	return installRun{binDir: binDir, dst: dst, src: src, initArgs: initArgs, yes: yes}, exitOK, true
}

// copy has init check its flags, then copies this binary to its place;
// when ok is false the command ends with code (the reason was printed).
// The flags are init's: checking them before anything is copied means a
// typo leaves nothing behind.
func (in installRun) copy(ctx context.Context, stdout, stderr io.Writer) (code int, ok bool) {
	var errb bytes.Buffer
	if code := runInit(ctx, withoutYes(in.initArgs), io.Discard, &errb); code == exitUsage {
		io.Copy(stderr, &errb)
		return code, false
	}
	if err := copyBinary(in.src, in.dst); err != nil {
		fmt.Fprintf(stderr, "deepseek-web-retrieval install: %v\n", err)
		return exitFailed, false
	}
	fmt.Fprintf(stdout, "deepseek-web-retrieval install: installed %s: MCP hosts start it from there (after moving it, run init again)\n", in.dst)
	if !onPath(in.binDir) {
		fmt.Fprintf(stdout, "note: %s is not on your PATH\n", in.binDir)
	}
	return exitOK, true
}

// withPluginSource adds --plugin-source npm to init's flags when none is
// given, the binary at src came from npm (defaultPluginSource) and OpenCode
// may be among the hosts, and says so. A binary whose version cannot be
// pinned keeps vendoring.
func withPluginSource(initArgs []string, src string) ([]string, string) {
	if hasFlag(initArgs, "plugin-source") || defaultPluginSource(src) != "npm" {
		return initArgs, ""
	}
	if h := flagValue(initArgs, "host"); h != "" && h != "auto" && !strings.HasPrefix(h, "opencode") {
		return initArgs, ""
	}
	spec, err := pluginSpec("npm")
	if err != nil {
		return initArgs, ""
	}
	return append(initArgs, "--plugin-source", "npm"),
		"this binary came from npm, so OpenCode's config names the npm package " + spec + " (--plugin-source npm; pass --plugin-source vendor to copy the plugin instead)"
}

// flagValue is the last value args (before any "--") give the flag name,
// "" when none.
func flagValue(args []string, name string) string {
	v := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		n, val, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || n != name {
			continue
		}
		if !has && i+1 < len(args) {
			i++
			val = args[i]
		}
		v = val
	}
	return v
}

// hasFlag reports whether args (before any "--") set the flag name.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && n == name {
			return true
		}
	}
	return false
}

// withoutYes is args without its --yes flags.
func withoutYes(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "yes" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func onPath(dir string) bool {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != "" && filepath.Clean(d) == dir {
			return true
		}
	}
	return false
}

// copyBinary puts a copy of src at dst with mode 0755 through
// [atomicfile.Write], so dst is at every moment either the old binary or
// the whole new one. A src that is dst already is left alone.
func copyBinary(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil && os.SameFile(si, di) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, in, 0o755, "")
}
