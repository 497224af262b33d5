//go:build wasip1

package main

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// panicText prints what fmt's %v prints for the values panics carry. The
// package only builds for wasip1; make test-go runs it under wazero's CLI:
//
//	go build -o bin/wazero github.com/tetratelabs/wazero/cmd/wazero
//	GOOS=wasip1 GOARCH=wasm go test -exec "$PWD/bin/wazero run" ./wasm/
func TestPanicText(t *testing.T) {
	var nilMap map[string]int
	runtimeErr := func() (err error) {
		defer func() { err = recover().(error) }()
		nilMap["x"] = 1
		return nil
	}()
	for _, v := range []any{runtimeErr, errors.New("boom"), "plain <string>", 42, int64(-7), uint64(1 << 63), true, netip.MustParseAddr("::1")} {
		require.Equal(t, fmt.Sprintf("%v", v), panicText(v))
	}
	require.Equal(t, "a panic value of an unprintable type", panicText(struct{ A int }{1}))
}
