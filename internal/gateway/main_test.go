package gateway_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// call, a flight or a store's worker left running after its server closed.
// Nothing here is long-lived by design, so nothing is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
