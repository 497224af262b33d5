// Package clitest builds the deepseek-web-retrieval binary once for a
// package's tests, which then run it as users do.
package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the Go package pkg (a path as `go build` takes it, relative
// to the test's directory) into a temporary directory, sets *bin to the
// binary, runs the tests and exits with their status, removing the
// directory first. Call it from TestMain.
func Main(m *testing.M, pkg string, bin *string) {
	dir, err := os.MkdirTemp("", "dwr-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "deepseek-web-retrieval")
	// The machine's shared cache and usage ledger of the binary, and of
	// the package run in process, go in the temporary directory: tests
	// never read or write the user's.
	if err := os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", *bin, pkg)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the CLI:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
