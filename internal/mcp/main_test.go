package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// call, a transport's reader or a test's helper left running after its
// server ended. Nothing here is long-lived by design, so nothing is
// ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
