package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// replica is one `serve` child process.
type replica struct {
	name string
	// Base is http://host:port, where the replica serves /mcp and /metrics.
	Base string
	cmd  *exec.Cmd

	exited chan struct{} // closed when the process has exited

	mu       sync.Mutex
	stderr   []string // its last lines
	outages  int      // its lines saying Redis failed
	signaled string   // the signal the benchmark sent, "" if none
	// fallbacks is dwr_redis_fallbacks_total when last read: store
	// operations served in process because Redis failed.
	fallbacks int64
}

var servingAt = regexp.MustCompile(`at (http://[^ ]+)/mcp`)

// startReplica starts `bin serve ...` and waits until it says where it
// serves.
func startReplica(name, bin string, args []string) (*replica, error) {
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	env := []string{"DEEPSEEK_API_KEY=" + key}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEEPSEEK_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stdout = io.Discard
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	r := &replica{name: name, cmd: cmd, exited: make(chan struct{})}
	addr := make(chan string, 1)
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			r.mu.Lock()
			if r.stderr = append(r.stderr, line); len(r.stderr) > 20 {
				r.stderr = r.stderr[1:]
			}
			if strings.Contains(line, "redis failed") {
				r.outages++
			}
			r.mu.Unlock()
			if m := servingAt.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		<-lines
		_ = cmd.Wait()
		close(r.exited)
	}()
	select {
	case r.Base = <-addr:
		return r, nil
	case <-r.exited:
		return nil, fmt.Errorf("%s exited before serving: %s", name, r.tail())
	case <-time.After(20 * time.Second):
		r.kill()
		return nil, fmt.Errorf("%s did not say where it serves within 20 s: %s", name, r.tail())
	}
}

func (r *replica) tail() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return tail(strings.Join(r.stderr, "\n"), 5)
}

// kill ends the replica with SIGKILL and waits for it; it does nothing
// to a replica that has exited.
func (r *replica) kill() {
	select {
	case <-r.exited:
		return
	default:
	}
	r.mu.Lock()
	r.signaled = "SIGKILL"
	r.mu.Unlock()
	_ = r.cmd.Process.Kill()
	<-r.exited
}

// terminate sends SIGTERM and waits up to wait for the exit; past it the
// replica is killed and the error says so.
func (r *replica) terminate(wait time.Duration) error {
	r.mu.Lock()
	r.signaled = "SIGTERM"
	r.mu.Unlock()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("%s: SIGTERM: %w", r.name, err)
	}
	select {
	case <-r.exited:
		return nil
	case <-time.After(wait):
		r.kill()
		return fmt.Errorf("%s did not exit within %s of SIGTERM", r.name, wait)
	}
}

// running reports whether the replica runs and the benchmark has not
// signalled it.
func (r *replica) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.exited:
		return false
	default:
		return r.signaled == ""
	}
}

// crashed says how the replica ended if it ended on its own, or after
// SIGTERM with a status other than 0; "" while it runs or when it ended
// as the benchmark meant.
func (r *replica) crashed() string {
	select {
	case <-r.exited:
	default:
		return ""
	}
	r.mu.Lock()
	sig := r.signaled
	r.mu.Unlock()
	ps := r.cmd.ProcessState
	switch {
	case sig == "SIGKILL":
		return ""
	case sig == "SIGTERM" && ps.Success():
		return ""
	case sig == "SIGTERM":
		return fmt.Sprintf("%s ended with %v after SIGTERM: %s", r.name, ps, r.tail())
	}
	return fmt.Sprintf("%s ended on its own (%v): %s", r.name, ps, r.tail())
}

// ending describes how the replica ended, for the table.
func (r *replica) ending() string {
	select {
	case <-r.exited:
	default:
		return "running"
	}
	r.mu.Lock()
	sig := r.signaled
	r.mu.Unlock()
	if sig == "" {
		return "crashed: " + r.cmd.ProcessState.String()
	}
	return r.cmd.ProcessState.String() + " after " + sig
}

// metric sums every series of a counter family on the replica's /metrics.
func (r *replica) metric(name string) (int64, error) {
	resp, err := http.Get(r.Base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var sum int64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) || (len(line) > len(name) && line[len(name)] != '{' && line[len(name)] != ' ') {
			continue
		}
		v, err := strconv.ParseInt(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s /metrics: %q: %w", r.name, line, err)
		}
		sum += v
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if name == "dwr_redis_fallbacks_total" {
		r.mu.Lock()
		r.fallbacks = sum
		r.mu.Unlock()
	}
	return sum, nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
