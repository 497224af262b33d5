// Package redistest starts a real redis-server for tests: on a free
// loopback port, in a temporary directory, with persistence off, stopped
// when the test ends. A test that needs Redis fails (it does not skip)
// when redis-server is not installed.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a running redis-server.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// URL is redis://Addr/0.
	URL string

	t    testing.TB
	dir  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start starts a redis-server and stops it when t ends. It fails t with a
// message saying how to install redis-server when it is not on PATH.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not on PATH; these tests need a real Redis: install it (Debian/Ubuntu: apt-get install -y redis-server)")
	}
	s := &Server{t: t, dir: t.TempDir()}
	var err error
	for range 5 { // another process may take the free port first
		if s.port, err = freePort(); err != nil {
			t.Fatalf("redistest: free port: %v", err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	s.URL = "redis://" + s.Addr + "/0"
	t.Cleanup(s.Stop)
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	logPath := filepath.Join(s.dir, "redis.log")
	cmd := exec.Command("redis-server",
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", logPath)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("redis-server on port %d exited (%v): %s", s.port, err, lastLines(string(log), 5))
		default:
		}
		if ping(addr) == nil {
			s.mu.Lock()
			s.cmd = cmd
			s.mu.Unlock()
			go func() { <-exited }()
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("redis-server on port %d did not answer PING within 10 s", s.port)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Stop kills the server (an outage, as far as clients can tell) and waits
// until its port refuses connections. Stopping a stopped server does
// nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	for range 200 {
		if ping(s.Addr) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Restart starts a stopped server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart: %v", err)
	}
}
