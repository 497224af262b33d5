package install

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFindProgram(t *testing.T) {
	look := func(string) (string, error) { return "/bin/opencode", nil }
	answer := func(out string, err error) func(context.Context, string, ...string) ([]byte, error) {
		return func(context.Context, string, ...string) ([]byte, error) { return []byte(out), err }
	}
	require.Equal(t, Program{}, FindProgram("opencode", func(string) (string, error) { return "", errors.New("not found") }, answer("", nil), time.Second))
	require.Equal(t, Program{Path: "/bin/opencode", Version: "1.18.33"}, FindProgram("opencode", look, answer("opencode 1.18.33\n", nil), time.Second))
	p := FindProgram("opencode", look, answer("dev build\n", nil), time.Second)
	require.EqualError(t, p.Err, "/bin/opencode --version printed no version")
	p = FindProgram("opencode", look, answer("", errors.New("exit status 1")), time.Second)
	require.EqualError(t, p.Err, "/bin/opencode --version failed: exit status 1")
	p = FindProgram("opencode", look, func(ctx context.Context, _ string, _ ...string) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, 10*time.Millisecond)
	require.EqualError(t, p.Err, "/bin/opencode --version did not answer within 10ms")
}

func TestEnvGetenv(t *testing.T) {
	e := Env{Environ: []string{"A=1", "B=x=y", "A=2", "C"}}
	require.Equal(t, "1", e.Getenv("A"))
	require.Equal(t, "x=y", e.Getenv("B"))
	require.Equal(t, "", e.Getenv("C"))
	require.Equal(t, "", Env{}.Getenv("A"))
}
