// Command dist writes the release artifacts of deepseek-web-retrieval into
// one directory (make dist):
//
//   - per platform, a static binary (CGO_ENABLED=0) in
//     deepseek-web-retrieval_VERSION_GOOS_GOARCH/ and the same directory as
//     an archive (.tar.gz; .zip for Windows) with README.md and LICENSE;
//   - npm/: the npm packages as tarballs (npm pack): the launcher, one
//     package per platform and the OpenCode plugin, named by
//     npm/packages.json;
//   - checksums.txt: the SHA-256 of every archive and npm tarball.
//
// Two runs from the same commit give the same bytes: the binaries are built
// with -trimpath, -buildvcs=false and an empty build id; every archive entry
// has the commit time as its timestamp, owner 0:0 and a fixed mode; entries
// are written in a fixed order. RATIONALE.md ("Why a Go program for
// releases?") says why this is a program and not GoReleaser.
//
// Usage:
//
//	go run ./internal/cmd/dist [-out dist] [-version V] [-commit C] [-time UNIX] [-targets linux/amd64,...] [-npm=false]
//
// -version defaults to core.Version, -commit and -time to HEAD's hash and
// commit time (git), -targets to every platform in npm/packages.json.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/atomicfile"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/plugin"
)

// binName is the command's name; Windows binaries add ".exe".
const binName = "deepseek-web-retrieval"

// Platform is one release target: its Go name and its npm name.
type Platform struct {
	GOOS    string `json:"goos"`
	GOARCH  string `json:"goarch"`
	OS      string `json:"os"`      // process.platform, npm's "os"
	CPU     string `json:"cpu"`     // process.arch, npm's "cpu"
	Package string `json:"package"` // the npm package holding its binary
}

// Names is npm/packages.json: every npm package name, in one place.
type Names struct {
	Launcher  string     `json:"launcher"`
	Plugin    string     `json:"plugin"`
	Platforms []Platform `json:"platforms"`
}

// config is one run of dist.
type config struct {
	root    string // the repository
	out     string // written afresh
	version string
	commit  string
	mtime   time.Time
	targets []Platform
	npm     bool
	goCmd   string
	names   Names
}

func main() {
	var (
		c       config
		targets string
		stamp   string
	)
	flag.StringVar(&c.root, "root", ".", "the repository's root")
	flag.StringVar(&c.out, "out", "dist", "output directory (replaced)")
	flag.StringVar(&c.version, "version", core.Version, "release version (semver, no leading v)")
	flag.StringVar(&c.commit, "commit", "", "commit hash (default: git rev-parse HEAD)")
	flag.StringVar(&stamp, "time", "", "timestamp of every archive entry, Unix seconds (default: HEAD's commit time)")
	flag.StringVar(&targets, "targets", "", "comma-separated GOOS/GOARCH list (default: every platform in npm/packages.json)")
	flag.BoolVar(&c.npm, "npm", true, "also write the npm tarballs (needs npm)")
	flag.StringVar(&c.goCmd, "go", "go", "the go command")
	flag.Parse()
	if err := c.fill(targets, stamp); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// fill completes c from the repository: names, commit, time, targets.
func (c *config) fill(targets, stamp string) error {
	if !semver.MatchString(c.version) {
		return fmt.Errorf("-version %q is not a semantic version like 1.2.3 (no leading v)", c.version)
	}
	b, err := os.ReadFile(filepath.Join(c.root, "npm", "packages.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &c.names); err != nil {
		return fmt.Errorf("npm/packages.json: %w", err)
	}
	if c.commit == "" {
		if c.commit, err = git(c.root, "rev-parse", "HEAD"); err != nil {
			return err
		}
	}
	if stamp == "" {
		if stamp, err = git(c.root, "log", "-1", "--format=%ct"); err != nil {
			return err
		}
	}
	sec, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return fmt.Errorf("-time %q: not Unix seconds", stamp)
	}
	c.mtime = time.Unix(sec, 0).UTC()
	if targets == "" {
		c.targets = c.names.Platforms
		return nil
	}
	for _, t := range strings.Split(targets, ",") {
		p, ok := c.platform(t)
		if !ok {
			return fmt.Errorf("-targets: %q is not a platform of npm/packages.json", t)
		}
		c.targets = append(c.targets, p)
	}
	return nil
}

func (c *config) platform(goosArch string) (Platform, bool) {
	for _, p := range c.names.Platforms {
		if p.GOOS+"/"+p.GOARCH == goosArch {
			return p, true
		}
	}
	return Platform{}, false
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// file is one archive or package entry.
type file struct {
	name string
	mode fs.FileMode
	data []byte
}

// run writes every artifact into c.out, replacing what was there.
func run(c config) error {
	if err := os.RemoveAll(c.out); err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	docs, err := readFiles(c.root, "README.md", "LICENSE")
	if err != nil {
		return err
	}
	var artifacts []string
	for _, p := range c.targets {
		dir := filepath.Join(c.out, stem(c.version, p))
		exe := filepath.Join(dir, exeName(p))
		if err := build(c, p, exe); err != nil {
			return err
		}
		bin, err := os.ReadFile(exe)
		if err != nil {
			return err
		}
		files := append([]file{{exeName(p), 0o755, bin}}, docs...)
		for _, f := range docs {
			if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
				return err
			}
		}
		name := stem(c.version, p) + archiveExt(p)
		if p.GOOS == "windows" {
			err = writeZip(filepath.Join(c.out, name), stem(c.version, p), c.mtime, files)
		} else {
			err = writeTarGz(filepath.Join(c.out, name), stem(c.version, p), c.mtime, files)
		}
		if err != nil {
			return err
		}
		artifacts = append(artifacts, name)
	}
	if c.npm {
		tgz, err := npmPackages(c, docs)
		if err != nil {
			return err
		}
		artifacts = append(artifacts, tgz...)
	}
	return writeChecksums(c.out, artifacts)
}

// stem names a platform's directory and archive.
func stem(version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s_%s", binName, version, p.GOOS, p.GOARCH)
}

func exeName(p Platform) string {
	if p.GOOS == "windows" {
		return binName + ".exe"
	}
	return binName
}

func archiveExt(p Platform) string {
	if p.GOOS == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

func readFiles(dir string, names ...string) ([]file, error) {
	var fs []file
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		fs = append(fs, file{n, 0o644, b})
	}
	return fs, nil
}

// build compiles the command for p into exe: static, no paths, no VCS
// stamp, no build id, with the version and commit linked in.
func build(c config, p Platform, exe string) error {
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.commit=%s", c.version, c.commit)
	cmd := exec.Command(c.goCmd, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", exe, "./cmd/deepseek-web-retrieval")
	cmd.Dir = c.root
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH,
		// The baseline of each architecture, whatever the caller's environment says.
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s/%s: %w", p.GOOS, p.GOARCH, err)
	}
	return nil
}

// writeTarGz writes files under dir/ as a gzipped tar: owner 0:0, every
// timestamp mtime, entries in the given order.
func writeTarGz(dst, dir string, mtime time.Time, files []file) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.ModTime = mtime
	tw := tar.NewWriter(zw)
	hdr := func(name string, mode fs.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode), Size: size, ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return err
	}
	for _, f := range files {
		if err := tw.WriteHeader(hdr(dir+"/"+f.name, f.mode, int64(len(f.data)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeAtomic(dst, buf.Bytes())
}

// writeZip writes files under dir/ as a zip: every timestamp mtime (UTC),
// Unix modes, entries in the given order.
func writeZip(dst, dir string, mtime time.Time, files []file) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	d := &zip.FileHeader{Name: dir + "/", Modified: mtime}
	d.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(f.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return writeAtomic(dst, buf.Bytes())
}

func writeAtomic(dst string, data []byte) error { return atomicfile.WriteFile(dst, data, 0o644) }

// writeChecksums writes checksums.txt (sha256sum's format) for names, files
// of out.
func writeChecksums(out string, names []string) error {
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return writeAtomic(filepath.Join(out, "checksums.txt"), []byte(b.String()))
}

// packageJSON is the package.json of the launcher and platform packages;
// fields are written in this order.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Repository           string            `json:"repository,omitempty"`
	Type                 string            `json:"type,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Files                []string          `json:"files"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	Launcher             *launcherMeta     `json:"deepseekWebRetrieval,omitempty"`
}

// launcherMeta is what the launcher reads from its own package.json.
type launcherMeta struct {
	// Platforms maps process.platform + "-" + process.arch to the package
	// holding that platform's binary.
	Platforms map[string]string `json:"platforms"`
}

const repository = "github:deepseek-web-retrieval/deepseek-web-retrieval"

// npmPackages stages and packs every npm package; it returns the tarballs'
// names relative to c.out. Platform packages exist only for c.targets; the
// launcher depends on all of them.
func npmPackages(c config, docs []file) ([]string, error) {
	stage := filepath.Join(c.out, "npm", "stage")
	defer os.RemoveAll(stage)
	var tgz []string
	pack := func(pkg string, files []file) error {
		dir := filepath.Join(stage, strings.NewReplacer("@", "", "/", "-").Replace(pkg))
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f.name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, f.data, f.mode); err != nil {
				return err
			}
			if err := os.Chmod(p, f.mode); err != nil { // past the umask
				return err
			}
		}
		cmd := exec.Command("npm", "pack", "--ignore-scripts", "--loglevel=warn", "--pack-destination", filepath.Join("..", ".."))
		cmd.Dir = dir
		cmd.Stderr = os.Stderr // stdout is the tarball's name
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm pack %s: %w", pkg, err)
		}
		name := filepath.Join("npm", tarball(pkg, c.version))
		if _, err := os.Stat(filepath.Join(c.out, name)); err != nil {
			return fmt.Errorf("npm pack %s: %w", pkg, err)
		}
		tgz = append(tgz, name)
		return nil
	}
	jsonFile := func(v any) (file, error) {
		b, err := marshal(v)
		return file{"package.json", 0o644, b}, err
	}

	// One package per platform: the binary in bin/.
	for _, p := range c.targets {
		exe, err := os.ReadFile(filepath.Join(c.out, stem(c.version, p), exeName(p)))
		if err != nil {
			return nil, err
		}
		pj, err := jsonFile(packageJSON{
			Name: p.Package, Version: c.version, License: "MIT", Repository: repository,
			Description: fmt.Sprintf("The %s binary for %s %s (installed by the %s package).", binName, p.OS, p.CPU, c.names.Launcher),
			OS:          []string{p.OS}, CPU: []string{p.CPU}, Files: []string{"bin"}, PreferUnplugged: true,
		})
		if err != nil {
			return nil, err
		}
		readme := file{"README.md", 0o644, []byte(fmt.Sprintf("# %s\n\nThe `%s` binary for %s %s. Install `%s` instead: it picks this package on this platform.\n", p.Package, binName, p.OS, p.CPU, c.names.Launcher))}
		if err := pack(p.Package, []file{pj, readme, docs[1], {"bin/" + exeName(p), 0o755, exe}}); err != nil {
			return nil, err
		}
	}

	// The launcher: a bin script and the platform table.
	js, err := os.ReadFile(filepath.Join(c.root, "npm", "launcher", "launcher.js"))
	if err != nil {
		return nil, err
	}
	deps, table := map[string]string{}, map[string]string{}
	for _, p := range c.names.Platforms {
		deps[p.Package] = c.version
		table[p.OS+"-"+p.CPU] = p.Package
	}
	pj, err := jsonFile(packageJSON{
		Name: c.names.Launcher, Version: c.version, License: "MIT", Repository: repository,
		Description: "DeepSeek Search and Fetch for coding agents: the installer, CLI and MCP server (runs the binary for this platform).",
		Type:        "module", Bin: map[string]string{binName: "bin/" + binName + ".js"},
		Files: []string{"bin"}, Engines: map[string]string{"node": ">=18"},
		OptionalDependencies: deps, Launcher: &launcherMeta{Platforms: table},
	})
	if err != nil {
		return nil, err
	}
	if err := pack(c.names.Launcher, append([]file{pj, {"bin/" + binName + ".js", 0o755, js}}, docs...)); err != nil {
		return nil, err
	}

	// The OpenCode plugin: plugin/'s installable files, named and stamped.
	pfiles, err := pluginFiles(c)
	if err != nil {
		return nil, err
	}
	if err := pack(c.names.Plugin, append(pfiles, docs[1])); err != nil {
		return nil, err
	}
	return tgz, nil
}

// pluginFiles reads the plugin directory's installable files, its
// package.json given the plugin's package name and the release version.
func pluginFiles(c config) ([]file, error) {
	dir := filepath.Join(c.root, "plugin")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []file
	for _, e := range ents {
		if !e.Type().IsRegular() || !plugin.Installable(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if e.Name() == "package.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("plugin/package.json: %w", err)
			}
			if m["name"] != c.names.Plugin {
				return nil, fmt.Errorf("plugin/package.json names %v, npm/packages.json %q: make them agree", m["name"], c.names.Plugin)
			}
			m["version"] = c.version
			if b, err = marshal(m); err != nil {
				return nil, err
			}
		}
		files = append(files, file{e.Name(), 0o644, b})
	}
	if len(files) == 0 {
		return nil, errors.New("plugin/: no installable files")
	}
	return files, nil
}

// tarball is the file name npm pack gives pkg at version.
func tarball(pkg, version string) string {
	return strings.NewReplacer("@", "", "/", "-").Replace(pkg) + "-" + version + ".tgz"
}

// marshal is v as indented JSON with a final newline, ">" and "&" as they
// are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}
