package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// White-box tests of the engine: what the black-box tests in
// engine_test.go cannot reach from outside.

// Handles wrap around without ever being 0 (set up by moving the
// engine's next handle to the end of its range).
func TestHandlesSkipZero(t *testing.T) {
	e := NewEngine(testEnv())
	e.next = ^Handle(0) - 1
	a := e.Start(Operation{Kind: KindSearch, Query: "a", APIKey: testKey})
	b := e.Start(Operation{Kind: KindSearch, Query: "b", APIKey: testKey})
	require.Equal(t, ^Handle(0), a.Handle)
	require.Equal(t, Handle(1), b.Handle)
	require.Equal(t, 2, e.InFlight())
}
