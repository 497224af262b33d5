// Package redistest starts a real redis-server for tests and benchmarks: on
// a free loopback port, in a temporary directory, with persistence off. A
// test that needs Redis fails (it does not skip) when redis-server is not
// installed.
package redistest

import (
	"bufio"
	"errors"
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

	dir  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start starts a redis-server and stops it when t ends. It fails t with a
// message saying how to install redis-server when it is not on PATH.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Run(t.TempDir())
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Run starts a redis-server with its files in dir, for programs that are
// not tests (the gateway's load benchmark); the caller stops it with Stop.
func Run(dir string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, errors.New("redis-server is not on PATH; a real Redis is needed: install it (Debian/Ubuntu: apt-get install -y redis-server)")
	}
	s := &Server{dir: dir}
	var err error
	for range 5 { // another process may take the free port first
		if s.port, err = freePort(); err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	s.URL = "redis://" + s.Addr + "/0"
	return s, nil
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
func (s *Server) Restart() error {
	if err := s.start(); err != nil {
		return fmt.Errorf("redistest: restart: %w", err)
	}
	return nil
}
