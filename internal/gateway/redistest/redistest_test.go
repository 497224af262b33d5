package redistest_test

import (
	"fmt"
	"net"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/gateway/redistest"
)

// fatalTB records Fatalf and stops the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestStartFailsWithoutRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		redistest.Start(f)
	}()
	<-done
	require.Equal(t, "redistest: redis-server is not on PATH; a real Redis is needed: install it (Debian/Ubuntu: apt-get install -y redis-server)", f.msg)
}

func TestStartStopRestart(t *testing.T) {
	s := redistest.Start(t)
	c, err := net.Dial("tcp", s.Addr)
	require.NoError(t, err)
	c.Close()
	require.Equal(t, "redis://"+s.Addr+"/0", s.URL)
	s.Stop()
	_, err = net.Dial("tcp", s.Addr)
	require.Error(t, err, "the port still answers after Stop")
	s.Stop()
	require.NoError(t, s.Restart())
	c, err = net.Dial("tcp", s.Addr)
	require.NoError(t, err, "no server after Restart")
	c.Close()
}
